package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ErrHubRunning is returned by StartHub when another hub already serves
// this home.
var ErrHubRunning = errors.New("PyGate is already running")

// Hub is the long-lived per-user process: it owns the core and serves each
// local connection as its own MCP session.
type Hub struct {
	Core   *Core
	paths  Paths
	ln     net.Listener
	lock   *os.File
	token  string
	onShow func()

	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// StartHub claims the home (one hub per user and home), writes a fresh
// token, and listens. If another hub holds the home, it returns
// ErrHubRunning.
func StartHub(ctx context.Context, core *Core, onShow func()) (*Hub, error) {
	p := core.Paths
	lock, ok, err := tryLock(filepath.Join(p.Run(), "hub.lock"))
	if err != nil {
		return nil, fmt.Errorf("claim the home: %w", err)
	}
	if !ok {
		return nil, ErrHubRunning
	}
	tok, err := newToken(p)
	if err != nil {
		lock.Close()
		return nil, err
	}
	ln, err := listenLocal(p)
	if err != nil {
		lock.Close()
		return nil, err
	}
	os.WriteFile(filepath.Join(p.Run(), "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	h := &Hub{Core: core, paths: p, ln: ln, lock: lock, token: tok, onShow: onShow, conns: map[net.Conn]struct{}{}}
	return h, nil
}

// AskToShow asks the running hub to bring its window forward, as a second
// start by the person does.
func AskToShow(ctx context.Context, p Paths) error {
	conn, err := Dial(ctx, p, ModeShow)
	if err != nil {
		return err
	}
	return conn.Close()
}

// Serve accepts connections until ctx ends or Close is called.
func (h *Hub) Serve(ctx context.Context) {
	go func() { <-ctx.Done(); h.Close() }()
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			return
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			conn.Close()
			return
		}
		h.conns[conn] = struct{}{}
		h.wg.Add(1)
		h.mu.Unlock()
		go func() {
			defer h.wg.Done()
			defer func() {
				h.mu.Lock()
				delete(h.conns, conn)
				h.mu.Unlock()
				conn.Close()
			}()
			h.serveConn(ctx, conn)
		}()
	}
}

func (h *Hub) serveConn(ctx context.Context, conn net.Conn) {
	mode, r, err := acceptHandshake(conn, h.token)
	if err != nil {
		logRefusal(err)
		return
	}
	switch mode {
	case ModeShow:
		if h.onShow != nil {
			h.onShow()
		}
	case ModeMCP:
		slog.Info("client connected")
		if err := h.Core.Server.Serve(ctx, r, conn); err != nil {
			slog.Warn("connection ended", "err", err)
		}
	}
}

// Close stops listening, ends every connection and execution, and gives
// the home back.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	h.ln.Close()
	h.Core.Server.Stop(10 * time.Second)
	h.wg.Wait()
	os.Remove(filepath.Join(h.paths.Run(), "pid"))
	h.lock.Close()
}
