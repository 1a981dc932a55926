//go:build unix

package runner

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statusPipe is fd 4 when the runner passed one.
func statusPipe(spec SandboxSpec) *os.File {
	if !spec.Sync {
		return nil
	}
	return os.NewFile(4, "status")
}

// waitForGo blocks until the runner writes to fd 3 (after it has put the
// launcher where it belongs), and keeps the status pipe from reaching Python.
func waitForGo(spec SandboxSpec) error {
	if !spec.Sync {
		return nil
	}
	goPipe := os.NewFile(3, "go")
	b := make([]byte, 1)
	if _, err := goPipe.Read(b); err != nil {
		return fmt.Errorf("the runner did not start the sandbox: %w", err)
	}
	goPipe.Close()
	syscall.CloseOnExec(4)
	return nil
}

// setLimits sets the run's resource limits on this process, which Python
// inherits. withAS sets RLIMIT_AS too (not on macOS, where it is unreliable
// and a watchdog keeps memory instead).
func setLimits(spec SandboxSpec, withAS bool) error {
	limits := []struct {
		what string
		res  int
		v    uint64
	}{
		{"file size", unix.RLIMIT_FSIZE, uint64(spec.FileMB) << 20},
		{"open files", unix.RLIMIT_NOFILE, uint64(spec.OpenFiles)},
		{"core dump", unix.RLIMIT_CORE, 0},
		{"process count", unix.RLIMIT_NPROC, uint64(spec.Processes)},
	}
	if withAS {
		limits = append(limits, struct {
			what string
			res  int
			v    uint64
		}{"memory", unix.RLIMIT_AS, uint64(spec.MemoryMB) << 20})
	}
	for _, l := range limits {
		if l.v == 0 && l.res != unix.RLIMIT_CORE {
			continue
		}
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: l.v, Max: l.v}); err != nil {
			return fmt.Errorf("%w: set the %s limit: %v", ErrSandboxUnavailable, l.what, err)
		}
	}
	return nil
}
