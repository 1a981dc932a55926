package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/pygate/pygate/runner"
)

// MaxAnswer is the most characters one tool answer may have in all; Claude
// Desktop rejects results over 1 MiB.
const MaxAnswer = 1_000_000

// figureBudget is the most base64 characters of images one answer carries.
const figureBudget = 400_000

// Output is the structuredContent of every run_python and get_result answer.
type Output struct {
	ExecutionID string          `json:"execution_id"`
	Status      string          `json:"status"`
	ExitCode    *int            `json:"exit_code"`
	Stdout      string          `json:"stdout"`
	Stderr      string          `json:"stderr"`
	Value       *string         `json:"value"`
	Error       *runner.PyError `json:"error"`
	Files       []runner.File   `json:"files"`
	DurationMS  int64           `json:"duration_ms"`
	Truncated   Truncated       `json:"truncated"`
	Sandbox     string          `json:"sandbox"`
	Message     string          `json:"message,omitempty"` // why it was denied, pending or not run
	Edited      bool            `json:"edited,omitempty"`  // the person changed the code before it ran
	Python      string          `json:"python,omitempty"`

	cut     [2]int64 // bytes cut from stdout, stderr
	notes   []string
	code    string // the edited code, shown when Edited
	figures []runner.Figure
}

// Truncated says which streams were cut for the answer.
type Truncated struct {
	Stdout bool `json:"stdout"`
	Stderr bool `json:"stderr"`
}

type limits struct{ stdout, stderr int }

// buildOutput describes e as it is now, with streams cut to lim.
func buildOutput(e *execution, lim limits) Output {
	e.mu.Lock()
	defer e.mu.Unlock()
	o := Output{ExecutionID: e.id, Files: []runner.File{}}
	switch {
	case e.phase != phaseDone:
		o.Status = "pending"
		o.Message = fmt.Sprintf("The execution is still %s. Call get_result with execution_id %q to wait for its result; it carries on meanwhile.", e.phase, e.id)
		o.DurationMS = time.Since(e.started).Milliseconds()
		return o
	case e.denied != nil:
		o.Status = "denied"
		o.Message = e.decision.Reason
		if o.Message == "" {
			o.Message = "The code was not run."
		}
		return o
	case e.setupErr != nil:
		o.Status = "error"
		o.Message = plainSetupError(e.setupErr)
		o.Error = &runner.PyError{Type: "PyGateError", Message: o.Message}
		return o
	case e.result == nil:
		o.Status = "cancelled"
		o.Message = "The execution was cancelled before it started."
		return o
	}
	r := e.result
	o.Status = string(r.Status)
	code := r.ExitCode
	o.ExitCode = &code
	o.Stdout, o.cut[0] = r.Stdout.Excerpt(lim.stdout)
	o.Stderr, o.cut[1] = r.Stderr.Excerpt(lim.stderr)
	o.Truncated = Truncated{Stdout: o.cut[0] > 0, Stderr: o.cut[1] > 0}
	o.Value = r.Value
	o.Error = r.Error
	if r.Files != nil {
		o.Files = r.Files
	}
	o.DurationMS = r.Duration.Milliseconds()
	o.Sandbox = r.Sandbox
	o.Python = r.Python.Version
	o.notes = r.Notes
	o.figures = r.Figures
	if e.decision.Edited {
		o.Edited, o.code = true, e.decision.Code
	}
	switch r.Status {
	case runner.StatusTimeout:
		o.Message = fmt.Sprintf("The code was stopped because it ran longer than its time limit of %s.", seconds(e.request.Timeout))
	case runner.StatusCancelled:
		o.Message = "The execution was cancelled and its processes were stopped."
	}
	return o
}

func plainSetupError(err error) string {
	var se *runner.SetupError
	if errors.As(err, &se) {
		return se.Problem + " " + se.Hint
	}
	return "PyGate could not start Python for this code. Run `pygate doctor` to see what is wrong."
}

func seconds(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		if s == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", int64(s))
	}
	return fmt.Sprintf("%.1f seconds", s)
}

