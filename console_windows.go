package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// PyGate is a GUI-subsystem program on Windows, so double-clicking it shows
// no console. When a command is typed in a terminal, attach to that
// terminal so `pygate doctor` prints there. Streams a client already
// connected (the pipes of `pygate mcp`) are left as they are.
func init() {
	if len(os.Args) < 2 || os.Args[1] == "tray" {
		return
	}
	if h, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE); err == nil && h != 0 && h != windows.InvalidHandle {
		return
	}
	const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS
	if r, _, _ := windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole").Call(attachParentProcess); r == 0 {
		return
	}
	if out, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0); err == nil {
		os.Stdout, os.Stderr = out, out
	}
	if in, err := os.OpenFile("CONIN$", os.O_RDONLY, 0); err == nil {
		os.Stdin = in
	}
}
