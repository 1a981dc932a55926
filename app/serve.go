package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/mcp"
	"github.com/pygate/pygate/runner"
)

// Core is PyGate's serving parts, wired together. It owns the settings in
// force; the windows read and change them through it.
type Core struct {
	Paths   Paths
	Journal *journal.Store
	Broker  *approval.Broker
	Runner  *runner.Runner
	Server  *mcp.Server

	mu       sync.Mutex
	settings Loaded
	paused   bool
}

// NewCore builds the parts from the home's settings. Settings problems are
// logged and PyGate carries on with defaults for what was wrong; a broken
// settings file is left untouched.
func NewCore(ctx context.Context, p Paths, version string) (*Core, error) {
	if err := p.Ensure(); err != nil {
		return nil, fmt.Errorf("prepare the home folder: %w", err)
	}
	c := &Core{Paths: p, settings: LoadSettings(p.Settings())}
	for _, problem := range c.settings.Problems {
		slog.Warn(problem)
	}
	s := c.settings.Settings
	store, err := journal.Open(p.Journal())
	if err != nil {
		return nil, err
	}
	go prune(store, p.Runs(), time.Duration(s.JournalRetentionDays)*24*time.Hour)

	pythons := runner.NewPythons(p.UV(), runner.FindUV(p.UV()), func() string { return c.Settings().PythonVersion })
	py, err := pythons.Peek(ctx)
	if err != nil {
		slog.Warn("no Python found yet", "err", err)
	}
	c.Journal = store
	c.Runner = newRunner(p, pythons)
	c.Broker = approval.NewBroker(c.policy,
		func() time.Duration { return time.Duration(c.Settings().ApprovalTimeoutSeconds) * time.Second },
		nil)
	c.Server = mcp.New(mcp.Options{
		Version:   version,
		Runner:    c.Runner,
		Broker:    c.Broker,
		Journal:   store,
		Limits:    c.limits,
		Workspace: p.Workspace,
		Python:    py,
	})
	return c, nil
}

// newRunner is the runner for a home: its run folders and cache, the
// person's home as HOME, and the secrets the standard level keeps closed.
func newRunner(p Paths, pythons *runner.Pythons) *runner.Runner {
	home, _ := os.UserHomeDir()
	return runner.New(runner.Config{
		RunsDir:  p.Runs(),
		CacheDir: p.Cache(),
		Pythons:  pythons,
		UserHome: home,
		Secrets:  runner.Secrets(runtime.GOOS, home, p.Run()),
	})
}

// Settings returns the settings in force.
func (c *Core) Settings() Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings.Settings
}

// SettingsProblems returns what was wrong with settings.json when it was
// last read, in plain sentences.
func (c *Core) SettingsProblems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings.Problems
}

// ChangeSettings writes a change through the settings file and puts it in
// force. A broken settings file is not touched.
func (c *Core) ChangeSettings(fn func(*Settings)) error {
	if err := ModifySettings(c.Paths.Settings(), fn); err != nil {
		return err
	}
	loaded := LoadSettings(c.Paths.Settings())
	c.mu.Lock()
	c.settings = loaded
	c.mu.Unlock()
	c.Server.RefreshTools()
	return nil
}

// SetPaused pauses PyGate (every request is denied, grants are dropped)
// or resumes it.
func (c *Core) SetPaused(paused bool) {
	c.mu.Lock()
	c.paused = paused
	c.mu.Unlock()
	if paused {
		c.Broker.RevokeAll()
	}
}

// Paused reports whether PyGate is paused.
func (c *Core) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

func (c *Core) policy() approval.Policy {
	if c.Paused() {
		return approval.DenyAll
	}
	return c.Settings().Approval
}

func (c *Core) limits() mcp.Limits {
	s := c.Settings()
	return mcp.Limits{
		DefaultTimeout: time.Duration(s.TimeoutSeconds) * time.Second,
		MaxTimeout:     time.Duration(s.MaxTimeoutSeconds) * time.Second,
		AnswerWithin:   time.Duration(s.AnswerWithinSeconds) * time.Second,
		MemoryMB:       s.MemoryMB,
		Level:          s.Sandbox,
		AllowedImports: s.AllowedImports,
	}
}

// ServeHeadless serves MCP over in/out with policy-only approvals until in
// ends or ctx is cancelled, then stops every execution it started.
func (c *Core) ServeHeadless(ctx context.Context, in io.Reader, out io.Writer) error {
	errc := make(chan error, 1)
	go func() { errc <- c.Server.Serve(ctx, in, out) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	c.Server.Stop(10 * time.Second)
	return err
}

// prune removes journal segments and run folders older than retention.
func prune(store *journal.Store, runs string, retention time.Duration) {
	if _, err := store.Prune(retention); err != nil {
		slog.Warn("prune journal", "err", err)
	}
	entries, err := os.ReadDir(runs)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-retention)
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && e.IsDir() && info.ModTime().Before(cutoff) {
			if err := os.RemoveAll(filepath.Join(runs, e.Name())); err != nil {
				slog.Warn("prune run folder", "err", err)
			}
		}
	}
}
