package runner

import "syscall"

var extraUVPlaces = []string{"/usr/local/bin/uv", "/usr/bin/uv"}

// treeAttr puts the child in its own process group and has the kernel kill
// it if the thread that started it (PyGate) dies.
func treeAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
