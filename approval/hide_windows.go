package approval

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// hide keeps a console window from flashing up for the analyser.
func hide(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW, HideWindow: true}
}
