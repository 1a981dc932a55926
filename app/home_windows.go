package app

import (
	"os"
	"path/filepath"
)

// defaultHome is %USERPROFILE%\.pygate, not AppData: MSIX-packaged clients
// redirect AppData writes of the processes they start, so a hub and the
// `pygate mcp` a client launched would not see the same files there.
func defaultHome() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".pygate"), nil
}
