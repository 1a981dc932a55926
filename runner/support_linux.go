package runner

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

func supportLayers() []Layer {
	var layers []Layer
	if abi, err := landlockABI(); err == nil && abi >= 1 {
		detail := fmt.Sprintf("ABI v%d: file rules", abi)
		if abi >= 4 {
			detail += " and TCP"
		}
		layers = append(layers, Layer{Name: "Landlock", Available: true, Required: true, Detail: detail})
	} else {
		layers = append(layers, Layer{Name: "Landlock", Required: true, Detail: "not available: it needs Linux 5.13 or newer with Landlock enabled"})
	}
	if err := tryNamespaces(); err == nil {
		layers = append(layers, Layer{Name: "User, PID and network namespaces", Available: true, Detail: "network cut off and every process ended with the run"})
	} else {
		layers = append(layers, Layer{Name: "User, PID and network namespaces", Detail: "not allowed here (" + err.Error() + "); seccomp blocks network sockets instead"})
	}
	status, _ := os.ReadFile("/proc/self/status")
	layers = append(layers, Layer{Name: "seccomp", Available: strings.Contains(string(status), "Seccomp:"), Detail: "filters network sockets where no network namespace can be had"})
	if os.Geteuid() == 0 {
		if dir, err := ownPidsCgroup(); err == nil {
			layers = append(layers, Layer{Name: "Process limit", Available: true, Required: true, Detail: "pids cgroup under " + dir + " (PyGate runs as root)"})
		} else {
			layers = append(layers, Layer{Name: "Process limit", Required: true, Detail: "PyGate runs as root, where only a pids cgroup limits processes, and " + err.Error()})
		}
	} else {
		layers = append(layers, Layer{Name: "Process limit", Available: true, Detail: "RLIMIT_NPROC"})
	}
	layers = append(layers, Layer{Name: "Memory and file size limits", Available: true, Detail: "RLIMIT_AS and RLIMIT_FSIZE"})
	return layers
}

// tryNamespaces starts a trivial process in new user, PID and network
// namespaces.
func tryNamespaces() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "version")
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	return cmd.Run()
}

func ready() error {
	if abi, err := landlockABI(); err != nil || abi < 1 {
		return fmt.Errorf("this Linux kernel has no Landlock, which PyGate needs to keep code to its files")
	}
	return nil
}
