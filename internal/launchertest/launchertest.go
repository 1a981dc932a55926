// Package launchertest lets a test binary stand in for the pygate binary
// as the sandbox launcher: the runner re-runs os.Executable() as
// `sandbox-exec <spec>`, which in tests is the test binary itself.
package launchertest

import (
	"os"
	"testing"

	"github.com/pygate/pygate/runner"
)

// Main is a TestMain: it becomes the launcher when re-run as one, and runs
// the tests otherwise.
func Main(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		os.Exit(runner.SandboxExec(os.Args[2:]))
	}
	os.Exit(m.Run())
}
