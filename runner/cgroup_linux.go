package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pidsCgroup is a per-execution cgroup that caps how many processes the run
// may have. It is how a process limit is kept where RLIMIT_NPROC does not
// apply (PyGate running as root).
type pidsCgroup struct{ dir string }

// newPidsCgroup creates a cgroup under this process's own pids cgroup (v2
// when the pids controller is delegated there, else v1) limited to max
// processes.
func newPidsCgroup(name string, max int) (*pidsCgroup, error) {
	parent, err := ownPidsCgroup()
	if err != nil {
		return nil, err
	}
	sweepOnce.Do(func() { sweepStale(parent) })
	dir := filepath.Join(parent, "pygate-"+name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create a process-count cgroup: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o600); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("set the process count: %w", err)
	}
	return &pidsCgroup{dir: dir}, nil
}

// add moves pid into the cgroup.
func (c *pidsCgroup) add(pid int) error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o600)
}

// remove deletes the cgroup once its processes are gone, waiting for the
// last of them in the background if need be.
func (c *pidsCgroup) remove() {
	try := func(n int) bool {
		for i := 0; i < n; i++ {
			if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
				return true
			}
			time.Sleep(20 * time.Millisecond)
		}
		return false
	}
	if !try(10) {
		go try(1500)
	}
}

var sweepOnce sync.Once

// sweepStale removes empty cgroups left by a PyGate that was killed before
// it could tidy up.
func sweepStale(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "pygate-*"))
	for _, d := range dirs {
		if procs, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil && len(strings.TrimSpace(string(procs))) == 0 {
			os.Remove(d)
		}
	}
}

// ownPidsCgroup finds the folder of this process's pids cgroup.
func ownPidsCgroup() (string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return "", err
	}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("read own cgroup: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var v1, v2 string
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			if m := mounts["cgroup2"]; m != "" {
				dir := filepath.Join(m, parts[2])
				if ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && strings.Contains(" "+string(ctl)+" ", " pids") {
					v2 = dir
				}
			}
		case strings.Contains(","+parts[1]+",", ",pids,"):
			if m := mounts["pids"]; m != "" {
				v1 = filepath.Join(m, parts[2])
			}
		}
	}
	switch {
	case v2 != "":
		return v2, nil
	case v1 != "":
		return v1, nil
	}
	return "", errors.New("no pids cgroup controller is available to this process")
}

// cgroupMounts maps "cgroup2" and each v1 controller to its mount point.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			if out["cgroup2"] == "" {
				out["cgroup2"] = fields[4]
			}
		case "cgroup":
			for _, opt := range strings.Split(tail[2], ",") {
				if opt == "pids" {
					out["pids"] = fields[4]
				}
			}
		}
	}
	return out, nil
}
