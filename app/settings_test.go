package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/internal/launchertest"
	"github.com/pygate/pygate/runner"
)

// TestMain lets this test binary serve as the sandbox launcher.
func TestMain(m *testing.M) { launchertest.Main(m) }

func TestDefaultsWhenNoFile(t *testing.T) {
	l := LoadSettings(filepath.Join(t.TempDir(), "settings.json"))
	if l.Broken || len(l.Problems) > 0 {
		t.Fatalf("%+v", l)
	}
	s := l.Settings
	if s.Version != 1 || s.Approval != approval.Ask || s.Sandbox != runner.Standard || s.TimeoutSeconds != 60 ||
		s.MemoryMB != 2048 || s.AnswerWithinSeconds != 45 || s.ApprovalTimeoutSeconds != 600 || s.PythonVersion != "3.12" ||
		s.JournalRetentionDays != 90 || len(s.AllowedImports) != 24 || s.MaxTimeoutSeconds != 600 {
		t.Fatalf("defaults %+v", s)
	}
}

func TestFixtures(t *testing.T) {
	l := LoadSettings("testdata/settings/v1-full.json")
	if l.Broken || len(l.Problems) > 0 {
		t.Fatalf("%+v", l)
	}
	s := l.Settings
	if s.Approval != approval.AllowAll || s.Sandbox != runner.Strict || s.TimeoutSeconds != 30 || s.MaxTimeoutSeconds != 300 ||
		s.MemoryMB != 1024 || s.AnswerWithinSeconds != 20 || s.ApprovalTimeoutSeconds != 120 || s.PythonVersion != "3.13" ||
		strings.Join(s.AllowedImports, ",") != "math,json" || s.JournalRetentionDays != 30 || s.UVDownloadBaseURL != "https://mirror.example/uv/" {
		t.Fatalf("%+v", s)
	}
	old := LoadSettings("testdata/settings/v0-no-version.json")
	if old.Broken || old.Settings.Version != 1 || old.Settings.Approval != approval.DenyAll {
		t.Fatalf("a file without a version is read as version 1: %+v", old)
	}
}

