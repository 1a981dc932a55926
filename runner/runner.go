// Package runner executes approved Python code: it prepares a run folder,
// resolves an interpreter through uv, starts Python as a process tree with a
// minimal environment and empty stdin, captures its output with caps, ends
// the whole tree on timeout or cancellation, and collects the result that
// the embedded bootstrap.py writes.
package runner

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed bootstrap.py
var bootstrapPy []byte

// Level is a sandbox level.
type Level string

// The sandbox levels.
const (
	Strict   Level = "strict"
	Standard Level = "standard"
	Off      Level = "off"
)

// Levels lists every level.
var Levels = []Level{Strict, Standard, Off}

// Status is how an execution ended.
type Status string

// The statuses a run can end with.
const (
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusTimeout   Status = "timeout"
	StatusCancelled Status = "cancelled"
)

// Spec is one execution to run.
type Spec struct {
	ID             string // also the run folder's name
	Code           string
	Packages       []string
	Timeout        time.Duration
	Workspace      string // working directory; created if missing
	Level          Level
	Network        bool // the person allowed internet access for this run
	MemoryMB       int
	FileMB         int      // largest file the code may write; DefaultFileMB when 0
	AllowedImports []string // strict level only
	// OnOutput, when set, sees output as it arrives ("stdout" or
	// "stderr"); it must not keep p and must not block.
	OnOutput func(stream string, p []byte)
}

// PyError is the exception the code ended with.
type PyError struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

// File is a workspace file the run created or changed.
type File struct {
	Path string `json:"path"` // relative to the workspace, with forward slashes
	Size int64  `json:"size"`
}

// Figure is a saved matplotlib figure.
type Figure struct {
	Name string
	PNG  []byte
}

// Result is what an execution produced.
type Result struct {
	Status   Status
	ExitCode int
	Stdout   Stream
	Stderr   Stream
	Value    *string
	Error    *PyError
	Files    []File
	Figures  []Figure
	Duration time.Duration
	Python   Interpreter
	Sandbox  string
	RunDir   string
	Notes    []string // plain sentences about anything unusual (a figure that failed, a file list cut short)
}

// Config is what a Runner needs from the rest of PyGate.
type Config struct {
	RunsDir  string   // run folders go here
	CacheDir string   // a writable cache shared by runs (matplotlib's font cache)
	Pythons  *Pythons // resolves interpreters
	Launcher string   // the pygate executable, re-run as `pygate sandbox-exec`
	UserHome string   // the person's home folder, HOME for Python
	Secrets  []string // never readable at the standard level
}

// Runner runs executions. It is safe for concurrent use.
type Runner struct {
	Config
}

// New returns a runner. Missing Launcher and UserHome are filled in with
// this executable and the current user's home.
func New(c Config) *Runner {
	if c.Launcher == "" {
		c.Launcher, _ = os.Executable()
	}
	if c.UserHome == "" {
		c.UserHome, _ = os.UserHomeDir()
	}
	if c.CacheDir == "" {
		c.CacheDir = filepath.Join(filepath.Dir(c.RunsDir), "cache")
	}
	return &Runner{Config: c}
}

// Run executes spec. onStart, if set, is called once Python has started,
// with what the sandbox enforces. A
// returned error means the code never ran (the interpreter or packages could
// not be prepared); it may be a *SetupError with plain words for people.
func (r *Runner) Run(ctx context.Context, spec Spec, onStart func(py Interpreter, sandbox string)) (*Result, error) {
	res, err := r.run(ctx, spec, onStart)
	return res, explainDisk(err)
}

// explainDisk turns a full disk into plain words; other errors pass.
func explainDisk(err error) error {
	if err == nil || !(errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "not enough space on the disk")) {
		return err
	}
	return &SetupError{
		Problem: "PyGate could not run this code because the disk is full.",
		Hint:    "Free some disk space, then try again; nothing was run.",
		Err:     err,
	}
}

