// Package app is the composition root of PyGate: where its home folder is,
// its settings, its logs, the doctor's checks, and the wiring of runner,
// approval, journal and MCP server into a serving process. The hub (tray,
// IPC) joins it in a later version.
package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Paths names the folders and files under PyGate's home.
type Paths struct{ Home string }

// ResolveHome returns PYGATE_HOME when set, else the per-OS default.
func ResolveHome() (Paths, error) {
	if h := os.Getenv("PYGATE_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return Paths{}, fmt.Errorf("resolve PYGATE_HOME: %w", err)
		}
		return Paths{Home: abs}, nil
	}
	h, err := defaultHome()
	if err != nil {
		return Paths{}, fmt.Errorf("find the home folder: %w", err)
	}
	return Paths{Home: h}, nil
}

func (p Paths) Settings() string   { return filepath.Join(p.Home, "settings.json") }
func (p Paths) Journal() string    { return filepath.Join(p.Home, "journal") }
func (p Paths) Workspaces() string { return filepath.Join(p.Home, "workspaces") }
func (p Paths) Runs() string       { return filepath.Join(p.Home, "runs") }
func (p Paths) UV() string         { return filepath.Join(p.Home, "uv") }
func (p Paths) Run() string        { return filepath.Join(p.Home, "run") }
func (p Paths) Logs() string       { return filepath.Join(p.Home, "logs") }
func (p Paths) Cache() string      { return filepath.Join(p.Home, "cache") }

// Workspace is the working folder of one MCP client's executions.
func (p Paths) Workspace(client string) string {
	return filepath.Join(p.Workspaces(), FolderName(client))
}

// FolderName turns a client's name into a safe folder name: lowercase
// letters, digits, dot, dash and underscore, at most 64 characters.
func FolderName(client string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(client) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := strings.Trim(b.String(), "-.")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		return "unknown-client"
	}
	return name
}

// Ensure creates the home's folders with private permissions.
func (p Paths) Ensure() error {
	for _, dir := range []string{p.Home, p.Journal(), p.Workspaces(), p.Runs(), p.UV(), p.Run(), p.Logs()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return os.Chmod(p.Run(), 0o700)
}
