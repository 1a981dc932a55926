//go:build unix

package runner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// launch is `launcher sandbox-exec <spec>` with its two pipes: the
// launcher waits for a byte on fd 3 and reports on fd 4.
type launch struct {
	cmd      *exec.Cmd
	goR, goW *os.File
	stR, stW *os.File
}

func prepareLaunch(launcher string, s SandboxSpec, env []string, stdout, stderr *os.File) (*launch, error) {
	s.Sync = true
	spec, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode sandbox spec: %w", err)
	}
	l := &launch{}
	if l.goR, l.goW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	if l.stR, l.stW, err = os.Pipe(); err != nil {
		l.goR.Close()
		l.goW.Close()
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	l.cmd = exec.Command(launcher, "sandbox-exec", string(spec))
	l.cmd.Env = env
	l.cmd.Stdout, l.cmd.Stderr = stdout, stderr
	l.cmd.ExtraFiles = []*os.File{l.goR, l.stW}
	return l, nil
}

// started closes the launcher's ends of the pipes in this process.
func (l *launch) started() {
	l.goR.Close()
	l.stW.Close()
}

// close closes this process's ends.
func (l *launch) close() {
	l.goW.Close()
	l.stR.Close()
}

// awaitLauncher reads the launcher's status pipe until it closes, which
// happens when the launcher has become Python or has given up. It returns
// what the launcher enforced, or why it gave up.
func awaitLauncher(status *os.File) (string, error) {
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(status)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	var got []string
	select {
	case got = <-lines:
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("%w: the sandbox launcher did not answer within 30 seconds", ErrSandboxUnavailable)
	}
	enforced := ""
	for _, l := range got {
		if msg, ok := strings.CutPrefix(l, statusError); ok {
			return "", fmt.Errorf("%w: %s", ErrSandboxUnavailable, strings.TrimPrefix(msg, ErrSandboxUnavailable.Error()+": "))
		}
		if e, ok := strings.CutPrefix(l, statusEnforced); ok {
			enforced = e
		}
	}
	if enforced == "" {
		return "", fmt.Errorf("%w: the sandbox launcher stopped before it started Python", ErrSandboxUnavailable)
	}
	return enforced, nil
}

// goAhead lets a launcher that waits on its sync pipe carry on.
func goAhead(w *os.File) error {
	_, err := w.Write([]byte{1})
	w.Close()
	return err
}