func TestInvalidValuesNameTheKeyAndAllowedValues(t *testing.T) {
	cases := []struct {
		json string
		want string
	}{
		{`{"approval": "sometimes"}`, `"approval" in settings.json is "sometimes"; the allowed values are ask, auto-safe, allow-all, deny-all; PyGate uses "ask"`},
		{`{"sandbox": 3}`, `"sandbox" in settings.json is 3; the allowed values are strict, standard, off`},
		{`{"timeout_seconds": 0}`, `"timeout_seconds" in settings.json is 0; it must be from 1 to 86400; PyGate uses 60`},
		{`{"memory_mb": "lots"}`, `"memory_mb" in settings.json must be a whole number from 128 to 1048576`},
		{`{"python_version": "2.7"}`, `"python_version" in settings.json is "2.7"; it must be a Python 3 version`},
		{`{"allowed_imports": ["os.path"]}`, `"allowed_imports" in settings.json has "os.path"`},
		{`{"uv_download_base_url": "ftp://x"}`, `it must be an http or https web address`},
		{`{"timeout_seconds": 700}`, `"timeout_seconds" (700) is more than "max_timeout_seconds" (600)`},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(c.json), 0o600)
		l := LoadSettings(path)
		if l.Broken || len(l.Problems) != 1 || !strings.Contains(l.Problems[0], c.want) {
			t.Errorf("%s: %+v\nwant %q", c.json, l.Problems, c.want)
		}
	}
	// The rest of a file with one bad value still applies.
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"approval": "bogus", "memory_mb": 512}`), 0o600)
	if l := LoadSettings(path); l.Settings.MemoryMB != 512 || l.Settings.Approval != approval.Ask {
		t.Fatalf("%+v", l.Settings)
	}
}

func TestBrokenFileIsNeverOverwritten(t *testing.T) {
	for _, content := range []string{"{\n  \"approval\": \"ask\",\n  oops\n}", "[1, 2]", "", "null", `{"version": 7}`} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(content), 0o600)
		l := LoadSettings(path)
		if !l.Broken || len(l.Problems) != 1 || l.Settings.Approval != approval.Ask {
			t.Fatalf("%q: %+v", content, l)
		}
		err := ModifySettings(path, func(s *Settings) { s.Approval = approval.AllowAll })
		if !errors.Is(err, ErrBrokenSettings) {
			t.Fatalf("%q: modify err %v", content, err)
		}
		after, _ := os.ReadFile(path)
		if string(after) != content {
			t.Fatalf("%q was changed to %q", content, after)
		}
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{\n  \"approval\": \"ask\",\n  oops\n}"), 0o600)
	if p := LoadSettings(path).Problems[0]; !strings.Contains(p, "line 3, column 3") || !strings.Contains(p, "left the file as it is") {
		t.Fatalf("problem does not say where it breaks: %s", p)
	}
}

func TestModifyKeepsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	data, _ := os.ReadFile("testdata/settings/v1-full.json")
	os.WriteFile(path, data, 0o600)
	if err := ModifySettings(path, func(s *Settings) { s.Approval = approval.DenyAll }); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["approval"] != "deny-all" || m["theme"].(map[string]any)["dark"] != true || m["memory_mb"] != 1024.0 {
		t.Fatalf("%s", b)
	}
	// A new file is created with every key.
	fresh := filepath.Join(t.TempDir(), "settings.json")
	if err := ModifySettings(fresh, func(s *Settings) { s.MemoryMB = 4096 }); err != nil {
		t.Fatal(err)
	}
	if l := LoadSettings(fresh); l.Settings.MemoryMB != 4096 || len(l.Problems) > 0 {
		t.Fatalf("%+v", l)
	}
	// An invalid change is refused and the file kept.
	before, _ := os.ReadFile(fresh)
	if err := ModifySettings(fresh, func(s *Settings) { s.Approval = "maybe" }); err == nil {
		t.Fatal("an invalid value was written")
	}
	if after, _ := os.ReadFile(fresh); string(after) != string(before) {
		t.Fatal("a refused change altered the file")
	}
}

func TestFolderName(t *testing.T) {
	cases := map[string]string{
		"claude-ai":              "claude-ai",
		"Cursor":                 "cursor",
		"Visual Studio Code":     "visual-studio-code",
		"../../etc":              "etc",
		"":                       "unknown-client",
		"...":                    "unknown-client",
		"名前":                     "unknown-client",
		strings.Repeat("a", 100): strings.Repeat("a", 64),
	}
	for in, want := range cases {
		if got := FolderName(in); got != want {
			t.Errorf("FolderName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDoctor(t *testing.T) {
	p := Paths{Home: t.TempDir()}
	os.WriteFile(p.Settings(), []byte("{broken"), 0o600)
	checks := Doctor(t.Context(), p)
	byName := map[string]Check{}
	for _, c := range checks {
		byName[c.Name] = c
	}
	if !byName["Home folder"].OK || byName["Settings"].OK || byName["Settings"].Hint == "" {
		t.Fatalf("%+v", checks)
	}
	if !byName["Python"].OK || !strings.Contains(byName["Python"].Detail, "Python 3.") {
		t.Fatalf("python check %+v", byName["Python"])
	}
	if probe := byName["Sandbox test run"]; !probe.OK || !strings.Contains(probe.Detail, "standard (Landlock") {
		t.Fatalf("sandbox probe %+v", probe)
	}
	if ll := byName["Sandbox: Landlock"]; !ll.OK || !strings.Contains(ll.Detail, "ABI v") {
		t.Fatalf("landlock check %+v", ll)
	}
	var out strings.Builder
	if !PrintChecks(&out, checks) || !strings.Contains(out.String(), "[FAIL] Settings") || !strings.Contains(out.String(), "-> Open") {
		t.Fatalf("%s", out.String())
	}

	// A home that cannot be created is a problem with a hint.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	bad := checkHome(Paths{Home: filepath.Join(file, "home")})
	if bad.OK || !strings.Contains(bad.Hint, "PYGATE_HOME") {
		t.Fatalf("%+v", bad)
	}
}
