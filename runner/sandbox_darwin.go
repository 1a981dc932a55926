package runner

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// sandboxExec is macOS's Seatbelt front end; deprecated but enforced.
const sandboxExec = "/usr/bin/sandbox-exec"

// enterSandbox sets the limits and execs Python through sandbox-exec with
// the generated profile. It returns only on failure.
func enterSandbox(spec SandboxSpec, enforced func(string)) error {
	if err := waitForGo(spec); err != nil {
		return err
	}
	runtime.LockOSThread()
	if _, err := os.Stat(sandboxExec); err != nil {
		return fmt.Errorf("%w: %s, which PyGate uses to sandbox Python on macOS, is missing", ErrSandboxUnavailable, sandboxExec)
	}
	// RLIMIT_AS is unreliable on macOS: the runner's watchdog keeps memory.
	if err := setLimits(spec, false); err != nil {
		return err
	}
	if err := os.Chdir(spec.Dir); err != nil {
		return fmt.Errorf("enter the workspace: %w", err)
	}
	what := "Seatbelt profile (files"
	if !spec.Network {
		what += "+network"
	}
	enforced(what + "), memory watchdog, " + limitsDescription(spec))
	argv := append([]string{sandboxExec, "-p", SBPLProfile(spec), "--"}, spec.Argv...)
	err := syscall.Exec(sandboxExec, argv, spec.Env)
	return fmt.Errorf("start the sandbox: %w", err)
}
