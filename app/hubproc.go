package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"
)

// StartHubProcess starts `pygate tray` detached from this process, so it
// outlives the client that caused it to start.
func StartHubProcess() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find pygate: %w", err)
	}
	cmd := hubCommand(exe)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the PyGate app: %w", err)
	}
	return cmd.Process.Release()
}

// WaitForHub dials the hub until it answers or d has passed.
func WaitForHub(ctx context.Context, p Paths, d time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(d)
	for {
		conn, err := Dial(ctx, p, ModeMCP)
		if err == nil || !errors.Is(err, ErrNoHub) || time.Now().After(deadline) {
			return conn, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// hubCommandFor is `pygate tray --background` (a start no person asked
// for: it shows no window if a hub already runs); per-OS files detach it.
func hubCommandFor(exe string) *exec.Cmd { return exec.Command(exe, "tray", "--background") }
