package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Interpreter is a Python that executions can use.
type Interpreter struct {
	Path    string // absolute
	Version string // "3.12.4"
	Managed bool   // the configured python_version, found or installed by uv
}

// Pythons resolves the interpreter for each execution: the base interpreter
// (resolved once and cached) for code without packages, and a uv-synced
// environment per dependency set for code with packages.
type Pythons struct {
	uvDir   string        // <home>/uv: bin/, cache/, python/, scripts/
	uv      string        // absolute path of uv, or "" when none was found
	version func() string // the python_version setting

	mu    sync.Mutex
	base  *Interpreter
	ver   string // python_version the base was resolved for
	envs  map[string]string
	roots map[string][]string
}

// NewPythons returns a resolver using uv (absolute path, may be "") with its
// cache and managed Pythons under uvDir.
func NewPythons(uvDir, uv string, version func() string) *Pythons {
	return &Pythons{uvDir: uvDir, uv: uv, version: version, envs: map[string]string{}, roots: map[string][]string{}}
}

// FindUV looks for uv: PyGate's own copy under uvDir/bin, then PATH, then the
// places uv's installers use. It returns an absolute path or "".
func FindUV(uvDir string) string {
	candidates := []string{filepath.Join(uvDir, "bin", "uv"+exeSuffix)}
	if p, err := exec.LookPath("uv"); err == nil {
		candidates = append(candidates, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates,
			filepath.Join(home, ".local", "bin", "uv"+exeSuffix),
			filepath.Join(home, ".cargo", "bin", "uv"+exeSuffix))
	}
	candidates = append(candidates, extraUVPlaces...)
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil {
			continue
		}
		if st, err := os.Stat(abs); err == nil && !st.IsDir() {
			return abs
		}
	}
	return ""
}

// uvEnv is the scrubbed environment uv runs with: the user's Python and uv
// variables dropped, PyGate's cache and Python folders set.
func (p *Pythons) uvEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		ku := strings.ToUpper(k)
		if strings.HasPrefix(ku, "PYTHON") || strings.HasPrefix(ku, "UV_") || ku == "VIRTUAL_ENV" || ku == "CONDA_PREFIX" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"UV_CACHE_DIR="+filepath.Join(p.uvDir, "cache"),
		"UV_PYTHON_INSTALL_DIR="+filepath.Join(p.uvDir, "python"),
		"UV_NO_CONFIG=1",
		"UV_NO_PROGRESS=1",
		"UV_PYTHON_INSTALL_BIN=0",
		"UV_PYTHON_INSTALL_REGISTRY=0",
	)
}

// runUV runs uv with args and returns its stdout; on failure the error
// carries uv's stderr.
func (p *Pythons) runUV(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, p.uv, args...)
	cmd.Env = p.uvEnv()
	cmd.Dir = dir
	hideWindow(cmd)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		return "", fmt.Errorf("uv %s: %w: %s", args[0], err, msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// Base returns the interpreter for code without packages. With uv it is the
// managed python_version, installed if missing, else any Python >= 3.10 uv
// can find; without uv it is python3 on PATH.
func (p *Pythons) Base(ctx context.Context) (Interpreter, error) {
	want := p.version()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.base != nil && p.ver == want {
		return *p.base, nil
	}
	in, err := p.resolveBase(ctx, want, true)
	if err != nil {
		return Interpreter{}, err
	}
	p.base, p.ver = &in, want
	return in, nil
}

// Peek resolves the base interpreter without installing anything, for the
// tool description and doctor. It does not cache a fallback.
func (p *Pythons) Peek(ctx context.Context) (Interpreter, error) {
	want := p.version()
	p.mu.Lock()
	if p.base != nil && p.ver == want {
		defer p.mu.Unlock()
		return *p.base, nil
	}
	p.mu.Unlock()
	return p.resolveBase(ctx, want, false)
}

// Pin makes in the base interpreter, so nothing is installed on its behalf
// (the doctor's test run uses what it found).
func (p *Pythons) Pin(in Interpreter) {
	p.mu.Lock()
	p.base, p.ver = &in, p.version()
	p.mu.Unlock()
}

func (p *Pythons) resolveBase(ctx context.Context, want string, install bool) (Interpreter, error) {
	if p.uv == "" {
		return findSystemPython(ctx)
	}
	if path, err := p.runUV(ctx, "", "python", "find", want); err == nil {
		return describePython(ctx, path, true)
	}
	if install {
		ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		_, ierr := p.runUV(ictx, "", "python", "install", want,
			"--install-dir", filepath.Join(p.uvDir, "python"), "--no-bin", "--no-registry")
		cancel()
		if ierr == nil {
			if path, err := p.runUV(ctx, "", "python", "find", want); err == nil {
				return describePython(ctx, path, true)
			}
		}
	}
	path, err := p.runUV(ctx, "", "python", "find", ">=3.10")
	if err != nil {
		return Interpreter{}, &SetupError{
			Problem: fmt.Sprintf("PyGate could not find Python %s, or any Python 3.10 or newer, on this computer.", want),
			Hint:    "Run PyGate's setup (pygate setup) to install Python, then try again.",
			Err:     err,
		}
	}
	return describePython(ctx, path, false)
}

func findSystemPython(ctx context.Context) (Interpreter, error) {
	for _, name := range pythonNames {
		if path, err := exec.LookPath(name); err == nil {
			abs, _ := filepath.Abs(path)
			in, err := describePython(ctx, abs, false)
			if err == nil && versionAtLeast(in.Version, 3, 10) {
				return in, nil
			}
		}
	}
	return Interpreter{}, &SetupError{
		Problem: "PyGate could not find uv or Python 3.10 or newer on this computer.",
		Hint:    "Run PyGate's setup (pygate setup) to install them, then try again.",
		Err:     errors.New("no uv and no python3 on PATH"),
	}
}

func describePython(ctx context.Context, path string, managed bool) (Interpreter, error) {
	cmd := exec.CommandContext(ctx, path, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])")
	hideWindow(cmd)
	out, err := cmd.Output()
	if err != nil {
		return Interpreter{}, fmt.Errorf("ask %s for its version: %w", path, err)
	}
	return Interpreter{Path: path, Version: strings.TrimSpace(string(out)), Managed: managed}, nil
}

