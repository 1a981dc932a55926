package app

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// GUIPossible is true on Windows: a logged-in user has a desktop.
func GUIPossible() bool { return true }

func hubCommand(exe string) *exec.Cmd {
	cmd := hubCommandFor(exe)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
	return cmd
}
