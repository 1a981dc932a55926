package app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// Log files rotate at logMaxBytes, keeping logKeep old files.
const (
	logMaxBytes = 5 << 20
	logKeep     = 3
)

// rotatingFile appends to a log file and rotates it when it grows too big.
type rotatingFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	size int64
}

func openRotating(path string) (*rotatingFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	r := &rotatingFile{path: path}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat log: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.size+int64(len(p)) > logMaxBytes {
		r.f.Close()
		for i := logKeep - 1; i >= 1; i-- {
			os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
		}
		os.Rename(r.path, r.path+".1")
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// SetupLogging sends slog records to <home>/logs/pygate.log and to stderr
// (never stdout, which carries protocol bytes). It returns a closer.
func SetupLogging(p Paths, level slog.Level) func() {
	var w io.Writer = os.Stderr
	file, err := openRotating(filepath.Join(p.Logs(), "pygate.log"))
	if err == nil {
		w = io.MultiWriter(os.Stderr, file)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
	if err != nil {
		slog.Warn("logging to stderr only", "err", err)
		return func() {}
	}
	return func() { file.mu.Lock(); file.f.Close(); file.mu.Unlock() }
}
