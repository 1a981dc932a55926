//go:build !darwin

package ui

// accessoryMode is needed only on macOS.
func accessoryMode() {}