func (r *Runner) run(ctx context.Context, spec Spec, onStart func(py Interpreter, sandbox string)) (*Result, error) {
	if spec.Level == "" {
		spec.Level = Standard
	}
	if err := CheckPackages(spec.Packages); err != nil {
		return nil, &SetupError{Problem: "PyGate did not run this code: " + err.Error() + ".", Hint: "Fix the packages list and try again.", Err: err}
	}
	runDir := filepath.Join(r.RunsDir, spec.ID)
	if err := os.MkdirAll(filepath.Join(runDir, "tmp"), 0o700); err != nil {
		return nil, fmt.Errorf("create run folder: %w", err)
	}
	if err := os.MkdirAll(spec.Workspace, 0o700); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	mainPy := filepath.Join(runDir, "main.py")
	if err := os.WriteFile(mainPy, []byte(pep723(normalise(spec.Packages))+spec.Code), 0o600); err != nil {
		return nil, fmt.Errorf("write main.py: %w", err)
	}
	boot := filepath.Join(runDir, "bootstrap.py")
	if err := os.WriteFile(boot, bootstrapPy, 0o600); err != nil {
		return nil, fmt.Errorf("write bootstrap.py: %w", err)
	}

	py, err := r.Pythons.ForPackages(ctx, spec.Packages)
	if err != nil {
		if ctx.Err() != nil {
			return &Result{Status: StatusCancelled, RunDir: runDir}, nil
		}
		return nil, err
	}

	before, _ := snapshot(spec.Workspace)
	res, err := r.execute(ctx, spec, py, runDir, mainPy, boot, onStart)
	if err != nil {
		return nil, err
	}
	after, complete := snapshot(spec.Workspace)
	res.Files = changedFiles(before, after)
	if !complete {
		res.Notes = append(res.Notes, fmt.Sprintf("The workspace holds more than %d files, so only the first %d were checked for changes.", snapshotLimit, snapshotLimit))
	}
	return res, nil
}

// env is all Python gets: a home, a private temp folder, UTF-8 and a
// non-interactive matplotlib with a cache that persists.
func (r *Runner) env(runDir string) []string {
	tmp := filepath.Join(runDir, "tmp")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + tmp, "TMP=" + tmp, "TEMP=" + tmp,
		"PYTHONIOENCODING=utf-8",
		"MPLBACKEND=Agg",
		"MPLCONFIGDIR=" + filepath.Join(r.CacheDir, "matplotlib"),
		"LANG=C.UTF-8",
	}
	return append(env, homeEnv(r.UserHome)...)
}

func (r *Runner) execute(ctx context.Context, spec Spec, py Interpreter, runDir, mainPy, boot string, onStart func(py Interpreter, sandbox string)) (*Result, error) {
	stdout, err := newCapture(filepath.Join(runDir, "stdout.txt"))
	if err != nil {
		return nil, err
	}
	stderr, err := newCapture(filepath.Join(runDir, "stderr.txt"))
	if err != nil {
		stdout.finish()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("create pipe: %w", err)
	}

	argv := []string{py.Path, "-I", "-X", "utf8", boot, mainPy}
	if spec.Level == Strict {
		argv = append(argv, "--allowed-imports="+strings.Join(spec.AllowedImports, ","))
	}
	start := time.Now()
	t, enforced, err := r.start(spec, py, argv, runDir, outW, errW)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		stdout.finish()
		stderr.finish()
		return nil, err
	}
	cmd := t.cmd
	defer t.release()
	if onStart != nil {
		onStart(py, enforced)
	}

	var readers sync.WaitGroup
	readers.Add(2)
	go drain(outR, stdout, tee(spec.OnOutput, "stdout"), &readers)
	go drain(errR, stderr, tee(spec.OnOutput, "stderr"), &readers)

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()

	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	status := StatusOK
	select {
	case <-exited:
	case <-timer.C:
		status = StatusTimeout
		t.stop(500*time.Millisecond, exited)
		<-exited
	case <-ctx.Done():
		status = StatusCancelled
		t.stop(500*time.Millisecond, exited)
		<-exited
	}
	duration := time.Since(start)
	// Whatever the code left running in the background goes too.
	t.kill()
	if err := t.failure(); err != nil {
		outR.Close()
		errR.Close()
		readers.Wait()
		stdout.finish()
		stderr.finish()
		return nil, refusal(spec.Level, err)
	}
	if !waitReaders(&readers, 2*time.Second) {
		// Something outside the group still holds the pipes: stop reading.
		outR.Close()
		errR.Close()
		readers.Wait()
	}
	outR.Close()
	errR.Close()

	res := &Result{
		Status:   status,
		ExitCode: exitCode(waitErr),
		Stdout:   stdout.finish(),
		Stderr:   stderr.finish(),
		Duration: duration,
		Python:   py,
		Sandbox:  enforced,
		RunDir:   runDir,
	}
	r.collect(res, runDir)
	explainLimits(res, spec)
	if why := t.stoppedBecause(); why != "" {
		res.Status = StatusError
		res.Error = &PyError{Type: "ResourceLimit", Message: "PyGate stopped the code because " + why + "."}
	}
	return res, nil
}

