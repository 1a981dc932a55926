//go:build !linux

package runner

func launcherTestSeams() {}
