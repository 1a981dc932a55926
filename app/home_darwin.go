package app

import (
	"os"
	"path/filepath"
)

// defaultHome is ~/Library/Application Support/PyGate.
func defaultHome() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "Library", "Application Support", "PyGate"), nil
}
