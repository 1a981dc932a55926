package runner

import (
	"fmt"
	"os"
)

func supportLayers() []Layer {
	_, err := os.Stat(sandboxExec)
	return []Layer{
		{Name: "Seatbelt (sandbox-exec)", Available: err == nil, Required: true, Detail: "deny-by-default profile for files and network"},
		{Name: "Memory watchdog", Available: true, Detail: "PyGate watches each run's memory (macOS does not enforce RLIMIT_AS)"},
		{Name: "Process and file size limits", Available: true, Detail: "RLIMIT_NPROC and RLIMIT_FSIZE"},
	}
}

func ready() error {
	if _, err := os.Stat(sandboxExec); err != nil {
		return fmt.Errorf("%s is missing", sandboxExec)
	}
	return nil
}
