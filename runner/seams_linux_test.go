package runner

import (
	"errors"
	"os"
)

// launcherTestSeams applies, in the test binary's launcher mode, the seams
// a test asked for through the launcher's environment.
func launcherTestSeams() {
	if os.Getenv("PYGATE_TEST_NO_LANDLOCK") == "1" {
		landlockABI = func() (int, error) { return 0, errors.New("landlock disabled by the test") }
	}
}
