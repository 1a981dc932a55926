package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The sandbox launcher: PyGate re-executes itself as
// `pygate sandbox-exec <spec>`; the launcher applies the OS sandbox and the
// limits to itself and only then starts Python, so no Python code ever runs
// unrestricted. The spec travels as one JSON argument, without a shell.

// SandboxSpec is what the launcher enforces and what it starts.
type SandboxSpec struct {
	Level      Level    `json:"level"`
	Argv       []string `json:"argv"` // absolute program path first
	Dir        string   `json:"dir"`
	Env        []string `json:"env"`
	ReadDirs   []string `json:"read_dirs,omitempty"`  // strict: the only folders readable
	ReadFiles  []string `json:"read_files,omitempty"` // strict: single files readable
	DenyRead   []string `json:"deny_read,omitempty"`  // standard: everything is readable but these
	WriteDirs  []string `json:"write_dirs"`
	WriteFiles []string `json:"write_files,omitempty"`
	Network    bool     `json:"network"`
	MemoryMB   int      `json:"memory_mb"`
	FileMB     int      `json:"file_mb"`
	OpenFiles  int      `json:"open_files"`
	Processes  int      `json:"processes"`

	// Linux: set by the runner when Python will not have a network
	// namespace of its own, so the launcher must refuse sockets itself.
	Seccomp bool `json:"seccomp,omitempty"`
	// Linux: the launcher waits for a byte on fd 3 before it restricts
	// itself (the runner moves it into a process-count cgroup first) and
	// reports on fd 4.
	Sync bool `json:"sync,omitempty"`
	// Windows: where the launcher writes its status lines.
	StatusFile string `json:"status_file,omitempty"`
}

// Default limits of a sandboxed run beyond memory and time.
const (
	DefaultFileMB    = 1024
	DefaultOpenFiles = 1024
	DefaultProcesses = 256
)

// The launcher reports on its status pipe with lines that start with one
// of these; EOF after an "enforced" line means Python has started.
const (
	statusEnforced = "enforced "
	statusError    = "error "
)

// ErrSandboxUnavailable wraps every reason the requested sandbox could not be
// set up. Runs that need it are refused, never run with less.
var ErrSandboxUnavailable = errors.New("sandbox unavailable")

// SandboxExec is `pygate sandbox-exec <spec>`. It returns only on failure,
// with the exit code to use; on success the process has become Python.
func SandboxExec(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "pygate sandbox-exec is PyGate's internal sandbox launcher; it is not for people to run.")
		return 2
	}
	var spec SandboxSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil || len(spec.Argv) == 0 || !filepath.IsAbs(spec.Argv[0]) {
		fmt.Fprintln(os.Stderr, "pygate sandbox-exec: the spec is not valid.")
		return 2
	}
	status := statusPipe(spec)
	err := enterSandbox(spec, func(enforced string) { report(status, statusEnforced+enforced) })
	// enterSandbox only returns on failure.
	report(status, statusError+err.Error())
	fmt.Fprintln(os.Stderr, "PyGate could not start the sandbox: "+err.Error())
	return 125
}

func report(f *os.File, line string) {
	if f != nil {
		fmt.Fprintln(f, strings.ReplaceAll(line, "\n", " "))
	}
}

func limitsDescription(spec SandboxSpec) string {
	return fmt.Sprintf("%s memory, %d processes, files up to %s", mib(spec.MemoryMB), spec.Processes, mib(spec.FileMB))
}

func mib(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%d GiB", n/1024)
	}
	return fmt.Sprintf("%d MiB", n)
}

// Promise tells the model, in plain sentences, what the sandbox of a level
// does on this OS: what code can read and write, its memory, its network.
func Promise(level Level, memoryMB int, allowedImports []string) string {
	network := "Network access is off unless you set network: true, which asks the person for internet access for that one run."
	if !networkBlockable {
		network = "On Windows PyGate cannot block the network without administrator rights, so the code has network access; set network: true when it needs the internet, so the person knows."
	}
	switch level {
	case Off:
		return "Sandbox: off. The person turned PyGate's sandbox off, so approved code runs with the user's own permissions, network access included, and memory is not limited."
	case Strict:
		return fmt.Sprintf("Sandbox: strict (%s). The code can read only Python's own files, system files and the workspace, and write only in the workspace. Only these modules can be imported: %s. Memory limit: %d MB. %s",
			sandboxTech, strings.Join(allowedImports, ", "), memoryMB, network)
	default:
		return fmt.Sprintf("Sandbox: standard (%s). The code can read the user's files except secrets such as SSH keys, cloud credentials and browser profiles, and write only in the workspace. Memory limit: %d MB. %s",
			sandboxTech, memoryMB, network)
	}
}
