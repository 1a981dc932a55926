package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pygate/pygate/internal/proctest"
	"github.com/pygate/pygate/internal/testenv"
)

// TestMain lets the test binary serve as the sandbox launcher, the way the
// pygate binary re-runs itself as `pygate sandbox-exec`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		launcherTestSeams()
		os.Exit(SandboxExec(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// testLauncher is this test binary, which TestMain turns into the launcher.
func testLauncher(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func newTestRunner(t *testing.T) (*Runner, string) {
	t.Helper()
	home := t.TempDir()
	uvDir := filepath.Join(home, "uv")
	uv := FindUV(uvDir)
	if uv == "" {
		t.Fatal("uv is not installed: run `make test`, which installs it")
	}
	return New(Config{
		RunsDir:  filepath.Join(home, "runs"),
		Pythons:  NewPythons(uvDir, uv, testenv.MachinePython),
		Launcher: testLauncher(t),
		UserHome: filepath.Join(home, "user"),
		Secrets:  Secrets(runtime.GOOS, filepath.Join(home, "user"), filepath.Join(home, "run")),
	}), filepath.Join(home, "workspaces", "test")
}

func run(t *testing.T, r *Runner, ws, code string, timeout time.Duration) *Result {
	t.Helper()
	res, err := r.Run(context.Background(), Spec{ID: fmt.Sprintf("t-%d", time.Now().UnixNano()), Code: code, Timeout: timeout, Workspace: ws}, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func text(s Stream) string { t, _ := s.Excerpt(1 << 20); return t }

func TestRunCases(t *testing.T) {
	r, ws := newTestRunner(t)
	cases := []struct {
		name   string
		code   string
		status Status
		check  func(t *testing.T, res *Result)
	}{
		{"stdout and value", "print('hello')\n6*7", StatusOK, func(t *testing.T, res *Result) {
			if text(res.Stdout) != "hello\n" || res.Value == nil || *res.Value != "42" {
				t.Fatalf("stdout %q value %v", text(res.Stdout), res.Value)
			}
		}},
		{"non-ASCII round trip", "s = 'héllo wörld — 日本語 🐍'\nprint(s)\ns", StatusOK, func(t *testing.T, res *Result) {
			if text(res.Stdout) != "héllo wörld — 日本語 🐍\n" || *res.Value != "'héllo wörld — 日本語 🐍'" {
				t.Fatalf("stdout %q value %q", text(res.Stdout), *res.Value)
			}
		}},
		{"None value is not shown", "x = 1\nNone", StatusOK, func(t *testing.T, res *Result) {
			if res.Value != nil {
				t.Fatalf("value %q", *res.Value)
			}
		}},
		{"stderr apart from stdout", "import sys\nprint('out')\nprint('err', file=sys.stderr)", StatusOK, func(t *testing.T, res *Result) {
			if text(res.Stdout) != "out\n" || text(res.Stderr) != "err\n" {
				t.Fatalf("stdout %q stderr %q", text(res.Stdout), text(res.Stderr))
			}
		}},
		{"exception with trimmed traceback", "def f():\n    return 1/0\n\nprint('before')\nf()", StatusError, func(t *testing.T, res *Result) {
			e := res.Error
			if e == nil || e.Type != "ZeroDivisionError" || !strings.Contains(e.Traceback, `File "main.py", line 5`) || !strings.Contains(e.Traceback, "return 1/0") {
				t.Fatalf("error %+v", e)
			}
			if strings.Contains(e.Traceback, "bootstrap") {
				t.Fatalf("traceback shows PyGate's own frames:\n%s", e.Traceback)
			}
			if text(res.Stdout) != "before\n" {
				t.Fatalf("stdout %q", text(res.Stdout))
			}
		}},
		{"syntax error", "x = (1,\nprint(x)", StatusError, func(t *testing.T, res *Result) {
			if res.Error == nil || res.Error.Type != "SyntaxError" || !strings.Contains(res.Error.Traceback, "main.py") {
				t.Fatalf("error %+v", res.Error)
			}
		}},
		{"input gets EOF at once", "try:\n    input('name? ')\nexcept EOFError:\n    print('eof')", StatusOK, func(t *testing.T, res *Result) {
			if !strings.Contains(text(res.Stdout), "eof") {
				t.Fatalf("stdout %q", text(res.Stdout))
			}
		}},
		{"sys.exit(0) is ok", "import sys\nprint('bye')\nsys.exit(0)", StatusOK, nil},
		{"sys.exit(3) is an error", "import sys\nsys.exit(3)", StatusError, func(t *testing.T, res *Result) {
			if res.ExitCode != 3 || res.Error.Type != "SystemExit" {
				t.Fatalf("exit %d error %+v", res.ExitCode, res.Error)
			}
		}},
		{"os._exit without a result", "import os\nprint('x', flush=True)\nos._exit(4)", StatusError, func(t *testing.T, res *Result) {
			if res.ExitCode != 4 || res.Error == nil || !strings.Contains(res.Error.Message, "exit code 4") {
				t.Fatalf("exit %d error %+v", res.ExitCode, res.Error)
			}
		}},
		{"environment is minimal", "import os\nsorted(k for k in os.environ if k.startswith(('PYGATE', 'UV_', 'GO')))", StatusOK, func(t *testing.T, res *Result) {
			if *res.Value != "[]" {
				t.Fatalf("Python saw %s", *res.Value)
			}
		}},
		{"workspace modules import", "open('helper_mod.py','w').write('X = 5\\n')\nimport helper_mod\nhelper_mod.X", StatusOK, func(t *testing.T, res *Result) {
			if *res.Value != "5" {
				t.Fatalf("value %v", *res.Value)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, r, ws, c.code, 30*time.Second)
			if res.Status != c.status {
				t.Fatalf("status %s, want %s; error %+v; stderr %q", res.Status, c.status, res.Error, text(res.Stderr))
			}
			if c.check != nil {
				c.check(t, res)
			}
		})
	}
}

func TestTimeoutKillsAndKeepsEarlierOutput(t *testing.T) {
	r, ws := newTestRunner(t)
	start := time.Now()
	res := run(t, r, ws, "print('started')\nwhile True:\n    pass", 2*time.Second)
	if res.Status != StatusTimeout {
		t.Fatalf("status %s", res.Status)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %s to stop a 2 s timeout", time.Since(start))
	}
	if text(res.Stdout) != "started\n" {
		t.Fatalf("output printed before the timeout was lost: %q", text(res.Stdout))
	}
}

func TestCancelKills(t *testing.T) {
	r, ws := newTestRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; time.Sleep(300 * time.Millisecond); cancel() }()
	res, err := r.Run(ctx, Spec{ID: "cancel", Code: "import time\ntime.sleep(60)", Timeout: time.Minute, Workspace: ws},
		func(Interpreter, string) { close(started) })
	if err != nil || res.Status != StatusCancelled {
		t.Fatalf("status %v err %v", res, err)
	}
	if res.Duration > 10*time.Second {
		t.Fatalf("cancel took %s", res.Duration)
	}
}

func TestBackgroundProcessesDieWithTheRun(t *testing.T) {
	r, ws := newTestRunner(t)
	res := run(t, r, ws, "import subprocess\np = subprocess.Popen(['sleep', '3001'])\n'started'", 30*time.Second)
	if res.Status != StatusOK || res.Value == nil {
		t.Fatalf("status %s error %+v", res.Status, res.Error)
	}
	if left := proctest.WaitGone("sleep\x003001", 3*time.Second); len(left) > 0 {
		t.Fatalf("sleep %v outlived its execution", left)
	}
}

func TestOutputFloodIsCappedAndCounted(t *testing.T) {
	r, ws := newTestRunner(t)
	res := run(t, r, ws, "for i in range(3_000_000):\n    print(i)", 120*time.Second)
	if res.Status != StatusOK {
		t.Fatalf("status %s", res.Status)
	}
	want := int64(0)
	for i := 0; i < 3_000_000; i++ {
		want += int64(len(strconv.Itoa(i)) + 1)
	}
	if res.Stdout.Total != want {
		t.Fatalf("counted %d bytes, want %d", res.Stdout.Total, want)
	}
	txt, cut := res.Stdout.Excerpt(200_000)
	if len(txt) > 200_200 || cut < want-200_000 || !strings.HasPrefix(txt, "0\n1\n2\n") || !strings.HasSuffix(txt, "2999999\n") || !strings.Contains(txt, "cut here") {
		t.Fatalf("excerpt of %d bytes, cut %d", len(txt), cut)
	}
	saved, _ := os.Stat(res.Stdout.Saved)
	if saved.Size() != fileLimit {
		t.Fatalf("saved %d bytes, want the first %d", saved.Size(), fileLimit)
	}
}

func TestFilesCreatedOrChanged(t *testing.T) {
	r, ws := newTestRunner(t)
	run(t, r, ws, "open('keep.txt','w').write('a')\nopen('change.txt','w').write('a')", 30*time.Second)
	res := run(t, r, ws, "open('change.txt','w').write('bbb')\nimport os\nos.makedirs('sub', exist_ok=True)\nopen('sub/new.csv','w').write('1,2')\nopen('keep.txt').read()", 30*time.Second)
	if *res.Value != "'a'" {
		t.Fatalf("a file written in one run was not read in the next: %v", *res.Value)
	}
	got := fmt.Sprint(res.Files)
	if got != "[{change.txt 3} {sub/new.csv 3}]" {
		t.Fatalf("files %s", got)
	}
}

func TestPackagesAndFigures(t *testing.T) {
	r, ws := newTestRunner(t)
	code := "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.title('squares')\nimport matplotlib\nmatplotlib.__version__"
	res, err := r.Run(context.Background(), Spec{ID: "pkgs", Code: code, Packages: []string{"matplotlib"}, Timeout: 120 * time.Second, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOK {
		t.Fatalf("status %s error %+v stderr %s", res.Status, res.Error, text(res.Stderr))
	}
	if len(res.Figures) != 1 || string(res.Figures[0].PNG[1:4]) != "PNG" {
		t.Fatalf("figures %d", len(res.Figures))
	}
	// The same dependency set reuses its environment.
	again, err := r.Run(context.Background(), Spec{ID: "pkgs2", Code: "import matplotlib\nmatplotlib.__version__", Packages: []string{"matplotlib"}, Timeout: 60 * time.Second, Workspace: ws}, nil)
	if err != nil || again.Status != StatusOK || *again.Value != *res.Value || again.Python.Path != res.Python.Path {
		t.Fatalf("second run %+v %v", again, err)
	}
}

func TestPackagesRefusedClearly(t *testing.T) {
	r, ws := newTestRunner(t)
	for _, bad := range []string{"--index-url=http://x", "git+https://x/y", "../local", "a b", "numpy; os_name=='nt'"} {
		_, err := r.Run(context.Background(), Spec{ID: "bad", Code: "1", Packages: []string{bad}, Workspace: ws}, nil)
		if _, ok := err.(*SetupError); !ok || !strings.Contains(err.Error(), "PyPI package name") {
			t.Fatalf("%q: err %v", bad, err)
		}
	}
	_, err := r.Run(context.Background(), Spec{ID: "nope", Code: "1", Packages: []string{"this-package-does-not-exist-pygate-test"}, Timeout: time.Minute, Workspace: ws}, nil)
	if se, ok := err.(*SetupError); !ok || !strings.Contains(se.Problem, "could not install") {
		t.Fatalf("err %v", err)
	}
}

func TestNoUVRunsPlainCodeAndRefusesPackages(t *testing.T) {
	home := t.TempDir()
	r := New(Config{RunsDir: filepath.Join(home, "runs"), Pythons: NewPythons(filepath.Join(home, "uv"), "", testenv.MachinePython), Launcher: testLauncher(t)})
	ws := filepath.Join(home, "ws")
	res := run(t, r, ws, "1+1", 30*time.Second)
	if res.Status != StatusOK || *res.Value != "2" || res.Python.Managed {
		t.Fatalf("%+v", res)
	}
	_, err := r.Run(context.Background(), Spec{ID: "p", Code: "1", Packages: []string{"six"}, Workspace: ws}, nil)
	if err == nil || !strings.Contains(err.Error(), "needs uv") && !strings.Contains(err.Error(), "setup") {
		t.Fatalf("err %v", err)
	}
}

func TestExcerpt(t *testing.T) {
	small := Stream{Head: []byte("abc"), Total: 3}
	if txt, cut := small.Excerpt(10); txt != "abc" || cut != 0 {
		t.Fatalf("%q %d", txt, cut)
	}
	// A multi-byte character straddling the cut is not split.
	s := Stream{Head: []byte(strings.Repeat("é", 100)), Total: 200}
	txt, cut := s.Excerpt(51)
	if !strings.HasPrefix(txt, strings.Repeat("é", 12)+"\n") || strings.ContainsRune(txt, '\uFFFD') || cut != 200-48 {
		t.Fatalf("%q %d", txt, cut)
	}
	gap := Stream{Head: []byte("HEAD"), Tail: []byte("TAIL"), Total: 1000}
	txt, cut = gap.Excerpt(100)
	if !strings.HasPrefix(txt, "HEAD") || !strings.HasSuffix(txt, "TAIL") || cut != 992 || !strings.Contains(txt, "992 bytes of output cut") {
		t.Fatalf("%q %d", txt, cut)
	}
}

func TestCaptureRingKeepsTheEnd(t *testing.T) {
	c, err := newCapture(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for i := 0; i < 200000; i++ {
		line := []byte(strconv.Itoa(i) + "\n")
		all = append(all, line...)
		c.Write(line)
	}
	s := c.finish()
	if s.Total != int64(len(all)) || string(s.Head) != string(all[:keepHead]) || string(s.Tail) != string(all[len(all)-keepTail:]) {
		t.Fatalf("total %d head %d tail %d", s.Total, len(s.Head), len(s.Tail))
	}
}

func TestFullDiskIsSaidPlainly(t *testing.T) {
	err := explainDisk(fmt.Errorf("write main.py: %w", &os.PathError{Op: "write", Path: "main.py", Err: syscall.ENOSPC}))
	se, ok := err.(*SetupError)
	if !ok || !strings.Contains(se.Problem, "disk is full") || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("%v", err)
	}
	other := errors.New("something else")
	if explainDisk(other) != other {
		t.Fatal("other errors must pass unchanged")
	}
}
