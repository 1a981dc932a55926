package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/mcp"
	"github.com/pygate/pygate/runner"
)

// Core is PyGate's serving parts, wired together.
type Core struct {
	Paths    Paths
	Settings Loaded
	Journal  *journal.Store
	Broker   *approval.Broker
	Runner   *runner.Runner
	Server   *mcp.Server
}

// NewCore builds the parts from the home's settings. Settings problems are
// logged and PyGate carries on with defaults for what was wrong; a broken
// settings file is left untouched.
func NewCore(ctx context.Context, p Paths, version string) (*Core, error) {
	if err := p.Ensure(); err != nil {
		return nil, fmt.Errorf("prepare the home folder: %w", err)
	}
	loaded := LoadSettings(p.Settings())
	for _, problem := range loaded.Problems {
		slog.Warn(problem)
	}
	s := loaded.Settings
	store, err := journal.Open(p.Journal())
	if err != nil {
		return nil, err
	}
	go prune(store, p.Runs(), time.Duration(s.JournalRetentionDays)*24*time.Hour)

	pythons := runner.NewPythons(p.UV(), runner.FindUV(p.UV()), func() string { return s.PythonVersion })
	py, err := pythons.Peek(ctx)
	if err != nil {
		slog.Warn("no Python found yet", "err", err)
	}
	home, _ := os.UserHomeDir()
	run := runner.New(runner.Config{
		RunsDir:  p.Runs(),
		CacheDir: p.Cache(),
		Pythons:  pythons,
		UserHome: home,
		Secrets:  runner.Secrets(runtime.GOOS, home, p.Run()),
	})
	broker := approval.NewBroker(
		func() approval.Policy { return s.Approval },
		func() time.Duration { return time.Duration(s.ApprovalTimeoutSeconds) * time.Second },
		nil)
	limits := mcp.Limits{
		DefaultTimeout: time.Duration(s.TimeoutSeconds) * time.Second,
		MaxTimeout:     time.Duration(s.MaxTimeoutSeconds) * time.Second,
		AnswerWithin:   time.Duration(s.AnswerWithinSeconds) * time.Second,
		MemoryMB:       s.MemoryMB,
		Level:          s.Sandbox,
		AllowedImports: s.AllowedImports,
	}
	srv := mcp.New(mcp.Options{
		Version:   version,
		Runner:    run,
		Broker:    broker,
		Journal:   store,
		Limits:    func() mcp.Limits { return limits },
		Workspace: p.Workspace,
		Python:    py,
	})
	return &Core{Paths: p, Settings: loaded, Journal: store, Broker: broker, Runner: run, Server: srv}, nil
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