// text renders o as the one text block that is complete on its own.
func (o Output) text(omitted []string) string {
	var b strings.Builder
	b.WriteString(o.statusLine())
	b.WriteString("\n")
	if o.Edited {
		b.WriteString("\nThe person edited the code before approving it. The code that ran:\n```python\n")
		b.WriteString(o.code)
		b.WriteString("\n```\n")
	}
	section := func(title, body string) {
		if body == "" {
			return
		}
		b.WriteString("\n--- " + title + " ---\n")
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteString("\n")
		}
	}
	section("stdout", o.Stdout)
	section("stderr", o.Stderr)
	if o.Value != nil {
		section("value of the last expression", *o.Value)
	}
	if o.Error != nil && o.Error.Traceback != "" {
		section("exception", o.Error.Traceback)
	}
	if len(o.Files) > 0 {
		var f strings.Builder
		for _, file := range o.Files {
			fmt.Fprintf(&f, "%s (%s)\n", file.Path, runner.HumanBytes(file.Size))
		}
		section("files created or changed in the workspace", f.String())
	}
	var notes []string
	if o.Truncated.Stdout {
		notes = append(notes, fmt.Sprintf("stdout was cut: %s from the middle are not shown.", runner.HumanBytes(o.cut[0])))
	}
	if o.Truncated.Stderr {
		notes = append(notes, fmt.Sprintf("stderr was cut: %s from the middle are not shown.", runner.HumanBytes(o.cut[1])))
	}
	notes = append(notes, omitted...)
	notes = append(notes, o.notes...)
	if len(notes) > 0 {
		section("notes", strings.Join(notes, "\n"))
	}
	return b.String()
}

func (o Output) statusLine() string {
	took := fmt.Sprintf("%.2f s", float64(o.DurationMS)/1000)
	where := ""
	if o.Python != "" {
		where = fmt.Sprintf(" (Python %s, sandbox: %s)", o.Python, o.Sandbox)
	}
	switch o.Status {
	case "ok":
		return fmt.Sprintf("Status: ok. The code ran in %s%s.", took, where)
	case "error":
		if o.Message != "" && o.ExitCode == nil {
			return "Status: error. " + o.Message
		}
		kind := "an error"
		if o.Error != nil && o.Error.Type != "" {
			kind = o.Error.Type
			if o.Error.Message != "" && o.Error.Traceback == "" {
				kind += ": " + o.Error.Message
			}
		}
		return fmt.Sprintf("Status: error. The code stopped with %s after %s%s.", kind, took, where)
	case "timeout":
		return fmt.Sprintf("Status: timeout. %s Output up to that point is below%s.", o.Message, where)
	case "denied":
		return "Status: denied. The code was not run. " + o.Message
	case "cancelled":
		return "Status: cancelled. " + o.Message
	case "pending":
		return "Status: pending. " + o.Message
	}
	return "Status: " + o.Status
}

// answer builds the tool result for e, fitting it under MaxAnswer: figures
// first within their budget, then the streams, halved until everything fits.
func answer(e *execution) *mcpgo.CallToolResult {
	lim := limits{stdout: 200_000, stderr: 100_000}
	for {
		o := buildOutput(e, lim)
		var images []mcpgo.Content
		var omitted []string
		used := 0
		for _, f := range o.figures {
			enc := base64.StdEncoding.EncodeToString(f.PNG)
			if used+len(enc) > figureBudget {
				omitted = append(omitted, fmt.Sprintf("Figure %s (%s) was too large to send; it is saved in PyGate's run folder.", f.Name, runner.HumanBytes(int64(len(f.PNG)))))
				continue
			}
			used += len(enc)
			images = append(images, mcpgo.NewImageContent(enc, "image/png"))
		}
		if len(images) > 0 {
			omitted = append(omitted, fmt.Sprintf("%d figure(s) are attached as images.", len(images)))
		}
		res := &mcpgo.CallToolResult{
			Content:           append([]mcpgo.Content{mcpgo.NewTextContent(o.text(omitted))}, images...),
			StructuredContent: o,
			IsError:           o.Status != "ok" && o.Status != "pending",
		}
		b, err := json.Marshal(res)
		if err != nil || len(b) <= MaxAnswer-10_000 || lim.stdout < 1000 {
			return res
		}
		lim.stdout /= 2
		lim.stderr /= 2
	}
}

// refusal is the answer to a call PyGate will not take, in one or two
// plain sentences.
func refusal(msg string) *mcpgo.CallToolResult {
	o := Output{Status: "error", Message: msg, Files: []runner.File{}, Error: &runner.PyError{Type: "InvalidArguments", Message: msg}}
	return &mcpgo.CallToolResult{
		Content:           []mcpgo.Content{mcpgo.NewTextContent("Status: error. " + msg)},
		StructuredContent: o,
		IsError:           true,
	}
}
