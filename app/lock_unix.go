//go:build unix

package app

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive lock on path without waiting. It reports
// false when another process holds it. The lock lasts as long as the
// returned file stays open.
func tryLock(path string) (*os.File, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("open lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock: %w", err)
	}
	return f, true, nil
}
