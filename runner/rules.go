package runner

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Secrets are the places the standard level never lets code read, for a
// given OS and the person's home folder, plus PyGate's own run/ folder.
func Secrets(goos, home, pygateRun string) []string {
	j := func(parts ...string) string { return filepath.Join(append([]string{home}, parts...)...) }
	list := []string{
		j(".ssh"), j(".aws"), j(".gnupg"), j(".azure"), j(".kube"), j(".docker"),
		j(".netrc"), j(".git-credentials"), j(".pypirc"), j(".npmrc"),
		j(".config", "gcloud"), j(".config", "gh"),
		j(".password-store"),
		j(".mozilla"), j(".thunderbird"),
	}
	switch goos {
	case "darwin":
		list = append(list,
			j("Library", "Keychains"),
			j("Library", "Cookies"),
			j("Library", "Safari"),
			j("Library", "Mail"),
			j("Library", "Messages"),
			j("Library", "Application Support", "Google", "Chrome"),
			j("Library", "Application Support", "Firefox"),
			j("Library", "Application Support", "BraveSoftware"),
			j("Library", "Application Support", "Microsoft Edge"),
			j("Library", "Application Support", "Arc"),
			j("Library", "Application Support", "com.apple.TCC"),
		)
	case "windows":
		list = append(list,
			j("AppData", "Local", "Google", "Chrome", "User Data"),
			j("AppData", "Local", "Microsoft", "Edge", "User Data"),
			j("AppData", "Local", "BraveSoftware"),
			j("AppData", "Roaming", "Mozilla"),
			j("AppData", "Roaming", "Microsoft", "Credentials"),
			j("AppData", "Local", "Microsoft", "Credentials"),
			j("AppData", "Roaming", "Microsoft", "Protect"),
		)
	default:
		list = append(list,
			j(".local", "share", "keyrings"),
			j(".config", "google-chrome"),
			j(".config", "chromium"),
			j(".config", "BraveSoftware"),
			j(".config", "microsoft-edge"),
			j(".config", "vivaldi"),
			j("snap", "firefox"),
			j("snap", "chromium"),
			j(".var", "app", "org.mozilla.firefox"),
			j(".var", "app", "com.google.Chrome"),
		)
	}
	if pygateRun != "" {
		list = append(list, pygateRun)
	}
	sort.Strings(list)
	return list
}

// Entry is one name in a folder, as readableExcept needs to know it.
type Entry struct {
	Name  string
	IsDir bool
}

// ReadRule is one path the standard level lets code read: a whole folder,
// or a single file.
type ReadRule struct {
	Path  string
	IsDir bool
}

// readableExcept returns rules that together allow reading everything
// under root except the denied paths. Landlock only allows, so each folder
// on the way to a denied path is opened up child by child, leaving the
// denied child out. list reads a folder; resolve follows a symlink to where
// it points ("" when it is dangling), so a link into a denied place is left
// out too. Paths use forward slashes.
func readableExcept(root string, denied []string, list func(dir string) ([]Entry, error), resolve func(p string) string) []ReadRule {
	deny := map[string]bool{}
	ancestors := map[string]bool{}
	for _, d := range denied {
		d = path.Clean(d)
		deny[d] = true
		for p := path.Dir(d); ; p = path.Dir(p) {
			ancestors[p] = true
			if p == root || p == "/" || p == "." {
				break
			}
		}
	}
	inDenied := func(p string) bool {
		for d := range deny {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	var rules []ReadRule
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := list(dir)
		if err != nil {
			return // an unreadable folder stays closed
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name)
			switch {
			case deny[p]:
			case ancestors[p] && e.IsDir:
				walk(p)
			default:
				if target := resolve(p); target == "" || inDenied(target) || ancestorOfDenied(target, deny) {
					continue
				}
				rules = append(rules, ReadRule{Path: p, IsDir: e.IsDir})
			}
		}
	}
	if ancestors[root] || len(denied) > 0 {
		walk(root)
	} else {
		rules = append(rules, ReadRule{Path: root, IsDir: true})
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].Path < rules[j].Path })
	return rules
}

// ancestorOfDenied reports whether p contains a denied path (a link to a
// folder above a secret would open the secret).
func ancestorOfDenied(p string, deny map[string]bool) bool {
	for d := range deny {
		if p == "/" || strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
}

// osList and osResolve are readableExcept's view of the real file system.
func osList(dir string) ([]Entry, error) {
	des, err := os.ReadDir(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		isDir := de.IsDir()
		if de.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, de.Name())); err == nil {
				isDir = st.IsDir()
			}
		}
		out = append(out, Entry{Name: de.Name(), IsDir: isDir})
	}
	return out, nil
}

func osResolve(p string) string {
	r, err := filepath.EvalSymlinks(filepath.FromSlash(p))
	if err != nil {
		return ""
	}
	return filepath.ToSlash(r)
}
