// Package proctest finds processes by their command line, for tests that
// check nothing outlives an execution. Python runs in its own PID
// namespace, so the pids it reports are not the host's; tests look for a
// marker in the command line instead.
package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Find returns the pids of live (not zombie) processes whose command line
// contains marker.
func Find(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 0 && fields[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitGone waits up to d for every process with marker to end and returns
// the pids still alive after that.
func WaitGone(marker string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Find(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitFound waits up to d for a process with marker to appear.
func WaitFound(marker string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		if found := Find(marker); len(found) > 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(20 * time.Millisecond)
	}
}
