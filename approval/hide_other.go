//go:build !windows

package approval

import "os/exec"

func hide(*exec.Cmd) {}
