package runner

import "strconv"

// JobSettings is what the Windows launcher asks of its Job Object and of
// the token Python runs with. It is produced by a pure function so it can
// be checked against golden files on any OS.
type JobSettings struct {
	KillOnJobClose   bool     `json:"kill_on_job_close"`  // closing the job's last handle ends every process in it
	DieOnUnhandled   bool     `json:"die_on_unhandled"`   // no crash dialogs waiting for a click
	BreakawayAllowed bool     `json:"breakaway_allowed"`  // never: no child may leave the job
	JobMemoryBytes   uint64   `json:"job_memory_bytes"`   // committed memory of all processes together
	ActiveProcesses  uint32   `json:"active_processes"`   // a fork bomb stops here
	LowIntegrity     bool     `json:"low_integrity"`      // Python's token: writes only where labelled low
	LowIntegrityDirs []string `json:"low_integrity_dirs"` // labelled low so Python can write there
	NetworkBlocked   bool     `json:"network_blocked"`    // Windows cannot block it without administrator rights
	UIRestrictions   bool     `json:"ui_restrictions"`    // no clipboard, desktop or global atoms
	CreateNoWindow   bool     `json:"create_no_window"`
}

// JobFor returns the job settings for a sandboxed run.
func JobFor(s SandboxSpec) JobSettings {
	return JobSettings{
		KillOnJobClose:   true,
		DieOnUnhandled:   true,
		BreakawayAllowed: false,
		JobMemoryBytes:   uint64(s.MemoryMB) << 20,
		ActiveProcesses:  uint32(s.Processes),
		LowIntegrity:     true,
		LowIntegrityDirs: append([]string{}, s.WriteDirs...),
		NetworkBlocked:   false,
		UIRestrictions:   s.Level == Strict,
		CreateNoWindow:   true,
	}
}

// WindowsEnforced says in a few words what a job with these settings
// enforces, including plainly that the network is not blocked.
func WindowsEnforced(j JobSettings, network bool) string {
	what := "Job Object (kill on close, " + mib(int(j.JobMemoryBytes>>20)) + " memory, " + strconv.Itoa(int(j.ActiveProcesses)) + " processes), low-integrity writes"
	if !network {
		what += ", network NOT blocked: Windows needs administrator rights for that"
	}
	return what
}
