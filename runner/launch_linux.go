package runner

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// useNamespaces says whether to try a user, PID and network namespace for
// the launcher. Tests turn it off to exercise the seccomp fallback.
var useNamespaces = true

// launcherEnv is the launcher's own environment (Python gets the spec's).
// Tests add variables their test binary reads in launcher mode.
var launcherEnv = []string{}

// startSandboxed starts the launcher for s with stdout and stderr, waits
// until it has restricted itself and started Python, and returns the tree
// and what it enforced. Where the kernel refuses namespaces it falls back
// to seccomp for the network.
func startSandboxed(launcher, id string, s SandboxSpec, stdout, stderr *os.File) (*tree, string, error) {
	if useNamespaces {
		t, enforced, err := startLauncher(launcher, id, s, true, stdout, stderr)
		if !errors.Is(err, errNoNamespaces) {
			return t, enforced, err
		}
	}
	return startLauncher(launcher, id, s, false, stdout, stderr)
}

func startLauncher(launcher, id string, s SandboxSpec, namespaces bool, stdout, stderr *os.File) (*tree, string, error) {
	s.Seccomp = !namespaces
	root := os.Geteuid() == 0
	if !namespaces && !root {
		// Without a user namespace RLIMIT_NPROC counts every process of
		// the person, so leave room for the ones already running.
		s.Processes += countOwnProcesses()
	}
	l, err := prepareLaunch(launcher, s, launcherEnv, stdout, stderr)
	if err != nil {
		return nil, "", err
	}
	defer l.close()
	cmd := l.cmd
	attr := treeAttr()
	if namespaces {
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		if !s.Network {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		uid, gid := os.Getuid(), os.Getgid()
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	err = cmd.Start()
	l.started()
	if err != nil {
		if namespaces {
			return nil, "", fmt.Errorf("%w: %v", errNoNamespaces, err)
		}
		return nil, "", fmt.Errorf("start the sandbox launcher: %w", err)
	}
	t := &tree{cmd: cmd}
	fail := func(err error) (*tree, string, error) {
		t.kill()
		cmd.Wait()
		t.release()
		return nil, "", err
	}
	if root {
		// RLIMIT_NPROC does not bind root: a cgroup keeps the count.
		cg, err := newPidsCgroup(id, s.Processes)
		if err != nil {
			return fail(fmt.Errorf("%w: PyGate runs as root, where only a cgroup can limit the number of processes, and %v", ErrSandboxUnavailable, err))
		}
		t.onRelease = append(t.onRelease, cg.remove)
		if err := cg.add(cmd.Process.Pid); err != nil {
			return fail(fmt.Errorf("%w: limit the number of processes: %v", ErrSandboxUnavailable, err))
		}
	}
	if err := goAhead(l.goW); err != nil {
		return fail(fmt.Errorf("start the sandbox launcher: %w", err))
	}

	enforced, err := awaitLauncher(l.stR)
	if err != nil {
		return fail(err)
	}
	return t, enforced, nil
}

// countOwnProcesses counts the processes of this user.
func countOwnProcesses() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	uid := uint32(os.Getuid())
	n := 0
	for _, e := range entries {
		if strings.TrimLeft(e.Name(), "0123456789") != "" {
			continue
		}
		if info, err := e.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == uid {
				n++
			}
		}
	}
	return n
}

// What every sandboxed run may touch besides its own folders.
var (
	deviceFiles     = []string{"/dev/null", "/dev/zero", "/dev/full"}
	sharedWriteDirs = []string{"/dev/shm"}
	systemDirs      = []string{"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc", "/sys/devices/system/cpu"}
	systemFiles     = []string{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat"}
)

// How this OS sandboxes, for the tool description.
const (
	sandboxTech      = "Linux Landlock, namespaces and resource limits"
	networkBlockable = true
)
