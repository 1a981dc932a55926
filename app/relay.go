package app

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
)

// ErrHubGone is returned by Relay when the hub went away while the client
// was still connected.
var ErrHubGone = errors.New("the PyGate app stopped")

// Relay copies bytes between the client (in, out) and the hub connection,
// nothing more. It returns nil when the client closes its end, and
// ErrHubGone when the hub does first.
func Relay(ctx context.Context, conn net.Conn, in io.Reader, out io.Writer) error {
	defer conn.Close()
	clientDone := make(chan struct{})
	hubDone := make(chan struct{})
	var once sync.Once
	go func() {
		io.Copy(conn, in)
		// The client is finished: let the hub see EOF, then wait for its
		// last answers.
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		once.Do(func() { close(clientDone) })
	}()
	go func() {
		io.Copy(out, conn)
		close(hubDone)
	}()
	select {
	case <-hubDone:
		select {
		case <-clientDone:
			return nil
		default:
			return ErrHubGone
		}
	case <-ctx.Done():
		return nil
	}
}