func tee(on func(string, []byte), stream string) func([]byte) {
	if on == nil {
		return nil
	}
	return func(p []byte) { on(stream, p) }
}

func waitReaders(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

type manifest struct {
	Value         *string  `json:"value"`
	Error         *PyError `json:"error"`
	Figures       []string `json:"figures"`
	ExitCode      int      `json:"exit_code"`
	FigureProblem string   `json:"figure_problem"`
}

// collect reads the bootstrap's manifest and figures into res and settles
// the final status.
func (r *Runner) collect(res *Result, runDir string) {
	data, err := os.ReadFile(filepath.Join(runDir, "result.json"))
	var m manifest
	haveManifest := err == nil && json.Unmarshal(data, &m) == nil
	if haveManifest {
		res.Value = m.Value
		res.Error = m.Error
		for _, name := range m.Figures {
			if filepath.Base(name) != name {
				continue
			}
			png, err := os.ReadFile(filepath.Join(runDir, name))
			if err == nil {
				res.Figures = append(res.Figures, Figure{Name: name, PNG: png})
			}
		}
		if m.FigureProblem != "" {
			res.Notes = append(res.Notes, "PyGate "+m.FigureProblem+".")
		}
	}
	if res.Status != StatusOK {
		return
	}
	switch {
	case res.Error != nil || res.ExitCode != 0:
		res.Status = StatusError
		if res.Error == nil {
			res.Error = &PyError{
				Type:    "ProcessExit",
				Message: fmt.Sprintf("Python stopped with exit code %d before it could report a result (for example through os._exit, a crash, or running out of memory).", res.ExitCode),
			}
		}
	case !haveManifest:
		res.Status = StatusError
		res.Error = &PyError{Type: "ProcessExit", Message: "Python ended without reporting a result."}
	}
}

// explainLimits adds a sentence when the code ran into one of the run's
// limits, so the model can tell a limit from a bug.
func explainLimits(res *Result, spec Spec) {
	if res.Error == nil || spec.Level == Off {
		return
	}
	memory := spec.MemoryMB
	if memory <= 0 {
		memory = 2048
	}
	switch {
	case res.Error.Type == "MemoryError":
		res.Notes = append(res.Notes, fmt.Sprintf("Python ran out of memory: each run may use at most %s (the memory_mb setting of PyGate).", mib(memory)))
	case !spec.Network && looksLikeNetworkError(res.Error):
		res.Notes = append(res.Notes, "This run had no network access. If the code needs the internet, call run_python again with network: true; the person will be asked to allow it.")
	case strings.Contains(res.Error.Message, "File too large") || strings.Contains(res.Error.Traceback, "[Errno 27]"):
		fileMB := spec.FileMB
		if fileMB <= 0 {
			fileMB = DefaultFileMB
		}
		res.Notes = append(res.Notes, fmt.Sprintf("A file grew past the size limit: each file a run writes may be at most %s.", mib(fileMB)))
	case strings.Contains(res.Error.Traceback, "Resource temporarily unavailable") && strings.Contains(res.Error.Traceback, "fork"):
		res.Notes = append(res.Notes, fmt.Sprintf("The code started too many processes: a run may have at most %d.", DefaultProcesses))
	}
}

func looksLikeNetworkError(e *PyError) bool {
	text := e.Type + " " + e.Message + " " + e.Traceback
	for _, s := range []string{"Network is unreachable", "name resolution", "Name or service not known", "nodename nor servname",
		"getaddrinfo", "NewConnectionError", "urlopen error", "Connection refused", "gaierror"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return e.Type == "PermissionError" && strings.Contains(e.Traceback, "socket")
}
