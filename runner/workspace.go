package runner

import (
	"io/fs"
	"path/filepath"
	"sort"
	"time"
)

// snapshotLimit bounds how many workspace entries are looked at per run.
const snapshotLimit = 20000

type fileState struct {
	size    int64
	modTime time.Time
}

// snapshot records the regular files under dir without following links. It
// reports false when it stopped at snapshotLimit entries.
func snapshot(dir string) (map[string]fileState, bool) {
	files := map[string]fileState{}
	seen := 0
	complete := true
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners are skipped, not fatal
		}
		seen++
		if seen > snapshotLimit {
			complete = false
			return filepath.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil // directories, links and devices are not files we report
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		files[filepath.ToSlash(rel)] = fileState{size: info.Size(), modTime: info.ModTime()}
		return nil
	})
	return files, complete
}

// changedFiles lists files in after that are new or differ from before.
func changedFiles(before, after map[string]fileState) []File {
	var out []File
	for path, st := range after {
		if old, ok := before[path]; ok && old.size == st.size && old.modTime.Equal(st.modTime) {
			continue
		}
		out = append(out, File{Path: path, Size: st.size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
