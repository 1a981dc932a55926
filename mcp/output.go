package mcp

import (
	"sync"
	"time"

	"github.com/pygate/pygate/journal"
)

// Live output goes to the journal (and so to the activity window) in
// batches, and only up to a point: the whole streams are in the result and
// the run folder.
const (
	outputEvery = 500 * time.Millisecond
	outputLimit = 64 << 10
)

// outputJournal batches one execution's live output into journal events.
type outputJournal struct {
	s      *Server
	id     string
	client string

	mu      sync.Mutex
	pending map[string][]byte
	total   int
	last    time.Time
	cut     bool
}

func newOutputJournal(s *Server, id, client string) *outputJournal {
	return &outputJournal{s: s, id: id, client: client, pending: map[string][]byte{}, last: time.Now()}
}

// add takes a chunk of stream; it never blocks on the disk for long, since
// it writes at most every outputEvery.
func (o *outputJournal) add(stream string, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cut {
		return
	}
	room := outputLimit - o.total
	if len(p) > room {
		p, o.cut = p[:room], true
	}
	o.pending[stream] = append(o.pending[stream], p...)
	o.total += len(p)
	if o.cut || time.Since(o.last) >= outputEvery {
		o.flushLocked()
	}
}

// flush writes what is pending; the run calls it when it ends.
func (o *outputJournal) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *outputJournal) flushLocked() {
	for _, stream := range []string{"stdout", "stderr"} {
		if b := o.pending[stream]; len(b) > 0 {
			o.s.record(journal.Event{Kind: journal.Output, Execution: o.id, Client: o.client, Stream: stream, Text: string(b)})
			o.pending[stream] = nil
		}
	}
	o.last = time.Now()
}
