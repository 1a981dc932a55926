package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// What every sandboxed run may touch besides its own folders.
var (
	deviceFiles     = []string{}
	sharedWriteDirs = []string{}
	systemDirs      = []string{os.Getenv("SystemRoot")}
	systemFiles     = []string{}
)

// startSandboxed starts the launcher (itself inside a kill-on-close job of
// the runner's), which creates the run's job, joins it and starts Python.
// The launcher reports through a status file in the run folder.
func startSandboxed(launcher, id string, s SandboxSpec, stdout, stderr *os.File) (*tree, string, error) {
	s.StatusFile = filepath.Join(filepath.Dir(s.Argv[len(s.Argv)-1]), "sandbox-status.txt")
	os.Remove(s.StatusFile)
	spec, err := json.Marshal(s)
	if err != nil {
		return nil, "", fmt.Errorf("encode sandbox spec: %w", err)
	}
	cmd := exec.Command(launcher, "sandbox-exec", string(spec))
	cmd.Env = []string{"SystemRoot=" + os.Getenv("SystemRoot")}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	t, err := startTree(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("start the sandbox launcher: %w", err)
	}
	t.statusFile = s.StatusFile
	return t, WindowsEnforced(JobFor(s), s.Network), nil
}

// launcherFailure reads the status file after the launcher ended and
// returns why it gave up, if it did.
func launcherFailure(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(string(data), "\n") {
		if msg, ok := strings.CutPrefix(strings.TrimSpace(l), statusError); ok {
			return fmt.Errorf("%w: %s", ErrSandboxUnavailable, strings.TrimPrefix(msg, ErrSandboxUnavailable.Error()+": "))
		}
	}
	return nil
}

// How this OS sandboxes, for the tool description.
const (
	sandboxTech      = "a Windows Job Object and a low-integrity token"
	networkBlockable = false
)
