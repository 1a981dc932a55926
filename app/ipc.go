package app

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The local IPC between `pygate mcp` (the relay) and the hub: a Unix
// socket in the home's run/ folder, or a named pipe on Windows, both open
// to this user only. A connection starts with one handshake line,
//
//	PYGATE1 <token> <mode>
//
// where the token is the hub's secret from run/token (0600) and mode is
// "mcp" (the rest of the connection is one MCP session) or "show" (bring
// the hub's window to the front). The hub answers "OK" and carries on, or
// closes the connection.

const handshakeMagic = "PYGATE1"

// Modes of a hub connection.
const (
	ModeMCP  = "mcp"
	ModeShow = "show"
)

// ErrRefused is returned by Dial when the hub closed the connection at
// the handshake (a wrong token).
var ErrRefused = errors.New("the PyGate app refused the connection")

// ErrNoHub is returned by Dial when no hub is listening.
var ErrNoHub = errors.New("the PyGate app is not running")

func (p Paths) tokenFile() string { return filepath.Join(p.Run(), "token") }

// newToken writes a fresh random token to run/token, readable by this user
// only, and returns it.
func newToken(p Paths) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	if err := WriteFileAtomic(p.tokenFile(), []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return tok, nil
}

func readToken(p Paths) (string, error) {
	b, err := os.ReadFile(p.tokenFile())
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Dial connects to the hub in mode and completes the handshake.
func Dial(ctx context.Context, p Paths, mode string) (net.Conn, error) {
	tok, err := readToken(p)
	if err != nil {
		return nil, ErrNoHub
	}
	return dialWithToken(ctx, p, mode, tok)
}

func dialWithToken(ctx context.Context, p Paths, mode, tok string) (net.Conn, error) {
	conn, err := dialLocal(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoHub, err)
	}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "%s %s %s\n", handshakeMagic, tok, mode); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	// Read the answer a byte at a time so nothing after it is consumed.
	var answer []byte
	b := make([]byte, 1)
	for len(answer) < 8 {
		if _, err := conn.Read(b); err != nil {
			conn.Close()
			return nil, ErrRefused
		}
		if b[0] == '\n' {
			break
		}
		answer = append(answer, b[0])
	}
	if string(answer) != "OK" {
		conn.Close()
		return nil, ErrRefused
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// acceptHandshake reads and checks a connection's handshake line and
// returns its mode; a wrong token or a malformed line is an error, and the
// caller closes the connection.
func acceptHandshake(conn net.Conn, token string) (string, *bufio.Reader, error) {
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReaderSize(conn, 64*1024)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("read handshake: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || fields[0] != handshakeMagic {
		return "", nil, errors.New("not a PyGate handshake")
	}
	if subtle.ConstantTimeCompare([]byte(fields[1]), []byte(token)) != 1 {
		return "", nil, errors.New("wrong token")
	}
	mode := fields[2]
	if mode != ModeMCP && mode != ModeShow {
		return "", nil, fmt.Errorf("unknown mode %q", mode)
	}
	conn.SetReadDeadline(time.Time{})
	if _, err := conn.Write([]byte("OK\n")); err != nil {
		return "", nil, fmt.Errorf("answer handshake: %w", err)
	}
	return mode, r, nil
}

// logRefusal records a refused connection.
func logRefusal(err error) {
	slog.Warn("refused a local connection", "reason", err.Error())
}
