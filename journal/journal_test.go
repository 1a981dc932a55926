package journal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestMain lets the test binary act as a second journal writer process.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PYGATE_JOURNAL_WRITER_DIR"); dir != "" {
		os.Exit(writeMany(dir, os.Getenv("PYGATE_JOURNAL_WRITER_NAME")))
	}
	os.Exit(m.Run())
}

const perWriter = 400

// writeMany appends perWriter large events; each carries its writer and index.
func writeMany(dir, name string) int {
	s, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	big := make([]byte, 9000) // larger than a pipe buffer, so interleaving would show
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	for i := 0; i < perWriter; i++ {
		err := s.Append(Event{Kind: Output, Execution: name + "-" + strconv.Itoa(i), Stream: "stdout", Text: string(big)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestAppendAndReadBack(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	in := []Event{
		{Kind: Requested, Execution: "e1", Client: "claude-ai", Code: "print('hé')"},
		{Kind: Decided, Execution: "e1", Allowed: &yes, Scope: "once"},
		{Kind: Finished, Execution: "e1", Status: "ok"},
	}
	for _, e := range in {
		if err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	var got []Event
	if err := s.ReadAll(func(e Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d events, want 3", len(got))
	}
	if got[0].Code != "print('hé')" || got[0].Client != "claude-ai" || got[1].Allowed == nil || !*got[1].Allowed || got[2].Status != "ok" {
		t.Fatalf("events did not round-trip: %+v", got)
	}
	if got[0].Time.IsZero() {
		t.Fatal("append did not stamp the time")
	}
}

func TestTornLastLineIsSkippedAndLaterAppendsSurvive(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(Event{Kind: Requested, Execution: "before"}); err != nil {
		t.Fatal(err)
	}
	// Simulate a writer that crashed half way through a record.
	seg := filepath.Join(dir, segmentName(time.Now()))
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"time":"2026-01-01T00:00:00Z","kind":"fini`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var ids []string
	collect := func(e Event) error { ids = append(ids, e.Execution); return nil }
	if err := s.ReadAll(collect); err != nil {
		t.Fatalf("a torn line must not be fatal: %v", err)
	}
	if len(ids) != 1 || ids[0] != "before" {
		t.Fatalf("got %v, want only the whole record", ids)
	}
	if err := s.Append(Event{Kind: Requested, Execution: "after"}); err != nil {
		t.Fatal(err)
	}
	ids = nil
	if err := s.ReadAll(collect); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[1] != "after" {
		t.Fatalf("got %v, want the record appended after the torn line", ids)
	}
}

func TestTwoProcessesWriteWithoutInterleaving(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, name := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PYGATE_JOURNAL_WRITER_DIR="+dir, "PYGATE_JOURNAL_WRITER_NAME="+name)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	s, _ := Open(dir)
	seen := map[string]bool{}
	if err := s.ReadAll(func(e Event) error {
		if len(e.Text) != 9000 {
			return fmt.Errorf("event %s has %d bytes of text, want 9000", e.Execution, len(e.Text))
		}
		seen[e.Execution] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2*perWriter {
		t.Fatalf("read %d whole events, want %d: records were lost or interleaved", len(seen), 2*perWriter)
	}
	// Every line must be a whole record: no parse failures were hidden.
	data, _ := os.ReadFile(filepath.Join(dir, segmentName(time.Now())))
	lines := 0
	for _, b := range data {
		if b == '\n' {
			lines++
		}
	}
	if lines != 2*perWriter {
		t.Fatalf("segment has %d lines, want %d", lines, 2*perWriter)
	}
}

func TestPruneRemovesOnlyOldSegments(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	for _, day := range []string{"2026-08-01", "2026-09-01", "2026-11-29", "2026-11-30"} {
		if err := os.WriteFile(filepath.Join(dir, day+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "notes.jsonl"), nil, 0o600) // not a segment: left alone
	removed, err := s.Prune(90 * 24 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != "2026-08-01" {
		t.Fatalf("removed %v, want only 2026-08-01", removed)
	}
	left, _ := s.Segments()
	if len(left) != 4 {
		t.Fatalf("left %v", left)
	}
}

func TestBusNumbersEventsAndUnsubscribes(t *testing.T) {
	s, _ := Open(t.TempDir())
	ch, stop := s.Bus().Subscribe(4)
	s.Append(Event{Kind: Requested, Execution: "x"})
	s.Append(Event{Kind: Finished, Execution: "x"})
	a, b := <-ch, <-ch
	if a.Kind != Requested || b.Kind != Finished || b.Seq != a.Seq+1 {
		t.Fatalf("got %+v then %+v", a, b)
	}
	stop()
	if _, open := <-ch; open {
		t.Fatal("channel still open after unsubscribe")
	}
	stop() // twice is harmless
	if err := s.Append(Event{Kind: Started, Execution: "x"}); err != nil {
		t.Fatal(err)
	}
}
