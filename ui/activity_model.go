package ui

// Rules of this file: the activity list's data, folded from journal events
// by pure functions, plus its exports. No widgets here.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/mcp"
)

// Entry is one execution as the activity window shows it.
type Entry struct {
	ID       string      `json:"execution_id"`
	Time     time.Time   `json:"time"`
	Client   string      `json:"client"`
	Status   string      `json:"status"` // waiting, running, ok, error, timeout, denied, cancelled
	Code     string      `json:"code"`
	Packages []string    `json:"packages,omitempty"`
	Network  bool        `json:"network,omitempty"`
	Decision string      `json:"decision"`
	Analysis []string    `json:"analysis,omitempty"`
	Sandbox  string      `json:"sandbox,omitempty"`
	Result   *mcp.Output `json:"result,omitempty"`
	// Live output while it runs, as journaled (the result has it all).
	LiveStdout string        `json:"-"`
	LiveStderr string        `json:"-"`
	Duration   time.Duration `json:"duration_ns"`
}

// FirstLine is the code's first non-blank line, cut to n characters.
func (e Entry) FirstLine(n int) string {
	for _, l := range strings.Split(e.Code, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len([]rune(l)) > n {
				return string([]rune(l)[:n-1]) + "…"
			}
			return l
		}
	}
	return "(empty)"
}

// Activity holds the executions seen so far.
type Activity struct {
	byID map[string]*Entry
}

// NewActivity returns an empty activity.
func NewActivity() *Activity { return &Activity{byID: map[string]*Entry{}} }

// Apply folds one journal event in.
func (a *Activity) Apply(ev journal.Event) {
	e := a.byID[ev.Execution]
	if e == nil {
		e = &Entry{ID: ev.Execution, Time: ev.Time, Status: "waiting"}
		a.byID[ev.Execution] = e
	}
	if ev.Client != "" {
		e.Client = ev.Client
	}
	switch ev.Kind {
	case journal.Requested:
		e.Time, e.Code, e.Packages, e.Network = ev.Time, ev.Code, ev.Packages, ev.Network
	case journal.Decided:
		e.Analysis = ev.Analysis
		switch {
		case ev.Allowed != nil && *ev.Allowed:
			e.Decision = fmt.Sprintf("allowed by %s (%s)", ev.DecidedBy, ev.Scope)
			if ev.Edited {
				e.Decision += ", edited before running"
				e.Code = ev.Code
			}
		default:
			e.Decision = "denied: " + ev.Reason
		}
	case journal.Started:
		e.Status, e.Sandbox = "running", ev.Sandbox
	case journal.Output:
		if ev.Stream == "stderr" {
			e.LiveStderr += ev.Text
		} else {
			e.LiveStdout += ev.Text
		}
	case journal.Finished:
		e.Status = ev.Status
		if ev.Sandbox != "" {
			e.Sandbox = ev.Sandbox
		}
		var out mcp.Output
		if len(ev.Result) > 0 && json.Unmarshal(ev.Result, &out) == nil {
			e.Result = &out
			e.Duration = time.Duration(out.DurationMS) * time.Millisecond
		}
	}
}

// List returns the entries matching query (in code, client, status or
// output; empty matches all), newest first.
func (a *Activity) List(query string) []Entry {
	q := strings.ToLower(strings.TrimSpace(query))
	var out []Entry
	for _, e := range a.byID {
		if q == "" || strings.Contains(strings.ToLower(e.searchText()), q) {
			out = append(out, *e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Time.Equal(out[j].Time) {
			return out[i].ID > out[j].ID
		}
		return out[i].Time.After(out[j].Time)
	})
	return out
}

func (e *Entry) searchText() string {
	parts := []string{e.Code, e.Client, e.Status, e.Decision}
	if e.Result != nil {
		parts = append(parts, e.Result.Stdout, e.Result.Stderr)
		if e.Result.Value != nil {
			parts = append(parts, *e.Result.Value)
		}
	}
	return strings.Join(parts, "\n")
}

// ExportJSON is the entries as an indented JSON array.
func ExportJSON(entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	return json.MarshalIndent(entries, "", "  ")
}

// ExportMarkdown is the entries as a readable Markdown report.
func ExportMarkdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString("# PyGate activity\n\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "## %s — %s — %s\n\n", e.Time.Local().Format("2006-01-02 15:04:05"), e.Client, e.Status)
		if e.Decision != "" {
			fmt.Fprintf(&b, "Decision: %s\n\n", e.Decision)
		}
		if e.Sandbox != "" {
			fmt.Fprintf(&b, "Sandbox: %s\n\n", e.Sandbox)
		}
		b.WriteString("```python\n" + strings.TrimRight(e.Code, "\n") + "\n```\n\n")
		if r := e.Result; r != nil {
			section := func(title, body string) {
				if body != "" {
					b.WriteString(title + ":\n\n```\n" + strings.TrimRight(body, "\n") + "\n```\n\n")
				}
			}
			section("Output", r.Stdout)
			section("Errors", r.Stderr)
			if r.Value != nil {
				section("Value", *r.Value)
			}
			if r.Error != nil && r.Error.Traceback != "" {
				section("Exception", r.Error.Traceback)
			}
		}
	}
	return b.String()
}
