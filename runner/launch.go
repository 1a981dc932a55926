package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// start launches Python with argv: through the sandbox launcher, or
// directly when the level is off. It returns the running tree and what is
// enforced, in a few words.
func (r *Runner) start(spec Spec, py Interpreter, argv []string, runDir string, stdout, stderr *os.File) (*tree, string, error) {
	env := r.env(runDir)
	if spec.Level == Off {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = spec.Workspace
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = stdout, stderr
		t, err := startTree(cmd)
		if err != nil {
			return nil, "", fmt.Errorf("start python: %w", err)
		}
		return t, "off: no sandbox (time limit and process cleanup only)", nil
	}
	if err := os.MkdirAll(r.CacheDir, 0o700); err != nil {
		return nil, "", fmt.Errorf("create cache folder: %w", err)
	}
	s := SandboxSpec{
		Level:      spec.Level,
		Argv:       argv,
		Dir:        spec.Workspace,
		Env:        env,
		WriteDirs:  []string{spec.Workspace, runDir, r.CacheDir},
		WriteFiles: deviceFiles,
		Network:    spec.Network,
		MemoryMB:   spec.MemoryMB,
		FileMB:     spec.FileMB,
		OpenFiles:  DefaultOpenFiles,
		Processes:  DefaultProcesses,
	}
	if s.MemoryMB <= 0 {
		s.MemoryMB = 2048
	}
	if s.FileMB <= 0 {
		s.FileMB = DefaultFileMB
	}
	switch spec.Level {
	case Strict:
		roots, err := r.Pythons.Roots(context.Background(), py)
		if err != nil {
			return nil, "", err
		}
		s.ReadDirs = append(append([]string{}, systemDirs...), roots...)
		s.ReadFiles = systemFiles
	default:
		s.DenyRead = r.Secrets
		s.WriteDirs = append(s.WriteDirs, sharedWriteDirs...)
	}
	t, enforced, err := startSandboxed(r.Launcher, spec.ID, s, stdout, stderr)
	if err != nil {
		return nil, "", refusal(spec.Level, err)
	}
	if spec.Network {
		enforced += ", network allowed for this run"
	}
	return t, fmt.Sprintf("%s (%s)", spec.Level, enforced), nil
}

// Roots returns the folders an interpreter needs to read: its prefix, its
// base installation and where its executable really lives. They are asked
// of the interpreter once and cached.
func (p *Pythons) Roots(ctx context.Context, py Interpreter) ([]string, error) {
	p.mu.Lock()
	if r, ok := p.roots[py.Path]; ok {
		p.mu.Unlock()
		return r, nil
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py.Path, "-I", "-c",
		"import os, sys; print(sys.prefix); print(sys.base_prefix); print(os.path.dirname(os.path.realpath(sys.executable)))")
	hideWindow(cmd)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ask %s where it lives: %w", py.Path, err)
	}
	var roots []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			roots = append(roots, line)
			if real, err := filepath.EvalSymlinks(line); err == nil && real != line {
				roots = append(roots, real)
			}
		}
	}
	p.mu.Lock()
	p.roots[py.Path] = roots
	p.mu.Unlock()
	return roots, nil
}

// refusal turns a sandbox that could not be set up into a plain refusal:
// the run fails closed, it never goes ahead with less.
func refusal(level Level, err error) error {
	if !errors.Is(err, ErrSandboxUnavailable) {
		return err
	}
	reason := strings.TrimPrefix(err.Error(), ErrSandboxUnavailable.Error()+": ")
	return &SetupError{
		Problem: fmt.Sprintf("PyGate did not run this code because it could not set up its %s sandbox on this computer: %s.", level, reason),
		Hint:    "Nothing ran. Run `pygate doctor` to see which protections this computer supports; only if you trust the code, set \"sandbox\" to \"off\" in PyGate's settings.",
		Err:     err,
	}
}
