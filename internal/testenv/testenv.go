// Package testenv holds facts about the test machine that several packages'
// tests need, so each asks the machine the same way.
package testenv

import (
	"os/exec"
	"strings"
	"sync"
)

// MachinePython is the "3.x" version of python3 on this machine. Tests set
// it as python_version, so PyGate finds that Python at once instead of
// trying to download one.
var MachinePython = sync.OnceValue(func() string {
	out, err := exec.Command("python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		return "3.12"
	}
	return strings.TrimSpace(string(out))
})
