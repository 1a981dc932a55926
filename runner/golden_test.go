package runner

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenSpec is a fixed run on a made-up Mac, so the generated profiles
// do not depend on the machine the test runs on.
func goldenSpec(level Level, network bool) SandboxSpec {
	home := "/Users/ada"
	pg := home + "/Library/Application Support/PyGate"
	s := SandboxSpec{
		Level:      level,
		Argv:       []string{pg + "/uv/python/cpython-3.12/bin/python3", "-I", "-X", "utf8", pg + "/runs/r1/bootstrap.py", pg + "/runs/r1/main.py"},
		Dir:        pg + "/workspaces/claude-ai",
		WriteDirs:  []string{pg + "/workspaces/claude-ai", pg + "/runs/r1", pg + "/cache"},
		WriteFiles: []string{"/dev/null", "/dev/zero"},
		Network:    network,
		MemoryMB:   2048,
		FileMB:     DefaultFileMB,
		OpenFiles:  DefaultOpenFiles,
		Processes:  DefaultProcesses,
	}
	switch level {
	case Strict:
		s.ReadDirs = []string{"/usr/lib", "/System", "/private/etc", pg + "/uv/python/cpython-3.12"}
		s.ReadFiles = []string{"/dev/urandom", "/dev/random"}
	default:
		s.DenyRead = Secrets("darwin", home, pg+"/run")
	}
	return s
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./runner -run Golden -update)", err)
	}
	if string(want) != string(got) {
		t.Fatalf("%s differs from what is generated now; review and run `go test ./runner -run Golden -update`:\n%s", path, got)
	}
}

func TestGoldenSBPLProfiles(t *testing.T) {
	for _, c := range []struct {
		name    string
		level   Level
		network bool
	}{
		{"strict", Strict, false},
		{"standard", Standard, false},
		{"standard-network", Standard, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			profile := SBPLProfile(goldenSpec(c.level, c.network))
			golden(t, filepath.Join("testdata", "sbpl", c.name+".sb"), []byte(profile))
			// Whatever the golden file says, these must hold.
			if !strings.HasPrefix(profile, "(version 1)") || !strings.Contains(profile, "(deny default)") {
				t.Fatal("the profile is not deny-by-default")
			}
			if strings.Contains(profile, "(allow network*)") != c.network {
				t.Fatalf("network allowed = %v, want %v", !c.network, c.network)
			}
			if c.level == Standard && !strings.Contains(profile, `(subpath "/Users/ada/.ssh")`) {
				t.Fatal("the standard profile does not close ~/.ssh")
			}
			if c.level == Strict && strings.Contains(profile, "(allow file-read*)\n") {
				t.Fatal("the strict profile reads everything")
			}
		})
	}
}

func TestGoldenWindowsJobSettings(t *testing.T) {
	for _, level := range []Level{Strict, Standard} {
		t.Run(string(level), func(t *testing.T) {
			s := goldenSpec(level, false)
			s.WriteDirs = []string{`C:\Users\ada\.pygate\workspaces\claude-ai`, `C:\Users\ada\.pygate\runs\r1`, `C:\Users\ada\.pygate\cache`}
			job := JobFor(s)
			got, _ := json.MarshalIndent(job, "", "  ")
			golden(t, filepath.Join("testdata", "job", string(level)+".json"), append(got, '\n'))
			if !job.KillOnJobClose || job.BreakawayAllowed || job.JobMemoryBytes != 2048<<20 || job.ActiveProcesses != DefaultProcesses || !job.LowIntegrity {
				t.Fatalf("%+v", job)
			}
			if e := WindowsEnforced(job, false); !strings.Contains(e, "network NOT blocked") {
				t.Fatalf("the report hides that the network is open: %s", e)
			}
		})
	}
}

// fakeFS is a folder tree for readableExcept.
type fakeFS map[string][]Entry

func (f fakeFS) list(dir string) ([]Entry, error) {
	if e, ok := f[dir]; ok {
		return e, nil
	}
	return nil, os.ErrNotExist
}

func TestReadableExcept(t *testing.T) {
	fs := fakeFS{
		"/":                 {{"usr", true}, {"home", true}, {"etc", true}, {"vmlinuz", false}},
		"/home":             {{"ada", true}, {"bob", true}},
		"/home/ada":         {{".ssh", true}, {".config", true}, {"notes.txt", false}, {"link-to-ssh", true}, {"dangling", false}},
		"/home/ada/.config": {{"google-chrome", true}, {"git", true}},
	}
	links := map[string]string{"/home/ada/link-to-ssh": "/home/ada/.ssh/keys", "/home/ada/dangling": ""}
	resolve := func(p string) string {
		if target, ok := links[p]; ok {
			return target
		}
		return p
	}
	got := readableExcept("/", []string{"/home/ada/.ssh", "/home/ada/.config/google-chrome"}, fs.list, resolve)
	want := []ReadRule{
		{"/etc", true}, {"/home/ada/.config/git", true}, {"/home/ada/notes.txt", false},
		{"/home/bob", true}, {"/usr", true}, {"/vmlinuz", false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if all := readableExcept("/", nil, fs.list, resolve); !reflect.DeepEqual(all, []ReadRule{{"/", true}}) {
		t.Fatalf("nothing denied: %v", all)
	}
}

func TestSecretsPerOS(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "/h/.config/google-chrome",
		"darwin":  "/h/Library/Keychains",
		"windows": filepath.Join("/h", "AppData", "Roaming", "Mozilla"),
	} {
		list := Secrets(goos, "/h", "/pg/run")
		joined := strings.Join(list, "\n")
		for _, must := range []string{"/h/.ssh", "/h/.aws", "/h/.gnupg", "/pg/run", want} {
			if !strings.Contains(joined, must) {
				t.Errorf("%s secrets lack %s", goos, must)
			}
		}
	}
}
