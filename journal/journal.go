// Package journal owns PyGate's activity log: an append-only store of JSON
// Lines segments under the home's journal/ folder, one record per event of an
// execution, and an in-process bus that windows subscribe to.
//
// Every record is written with a single write call under an exclusive file
// lock and synced before Append returns, so several processes (a hub and
// headless servers beside it) can append to the same segment without
// interleaving. A torn last line, left by a crash mid-write, is skipped when
// reading and never breaks later appends.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kind names what happened to an execution.
type Kind string

// The kinds of event, in the order an execution goes through them.
const (
	Requested Kind = "requested"
	Decided   Kind = "decided"
	Started   Kind = "started"
	Output    Kind = "output"
	Finished  Kind = "finished"
)

// Event is one journal record. Fields that do not apply to a kind are left
// empty and omitted from the file.
type Event struct {
	Seq       uint64    `json:"-"` // set by the bus; increases within one process
	Time      time.Time `json:"time"`
	Kind      Kind      `json:"kind"`
	Execution string    `json:"execution_id"`
	Client    string    `json:"client,omitempty"`

	// Requested
	Code     string   `json:"code,omitempty"`
	Packages []string `json:"packages,omitempty"`
	Network  bool     `json:"network,omitempty"`
	Timeout  int      `json:"timeout_seconds,omitempty"`

	// Decided
	Allowed   *bool    `json:"allowed,omitempty"`
	Scope     string   `json:"scope,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	DecidedBy string   `json:"decided_by,omitempty"`
	Edited    bool     `json:"edited,omitempty"`
	Analysis  []string `json:"analysis,omitempty"` // what static analysis flagged, as chips

	// Started and Finished
	Sandbox string `json:"sandbox,omitempty"`
	Python  string `json:"python,omitempty"`

	// Output and Finished
	Stream string          `json:"stream,omitempty"`
	Text   string          `json:"text,omitempty"`
	Status string          `json:"status,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// Store appends events to segment files in one folder and publishes them on
// its bus. It is safe for concurrent use.
type Store struct {
	dir string
	now func() time.Time
	bus *Bus
	mu  sync.Mutex // serialises appends within this process
}

// Open returns a store over dir, creating the folder if needed.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create journal folder: %w", err)
	}
	return &Store{dir: dir, now: time.Now, bus: NewBus()}, nil
}

// Bus returns the store's in-process event bus.
func (s *Store) Bus() *Bus { return s.bus }

// segmentName is the file one day's events go to (UTC).
func segmentName(t time.Time) string {
	return t.UTC().Format("2006-01-02") + ".jsonl"
}

// Append writes e as one line to today's segment, syncs it, and publishes it.
func (s *Store) Append(e Event) error {
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	e.Time = e.Time.UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode journal event: %w", err)
	}
	line = append(line, '\n')

	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, segmentName(e.Time))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open journal segment: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("lock journal segment: %w", err)
	}
	defer unlockFile(f)
	// A writer that crashed mid-line left no newline: start on a fresh line
	// so our record stays whole and only the torn one is skipped.
	if torn, err := endsWithoutNewline(f); err != nil {
		return fmt.Errorf("check journal segment: %w", err)
	} else if torn {
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("write journal segment: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync journal segment: %w", err)
	}
	s.bus.Publish(e)
	return nil
}

func endsWithoutNewline(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}

// Segments lists the segment files, oldest first.
func (s *Store) Segments() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list journal: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// ReadAll calls fn for every readable event, oldest segment first. Lines
// that do not parse (a torn last line) are skipped.
func (s *Store) ReadAll(fn func(Event) error) error {
	names, err := s.Segments()
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := readSegment(filepath.Join(s.dir, name), fn); err != nil {
			return err
		}
	}
	return nil
}

func readSegment(path string, fn func(Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open journal segment: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Event
			if json.Unmarshal(line, &e) == nil && e.Kind != "" {
				if ferr := fn(e); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read journal segment: %w", err)
		}
	}
}

// Prune removes segments whose day ended more than retention ago and
// reports the days removed (as "2006-01-02").
func (s *Store) Prune(retention time.Duration) ([]string, error) {
	names, err := s.Segments()
	if err != nil {
		return nil, err
	}
	cutoff := s.now().UTC().Add(-retention)
	var removed []string
	for _, name := range names {
		day, err := time.Parse("2006-01-02", strings.TrimSuffix(name, ".jsonl"))
		if err != nil {
			continue // not one of ours
		}
		if day.Add(24 * time.Hour).Before(cutoff) {
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return removed, fmt.Errorf("prune journal: %w", err)
			}
			removed = append(removed, day.Format("2006-01-02"))
		}
	}
	return removed, nil
}
