package app

import (
	"io"
	"log/slog"
	"os/exec"
	"sync"
)

func exec_(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}

// lockedWriter lets the log be read while handlers write it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// captureLog sends slog to w until the returned function is called.
func captureLog(w io.Writer) func() {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&lockedWriter{w: w}, nil)))
	return func() { slog.SetDefault(old) }
}
