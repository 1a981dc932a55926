package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pygate/pygate/runner"
)

// Check is one line of `pygate doctor`.
type Check struct {
	Name    string
	OK      bool
	Warning bool   // works, but not as well as it could
	Detail  string // what was found
	Hint    string // what to do, for a problem or warning
}

// Doctor checks every part PyGate needs and reports each.
func Doctor(ctx context.Context, p Paths) []Check {
	var checks []Check
	checks = append(checks, checkHome(p))

	loaded := LoadSettings(p.Settings())
	if len(loaded.Problems) == 0 {
		checks = append(checks, Check{Name: "Settings", OK: true, Detail: describeSettingsFile(p.Settings())})
	} else {
		checks = append(checks, Check{Name: "Settings", Detail: strings.Join(loaded.Problems, " "),
			Hint: "Open " + p.Settings() + " and fix it, or delete it to go back to the defaults."})
	}

	uv := runner.FindUV(p.UV())
	if uv == "" {
		checks = append(checks, Check{Name: "uv", OK: true, Warning: true, Detail: "not found; code without packages runs on python3 from PATH",
			Hint: "Run `pygate setup` to install uv, which PyGate needs to install packages and its own Python."})
	} else {
		out, err := exec.CommandContext(ctx, uv, "--version").Output()
		if err != nil {
			checks = append(checks, Check{Name: "uv", Detail: uv + " does not run: " + err.Error(),
				Hint: "Run `pygate setup` to install a working uv."})
		} else {
			checks = append(checks, Check{Name: "uv", OK: true, Detail: strings.TrimSpace(string(out)) + " at " + uv})
		}
	}

	want := loaded.Settings.PythonVersion
	pythons := runner.NewPythons(p.UV(), uv, func() string { return want })
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	py, err := pythons.Peek(pctx)
	switch {
	case err != nil:
		checks = append(checks, Check{Name: "Python", Detail: plainError(err),
			Hint: "Run `pygate setup` to install Python."})
	case !py.Managed:
		checks = append(checks, Check{Name: "Python", OK: true, Warning: true,
			Detail: fmt.Sprintf("Python %s at %s (the setting asks for %s, which is not installed)", py.Version, py.Path, want),
			Hint:   fmt.Sprintf("Run `pygate setup` to install Python %s; until then executions use %s.", want, py.Version)})
	default:
		checks = append(checks, Check{Name: "Python", OK: true, Detail: fmt.Sprintf("Python %s at %s", py.Version, py.Path)})
	}
	for _, l := range runner.SandboxLayers() {
		c := Check{Name: "Sandbox: " + l.Name, OK: l.Available || !l.Required, Warning: !l.Available && !l.Required, Detail: l.Detail}
		if !l.Available {
			c.Hint = "Without it PyGate refuses to run code at the standard and strict levels."
			if !l.Required {
				c.Hint = "PyGate uses the next best protection; the sandbox field of each result says what was enforced."
			}
		}
		checks = append(checks, c)
	}
	if err == nil {
		pythons.Pin(py)
		checks = append(checks, probeSandbox(ctx, p, pythons, loaded.Settings))
	}
	return checks
}

// probeSandbox runs a tiny piece of code at the configured level, exactly
// as an execution would, and reports what the sandbox enforced.
func probeSandbox(ctx context.Context, p Paths, pythons *runner.Pythons, s Settings) Check {
	c := Check{Name: "Sandbox test run"}
	ws, err := os.MkdirTemp(p.Runs(), "doctor-workspace-")
	if err != nil {
		c.Detail, c.Hint = plainError(err), "Check that PyGate's home folder is writable."
		return c
	}
	defer os.RemoveAll(ws)
	id := filepath.Base(ws) + "-run"
	defer os.RemoveAll(filepath.Join(p.Runs(), id))
	res, err := newRunner(p, pythons).Run(ctx, runner.Spec{ID: id, Code: "6 * 7", Timeout: 30 * time.Second, Workspace: ws,
		Level: s.Sandbox, MemoryMB: s.MemoryMB, AllowedImports: s.AllowedImports}, nil)
	switch {
	case err != nil:
		c.Detail, c.Hint = plainError(err), "Until this is fixed, PyGate refuses to run code at this sandbox level."
	case res.Status != runner.StatusOK || res.Value == nil || *res.Value != "42":
		c.Detail = fmt.Sprintf("a test run ended with status %s", res.Status)
		if res.Error != nil {
			c.Detail += ": " + res.Error.Type + ": " + res.Error.Message
		}
		c.Hint = "Run `pygate doctor` again; if it stays, report it with PyGate's log."
	default:
		c.OK, c.Detail = true, "a test run worked in "+res.Sandbox
	}
	return c
}

func describeSettingsFile(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "defaults (no settings file yet)"
	}
	return path
}

func checkHome(p Paths) Check {
	c := Check{Name: "Home folder"}
	if err := p.Ensure(); err != nil {
		c.Detail = fmt.Sprintf("%s cannot be created: %v", p.Home, err)
		c.Hint = "Make sure the folder's parent exists and is yours, or set PYGATE_HOME to a folder you can write to."
		return c
	}
	probe := filepath.Join(p.Home, ".doctor-probe")
	if err := os.WriteFile(probe, []byte("ok"), 0o600); err != nil {
		c.Detail = fmt.Sprintf("%s is not writable: %v", p.Home, err)
		c.Hint = "Free some disk space or fix the folder's permissions, then run `pygate doctor` again."
		return c
	}
	os.Remove(probe)
	c.OK, c.Detail = true, p.Home+" (writable)"
	return c
}

// PrintChecks writes the checks for a person and reports whether any is a problem.
func PrintChecks(w io.Writer, checks []Check) (problems bool) {
	for _, c := range checks {
		mark := "ok  "
		switch {
		case !c.OK:
			mark, problems = "FAIL", true
		case c.Warning:
			mark = "warn"
		}
		fmt.Fprintf(w, "[%s] %s: %s\n", mark, c.Name, c.Detail)
		if c.Hint != "" && (!c.OK || c.Warning) {
			fmt.Fprintf(w, "       -> %s\n", c.Hint)
		}
	}
	if problems {
		fmt.Fprintln(w, "\nPyGate found problems; follow the hints above, then run `pygate doctor` again.")
	} else {
		fmt.Fprintln(w, "\nPyGate is ready.")
	}
	return problems
}
