package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// Capture sizes: the whole stream is kept on disk up to fileLimit; the first
// keepHead and last keepTail bytes are kept in memory for the result.
const (
	fileLimit = 10 << 20
	keepHead  = 256 << 10
	keepTail  = 256 << 10
)

// Stream is what one output stream produced.
type Stream struct {
	Head  []byte // the first bytes
	Tail  []byte // the last bytes, when the stream outgrew Head
	Total int64  // bytes written in all
	Saved string // file holding the stream (whole up to 10 MB)
}

// Excerpt returns the stream as text of at most max bytes: all of it when it
// fits, else its beginning and end with a line saying how much was cut from
// the middle. cut is the number of bytes left out.
func (s Stream) Excerpt(max int) (text string, cut int64) {
	var head, tail []byte
	if s.Total == int64(len(s.Head)+len(s.Tail)) {
		all := append(append([]byte{}, s.Head...), s.Tail...)
		if len(all) <= max {
			return toText(all), 0
		}
		head, tail = all[:max/2], all[len(all)-max/2:]
	} else {
		head = s.Head[:min(max/2, len(s.Head))]
		tail = s.Tail[len(s.Tail)-min(max/2, len(s.Tail)):]
	}
	head, tail = trimEndToRune(head), trimStartToRune(tail)
	cut = s.Total - int64(len(head)) - int64(len(tail))
	return toText(head) + fmt.Sprintf("\n\n[… %s of output cut here; PyGate shows the beginning and the end …]\n\n", HumanBytes(cut)) + toText(tail), cut
}

func toText(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

func trimEndToRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

func trimStartToRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}

// HumanBytes says a size in words a person reads at a glance.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// capture is an io.Writer that keeps a stream's head and tail in memory and
// the whole stream (up to fileLimit) in a file.
type capture struct {
	mu    sync.Mutex
	head  []byte
	ring  []byte // tail ring buffer, allocated when the head is full
	pos   int    // next write position in ring
	full  bool   // ring has wrapped
	total int64
	file  *os.File
	saved int64
	path  string
}

func newCapture(path string) (*capture, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create output file: %w", err)
	}
	return &capture{file: f, path: path, head: make([]byte, 0, 4096)}, nil
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := fileLimit - c.saved; room > 0 {
		chunk := p
		if int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		if w, err := c.file.Write(chunk); err == nil {
			c.saved += int64(w)
		} else {
			c.saved = fileLimit // disk trouble: stop saving, keep capturing
		}
	}
	if room := keepHead - len(c.head); room > 0 {
		take := min(room, len(p))
		c.head = append(c.head, p[:take]...)
		p = p[take:]
	}
	if len(p) > 0 {
		if c.ring == nil {
			c.ring = make([]byte, keepTail)
		}
		if len(p) >= keepTail {
			copy(c.ring, p[len(p)-keepTail:])
			c.pos, c.full = 0, true
		} else {
			k := copy(c.ring[c.pos:], p)
			if k < len(p) {
				copy(c.ring, p[k:])
				c.full = true
			}
			c.pos = (c.pos + len(p)) % keepTail
			if c.pos == 0 {
				c.full = true
			}
		}
	}
	return n, nil
}

// finish closes the file and returns the captured stream.
func (c *capture) finish() Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.file.Close()
	s := Stream{Head: c.head, Total: c.total, Saved: c.path}
	switch {
	case c.ring == nil:
	case c.full:
		s.Tail = append(append([]byte{}, c.ring[c.pos:]...), c.ring[:c.pos]...)
	default:
		s.Tail = append([]byte{}, c.ring[:c.pos]...)
	}
	return s
}

// drain copies r into c until EOF or an error, showing each chunk to tee
// (when set) as it arrives.
func drain(r io.Reader, c *capture, tee func([]byte), done *sync.WaitGroup) {
	defer done.Done()
	buf := make([]byte, 64*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.Write(buf[:n])
			if tee != nil {
				tee(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}
