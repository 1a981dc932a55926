//go:build unix

package runner

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

const exeSuffix = ""

var pythonNames = []string{"python3", "python"}

// hideWindow is a no-op outside Windows.
func hideWindow(*exec.Cmd) {}

// tree is a started process and everything it spawns, as one process group.
type tree struct {
	cmd       *exec.Cmd
	onRelease []func()

	mu        sync.Mutex
	killedFor string // why a watchdog ended the tree, if one did
}

func (t *tree) setKilledFor(why string) {
	t.mu.Lock()
	t.killedFor = why
	t.mu.Unlock()
}

// stoppedBecause says why a watchdog ended the tree, or "".
func (t *tree) stoppedBecause() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.killedFor
}

// startTree starts cmd as the leader of a new process group (and, where the
// OS allows, with a signal that kills it when PyGate dies).
func startTree(cmd *exec.Cmd) (*tree, error) {
	cmd.SysProcAttr = treeAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &tree{cmd: cmd}, nil
}

// signal sends sig to the whole process group.
func (t *tree) signal(sig syscall.Signal) error {
	err := syscall.Kill(-t.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// stop ends the group by a ladder: terminate, wait grace, kill.
func (t *tree) stop(grace time.Duration, exited <-chan struct{}) {
	_ = t.signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
	}
	_ = t.signal(syscall.SIGKILL)
}

// kill ends whatever is left of the group at once.
func (t *tree) kill() { _ = t.signal(syscall.SIGKILL) }

// release frees OS resources held for the tree.
func (t *tree) release() {
	for _, f := range t.onRelease {
		f()
	}
}

// homeEnv names the person's home for Python.
func homeEnv(home string) []string { return []string{"HOME=" + home} }

// failure reports a launcher that gave up after starting; on Unix that is
// known before Python starts, so there is nothing to report here.
func (t *tree) failure() error { return nil }
