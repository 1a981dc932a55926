package runner

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What every sandboxed run may touch besides its own folders.
var (
	deviceFiles     = []string{"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty"}
	sharedWriteDirs = []string{}
	systemDirs      = []string{"/usr/lib", "/usr/share", "/System", "/Library/Frameworks", "/private/etc", "/private/var/db/timezone", "/Applications/Xcode.app/Contents/Developer", "/Library/Developer/CommandLineTools"}
	systemFiles     = []string{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/etc", "/var", "/tmp"}
)

// startSandboxed starts the launcher, which execs Python through
// sandbox-exec, and watches the memory of the whole process group.
func startSandboxed(launcher, id string, s SandboxSpec, stdout, stderr *os.File) (*tree, string, error) {
	s.Processes += countOwnProcesses() // RLIMIT_NPROC counts all of the person's processes
	l, err := prepareLaunch(launcher, s, []string{}, stdout, stderr)
	if err != nil {
		return nil, "", err
	}
	defer l.close()
	cmd := l.cmd
	t, err := startTree(cmd)
	l.started()
	if err != nil {
		return nil, "", fmt.Errorf("start the sandbox launcher: %w", err)
	}
	fail := func(err error) (*tree, string, error) {
		t.kill()
		cmd.Wait()
		return nil, "", err
	}
	if err := goAhead(l.goW); err != nil {
		return fail(fmt.Errorf("start the sandbox launcher: %w", err))
	}
	enforced, err := awaitLauncher(l.stR)
	if err != nil {
		return fail(err)
	}
	stop := make(chan struct{})
	t.onRelease = append(t.onRelease, func() { close(stop) })
	go watchMemory(t, cmd.Process.Pid, uint64(s.MemoryMB)<<20, stop)
	return t, enforced, nil
}

// watchMemory kills the process group when its resident memory passes
// limit, since macOS does not enforce RLIMIT_AS.
func watchMemory(t *tree, pgid int, limit uint64, stop <-chan struct{}) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		out, err := exec.Command("/bin/ps", "-o", "rss=", "-g", strconv.Itoa(pgid)).Output()
		if err != nil {
			continue
		}
		var total uint64
		for _, f := range strings.Fields(string(out)) {
			kb, _ := strconv.ParseUint(f, 10, 64)
			total += kb << 10
		}
		if total > limit {
			t.setKilledFor(fmt.Sprintf("it used more than its memory limit of %s", mib(int(limit>>20))))
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
	}
}

// countOwnProcesses counts the processes of this user.
func countOwnProcesses() int {
	out, err := exec.Command("/bin/ps", "-U", strconv.Itoa(os.Getuid()), "-o", "pid=").Output()
	if err != nil {
		return 0
	}
	return len(strings.Fields(string(out)))
}

// How this OS sandboxes, for the tool description.
const (
	sandboxTech      = "a macOS Seatbelt profile and resource limits"
	networkBlockable = true
)