func versionAtLeast(v string, major, minor int) bool {
	var a, b int
	if _, err := fmt.Sscanf(v, "%d.%d", &a, &b); err != nil {
		return false
	}
	return a > major || (a == major && b >= minor)
}

// requirement accepts a PyPI requirement: a name, optional extras and
// optional version specifiers. No URLs, paths or options.
var requirement = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*\])?(\s*(===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+(\s*,\s*(===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+)*)?$`)

// MaxPackages limits how many requirements one call may ask for.
const MaxPackages = 50

// CheckPackages returns an error naming the first requirement that is not a
// plain PyPI requirement.
func CheckPackages(pkgs []string) error {
	if len(pkgs) > MaxPackages {
		return fmt.Errorf("%d packages were asked for; PyGate installs at most %d per run", len(pkgs), MaxPackages)
	}
	for _, p := range pkgs {
		if len(p) > 200 || !requirement.MatchString(strings.TrimSpace(p)) {
			return fmt.Errorf("%q is not a PyPI package name with an optional version such as \"pandas\" or \"numpy>=2\"", p)
		}
	}
	return nil
}

// pep723 is the inline script metadata block for pkgs.
func pep723(pkgs []string) string {
	var b strings.Builder
	b.WriteString("# /// script\n# requires-python = \">=3.10\"\n# dependencies = [")
	for i, p := range pkgs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", strings.TrimSpace(p))
	}
	b.WriteString("]\n# ///\n")
	return b.String()
}

// normalise sorts and deduplicates requirements so equal sets share an environment.
func normalise(pkgs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pkgs {
		p = strings.TrimSpace(p)
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// ForPackages returns an interpreter whose environment has pkgs installed,
// syncing it with uv on first use. The environment is keyed by the
// dependency set and lives in uv's cache.
func (p *Pythons) ForPackages(ctx context.Context, pkgs []string) (Interpreter, error) {
	pkgs = normalise(pkgs)
	base, err := p.Base(ctx)
	if err != nil {
		return Interpreter{}, err
	}
	if len(pkgs) == 0 {
		return base, nil
	}
	if p.uv == "" {
		return Interpreter{}, &SetupError{
			Problem: fmt.Sprintf("This code asks for packages (%s), and installing packages needs uv, which is not installed.", strings.Join(pkgs, ", ")),
			Hint:    "Run PyGate's setup (pygate setup) to install uv, then try again; code without packages runs already.",
			Err:     errors.New("uv not found"),
		}
	}
	sum := sha256.Sum256([]byte(base.Path + "\n" + strings.Join(pkgs, "\n")))
	key := hex.EncodeToString(sum[:8])

	p.mu.Lock()
	defer p.mu.Unlock() // one sync at a time: uv locks its cache anyway
	if path, ok := p.envs[key]; ok {
		if _, err := os.Stat(path); err == nil {
			return Interpreter{Path: path, Version: base.Version, Managed: base.Managed}, nil
		}
	}
	dir := filepath.Join(p.uvDir, "scripts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Interpreter{}, fmt.Errorf("create scripts folder: %w", err)
	}
	script := filepath.Join(dir, "env-"+key+".py")
	if err := os.WriteFile(script, []byte(pep723(pkgs)), 0o600); err != nil {
		return Interpreter{}, fmt.Errorf("write dependency script: %w", err)
	}
	if _, err := p.runUV(ctx, dir, "sync", "--script", script, "--no-build", "--python", base.Path); err != nil {
		return Interpreter{}, &SetupError{
			Problem: fmt.Sprintf("PyGate could not install the packages %s.", strings.Join(pkgs, ", ")),
			Hint:    "Check the names and versions (only packages published as wheels on PyPI can be installed), then try again.",
			Err:     err,
		}
	}
	path, err := p.runUV(ctx, dir, "python", "find", "--script", script)
	if err != nil {
		return Interpreter{}, fmt.Errorf("find the packages' environment: %w", err)
	}
	p.envs[key] = path
	return Interpreter{Path: path, Version: base.Version, Managed: base.Managed}, nil
}

// SetupError is a problem that stops code from running before it starts,
// told in plain words: what happened and what to do.
type SetupError struct {
	Problem string
	Hint    string
	Err     error
}

func (e *SetupError) Error() string { return e.Problem + " " + e.Hint }
func (e *SetupError) Unwrap() error { return e.Err }
