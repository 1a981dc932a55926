package app

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// GUIPossible is true on macOS: a logged-in user has a window server.
func GUIPossible() bool { return true }

// hubCommand starts the hub through LaunchServices when PyGate runs from
// its app bundle, so macOS treats it as the app (one instance, its own
// permissions); otherwise as a detached process.
func hubCommand(exe string) *exec.Cmd {
	if i := strings.Index(exe, ".app/Contents/MacOS/"); i >= 0 {
		bundle := exe[:i+len(".app")]
		return exec.Command("/usr/bin/open", "-g", "-a", filepath.Clean(bundle), "--args", "tray", "--background")
	}
	cmd := hubCommandFor(exe)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}
