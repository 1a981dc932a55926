package runner

import (
	"fmt"
	"sort"
	"strings"
)

// SBPLProfile generates the macOS Seatbelt profile (SBPL) for a sandboxed
// run: deny by default, then allow what the level allows. Later rules win
// over earlier ones, so the secrets' denials come after the broad read
// allowance of the standard level. It is a pure function of the spec so
// its output can be checked against golden files on any OS.
func SBPLProfile(s SandboxSpec) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("(version 1)")
	line(";; PyGate sandbox, level %s. Generated; do not edit.", s.Level)
	line("(deny default)")
	line("")
	line(";; Python itself: run, fork its own children, signal them, read system facts.")
	line("(allow process-exec)")
	line("(allow process-fork)")
	line("(allow signal (target same-sandbox))")
	line("(allow sysctl-read)")
	line("(allow file-read-metadata)")
	line("(allow ipc-posix-sem)")
	line("(allow ipc-posix-shm-read* ipc-posix-shm-write-create ipc-posix-shm-write-data ipc-posix-shm-write-unlink)")
	line("(allow mach-lookup")
	for _, name := range []string{
		"com.apple.system.opendirectoryd.libinfo",
		"com.apple.system.notification_center",
		"com.apple.system.logger",
		"com.apple.logd",
		"com.apple.cfprefsd.daemon",
		"com.apple.cfprefsd.agent",
		"com.apple.FontServer",
		"com.apple.fonts",
	} {
		line("  (global-name %s)", sbplString(name))
	}
	line(")")
	line("")
	line(";; Reading.")
	switch s.Level {
	case Strict:
		line("(allow file-read*")
		for _, p := range sortedPaths(append(append([]string{}, s.ReadDirs...), s.WriteDirs...)) {
			line("  (subpath %s)", sbplString(p))
		}
		for _, p := range sortedPaths(s.ReadFiles) {
			line("  (literal %s)", sbplString(p))
		}
		line(")")
	default:
		line("(allow file-read*)")
		if len(s.DenyRead) > 0 {
			line(";; Secrets stay closed.")
			line("(deny file-read* file-write*")
			for _, p := range sortedPaths(s.DenyRead) {
				line("  (subpath %s)", sbplString(p))
			}
			line(")")
		}
	}
	line("")
	line(";; Writing: the workspace, the run folder and the cache only.")
	line("(allow file-write*")
	for _, p := range sortedPaths(s.WriteDirs) {
		line("  (subpath %s)", sbplString(p))
	}
	for _, p := range sortedPaths(s.WriteFiles) {
		line("  (literal %s)", sbplString(p))
	}
	line(")")
	line("")
	if s.Network {
		line(";; Network: the person allowed it for this run.")
		line("(allow network*)")
		line("(allow system-socket)")
		line("(allow mach-lookup (global-name \"com.apple.dnssd.service\") (global-name \"com.apple.SystemConfiguration.configd\") (global-name \"com.apple.trustd.agent\"))")
	} else {
		line(";; Network: off. Only local Unix sockets, for Python's own helpers.")
		line("(allow network* (local unix-socket))")
		line("(allow network* (remote unix-socket))")
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func sortedPaths(ps []string) []string {
	out := append([]string{}, ps...)
	sort.Strings(out)
	return out
}
