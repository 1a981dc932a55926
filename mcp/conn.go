package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// maxMessage bounds one incoming JSON-RPC line. The largest legitimate
// message is run_python with 1 MiB of code, which JSON escaping can at most
// multiply by six.
const maxMessage = 8 << 20

// session is one connection's MCP session: mcp-go reads the client's
// identity into it and writes notifications to its channel.
type session struct {
	id          string
	notify      chan mcpgo.JSONRPCNotification
	initialized atomic.Bool

	mu    sync.Mutex
	info  mcpgo.Implementation
	caps  mcpgo.ClientCapabilities
	level mcpgo.LoggingLevel
}

func (s *session) SessionID() string                                     { return s.id }
func (s *session) NotificationChannel() chan<- mcpgo.JSONRPCNotification { return s.notify }
func (s *session) Initialize()                                           { s.initialized.Store(true) }
func (s *session) Initialized() bool                                     { return s.initialized.Load() }

func (s *session) GetClientInfo() mcpgo.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

func (s *session) SetClientInfo(info mcpgo.Implementation) {
	s.mu.Lock()
	s.info = info
	s.mu.Unlock()
}

func (s *session) GetClientCapabilities() mcpgo.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

func (s *session) SetClientCapabilities(c mcpgo.ClientCapabilities) {
	s.mu.Lock()
	s.caps = c
	s.mu.Unlock()
}

func (s *session) SetLogLevel(l mcpgo.LoggingLevel) {
	s.mu.Lock()
	s.level = l
	s.mu.Unlock()
}

func (s *session) GetLogLevel() mcpgo.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.level
}

// lineWriter writes whole JSON-RPC lines, one at a time.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	b = append(b, '\n')
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_, err = lw.w.Write(b)
	return err
}

// Serve runs one MCP session over a newline-delimited JSON-RPC connection
// until r ends or ctx is cancelled. Every connection gets its own session, so
// notifications and cancellations never cross between connections. When
// Serve returns, the session's executions have been stopped.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	sess := &session{
		id:     fmt.Sprintf("conn-%d-%d", time.Now().UnixNano(), s.connSeq.Add(1)),
		notify: make(chan mcpgo.JSONRPCNotification, 256),
	}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	ctx, cancel := context.WithCancel(s.mcp.WithContext(ctx, sess))
	var handlers sync.WaitGroup
	defer func() {
		cancel()
		s.execs.endSession(sess.id)
		handlers.Wait()
		s.mcp.UnregisterSession(context.Background(), sess.id)
		s.broker.EndSession(sess.id)
	}()

	out := &lineWriter{w: w}
	go func() {
		for {
			select {
			case n := <-sess.notify:
				if err := out.send(n); err != nil {
					slog.Warn("write notification", "err", err)
				}
			case <-ctx.Done():
				return
			}
		}
	}()

	lines := newLineReader(r, maxMessage)
	for {
		line, tooLong, err := lines.next()
		if tooLong {
			_ = out.send(errorResponse(nil, mcpgo.INVALID_REQUEST,
				fmt.Sprintf("Message too large: PyGate accepts messages of at most %d MiB.", maxMessage>>20)))
		} else if len(bytes.TrimSpace(line)) > 0 {
			s.dispatch(ctx, line, out, &handlers)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read message: %w", err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// dispatch answers one message: a parse error at once, a request on its own
// goroutine, a notification in order, a client's response not at all.
func (s *Server) dispatch(ctx context.Context, line []byte, out *lineWriter, handlers *sync.WaitGroup) {
	var head struct {
		Method *string          `json:"method"`
		ID     *json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		var syn *json.SyntaxError
		msg := "Parse error: the message is not valid JSON."
		if errors.As(err, &syn) {
			msg = fmt.Sprintf("Parse error: the message is not valid JSON (at byte %d).", syn.Offset)
		} else if json.Valid(line) {
			msg = "Invalid request: a JSON-RPC message must be a JSON object."
			_ = out.send(errorResponse(nil, mcpgo.INVALID_REQUEST, msg))
			return
		}
		_ = out.send(errorResponse(nil, mcpgo.PARSE_ERROR, msg))
		return
	}
	if head.Method == nil {
		return // a response to a request of ours; PyGate sends none that need answers
	}
	raw := json.RawMessage(append([]byte{}, line...))
	if head.ID == nil {
		s.mcp.HandleMessage(ctx, raw) // notifications (cancellation among them) in order
		return
	}
	handlers.Add(1)
	go func() {
		defer handlers.Done()
		defer func() {
			if p := recover(); p != nil {
				slog.Error("request handler panicked", "panic", p)
				var id any
				_ = json.Unmarshal(*head.ID, &id)
				_ = out.send(errorResponse(id, mcpgo.INTERNAL_ERROR, "PyGate hit an internal error while answering; see its log."))
			}
		}()
		if resp := s.mcp.HandleMessage(ctx, raw); resp != nil {
			if err := out.send(resp); err != nil {
				slog.Warn("write response", "err", err)
			}
		}
	}()
}

func errorResponse(id any, code int, message string) map[string]any {
	return map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": message},
	}
}

// lineReader splits a stream into lines of at most max bytes; longer lines
// are consumed and reported as too long instead of being buffered whole.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > l.max {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, tooLong, err
	}
}
