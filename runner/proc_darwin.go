package runner

import "syscall"

var extraUVPlaces = []string{"/opt/homebrew/bin/uv", "/usr/local/bin/uv"}

// treeAttr puts the child in its own process group. macOS has no parent
// death signal; the group is killed when the run ends.
func treeAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
