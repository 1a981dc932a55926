//go:build unix

package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

func (p Paths) socketPath() string { return filepath.Join(p.Run(), "pygate.sock") }

// listenLocal listens on the home's Unix socket (folder 0700, socket 0600),
// replacing a stale socket file left by a hub that died.
func listenLocal(p Paths) (net.Listener, error) {
	if err := os.MkdirAll(p.Run(), 0o700); err != nil {
		return nil, fmt.Errorf("create run folder: %w", err)
	}
	if err := os.Chmod(p.Run(), 0o700); err != nil {
		return nil, fmt.Errorf("protect run folder: %w", err)
	}
	path := p.socketPath()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket: %w", err)
	}
	old := syscall.Umask(0o177)
	l, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("protect socket: %w", err)
	}
	return &peerCheckedListener{Listener: l}, nil
}

func dialLocal(ctx context.Context, p Paths) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", p.socketPath())
}

// peerCheckedListener accepts only connections from this user.
type peerCheckedListener struct{ net.Listener }

func (l *peerCheckedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if !ok {
			c.Close()
			continue
		}
		uid, err := peerUID(uc)
		if err != nil || uid != os.Getuid() {
			logRefusal(fmt.Errorf("peer uid %d is not this user (%v)", uid, err))
			c.Close()
			continue
		}
		return c, nil
	}
}

// peerUID is the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, uerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, uerr = peerUIDOf(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uerr
}
