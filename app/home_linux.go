package app

import (
	"os"
	"path/filepath"
)

// defaultHome is $XDG_DATA_HOME/pygate, else ~/.local/share/pygate.
func defaultHome() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "pygate"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".local", "share", "pygate"), nil
}
