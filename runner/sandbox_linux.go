package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI reports the kernel's Landlock ABI version. It is a variable
// so tests can make Landlock look unavailable.
var landlockABI = llsyscall.LandlockGetABIVersion

// enterSandbox restricts this process as spec says and execs Python. It
// returns only on failure.
func enterSandbox(spec SandboxSpec, enforced func(string)) error {
	if err := waitForGo(spec); err != nil {
		return err
	}
	// From here on one thread: Landlock and seccomp are applied to it and
	// it execs Python.
	runtime.LockOSThread()

	var layers []string
	abi, err := landlockABI()
	if err != nil || abi < 1 {
		return fmt.Errorf("%w: Landlock, which PyGate uses to keep code to its files, is not available on this Linux kernel (it needs Linux 5.13 or newer with Landlock enabled)", ErrSandboxUnavailable)
	}
	if err := setLimits(spec, true); err != nil {
		return err
	}
	layers = append(layers, limitsDescription(spec))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("%w: set no_new_privs: %v", ErrSandboxUnavailable, err)
	}
	if !spec.Network && spec.Seccomp {
		if err := refuseSockets(); err != nil {
			return fmt.Errorf("%w: seccomp socket filter: %v", ErrSandboxUnavailable, err)
		}
		layers = append(layers, "seccomp blocks network sockets")
	}
	what, err := applyLandlock(spec, abi)
	if err != nil {
		return fmt.Errorf("%w: Landlock: %v", ErrSandboxUnavailable, err)
	}
	layers = append([]string{what}, layers...)
	if !spec.Network && !spec.Seccomp {
		layers = append([]string{layers[0], "network namespace"}, layers[1:]...)
	}
	if err := os.Chdir(spec.Dir); err != nil {
		return fmt.Errorf("enter the workspace: %w", err)
	}
	enforced(strings.Join(layers, ", "))
	err = syscall.Exec(spec.Argv[0], spec.Argv, spec.Env)
	return fmt.Errorf("start Python: %w", err)
}

// applyLandlock restricts file access (and TCP when the network is off) and
// says what it enforced.
func applyLandlock(spec SandboxSpec, abi int) (string, error) {
	configs := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}
	cfg := configs[min(abi, len(configs))-1]
	tcp := !spec.Network && abi >= 4
	if spec.Network {
		cfg.HandledAccessNet = 0
	}
	var rules []landlock.Rule
	rules = append(rules, landlock.RWDirs(spec.WriteDirs...).IgnoreIfMissing())
	if len(spec.WriteFiles) > 0 {
		rules = append(rules, landlock.RWFiles(spec.WriteFiles...).IgnoreIfMissing())
	}
	switch spec.Level {
	case Strict:
		rules = append(rules, landlock.RODirs(spec.ReadDirs...).IgnoreIfMissing())
		if len(spec.ReadFiles) > 0 {
			rules = append(rules, landlock.ROFiles(spec.ReadFiles...).IgnoreIfMissing())
		}
	default:
		denied := append([]string{}, spec.DenyRead...)
		for _, d := range spec.DenyRead {
			if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
				denied = append(denied, r)
			}
		}
		denied = append(denied, otherProcesses()...)
		var dirs, files []string
		for _, r := range readableExcept("/", denied, osList, osResolve) {
			if r.IsDir {
				dirs = append(dirs, r.Path)
			} else {
				files = append(files, r.Path)
			}
		}
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing(), landlock.ROFiles(files...).IgnoreIfMissing())
	}
	// Only this thread is restricted (it is locked and execs Python next),
	// so no all-threads machinery is needed.
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return "", err
	}
	if fd < 0 {
		return "", errors.New("the kernel accepted no Landlock rules")
	}
	defer unix.Close(fd)
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return "", err
	}
	what := fmt.Sprintf("Landlock v%d files", min(abi, len(configs)))
	if tcp {
		what += "+TCP"
	}
	return what, nil
}

// otherProcesses lists /proc's folders of every process but this one, so
// code cannot read other programs' command lines or environments.
func otherProcesses() []string {
	self, _ := os.Readlink("/proc/self")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if name == self || name == "self" || name == "thread-self" || strings.TrimLeft(name, "0123456789") != "" {
			continue
		}
		out = append(out, "/proc/"+name)
	}
	return out
}

// errNoNamespaces marks a start that failed because the kernel refused the
// namespaces; the runner then falls back to seccomp.
var errNoNamespaces = errors.New("namespaces refused")
