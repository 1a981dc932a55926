package app

import (
	"os"
	"os/exec"
	"syscall"
)

// GUIPossible reports whether a window can be shown: a display server.
func GUIPossible() bool { return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" }

func hubCommand(exe string) *exec.Cmd {
	cmd := hubCommandFor(exe)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}
