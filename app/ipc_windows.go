package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// pipeName is a named pipe per user and home; named pipes live outside
// AppData, so an MSIX client's redirection does not touch them.
func (p Paths) pipeName() string {
	sum := sha256.Sum256([]byte(strings.ToLower(p.Home)))
	return `\\.\pipe\pygate-` + hex.EncodeToString(sum[:8])
}

// listenLocal listens on a named pipe whose DACL lets only this user in.
func listenLocal(p Paths) (net.Listener, error) {
	sid, err := currentUserSID()
	if err != nil {
		return nil, err
	}
	cfg := &winio.PipeConfig{SecurityDescriptor: "D:P(A;;GA;;;" + sid + ")"}
	l, err := winio.ListenPipe(p.pipeName(), cfg)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", p.pipeName(), err)
	}
	return l, nil
}

func dialLocal(ctx context.Context, p Paths) (net.Conn, error) {
	return winio.DialPipeContext(ctx, p.pipeName())
}

func currentUserSID() (string, error) {
	tok := windows.GetCurrentProcessToken()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("read own user: %w", err)
	}
	return u.User.Sid.String(), nil
}
