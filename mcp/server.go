// Package mcp is PyGate's MCP server: the run_python and get_result tools,
// the formatting of their answers, and one session per connection built on
// mcp-go's session API, so several clients can be served by one process
// without their notifications or cancellations crossing.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/runner"
)

// MaxCode is the largest code run_python accepts, in bytes.
const MaxCode = 1 << 20

// MaxWait is the longest get_result waits before answering pending again.
const MaxWait = 45

// Limits are the settings the tools work within.
type Limits struct {
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	AnswerWithin   time.Duration
	MemoryMB       int
	Level          runner.Level
	AllowedImports []string
}

// Options are the server's parts, passed in by the composition root.
type Options struct {
	Version   string
	Runner    *runner.Runner
	Broker    *approval.Broker
	Journal   *journal.Store // may be nil in tests
	Limits    func() Limits
	Workspace func(client string) string // the working folder for a client's executions
	Python    runner.Interpreter         // the interpreter the description names
}

// Server serves PyGate's tools to any number of connections.
type Server struct {
	mcp     *server.MCPServer
	runner  *runner.Runner
	broker  *approval.Broker
	journal *journal.Store
	limits  func() Limits
	space   func(string) string
	execs   *executions
	connSeq atomic.Int64

	progressEvery time.Duration
	python        runner.Interpreter // named in run_python's description
}

// New builds the server and registers its tools.
func New(o Options) *Server {
	s := &Server{
		mcp:           server.NewMCPServer("pygate", o.Version, server.WithToolCapabilities(false), server.WithRecovery()),
		runner:        o.Runner,
		broker:        o.Broker,
		journal:       o.Journal,
		limits:        o.Limits,
		space:         o.Workspace,
		execs:         newExecutions(),
		progressEvery: time.Second,
	}
	s.python = o.Python
	s.RefreshTools()
	s.mcp.AddTool(GetResultTool(), s.getResult)
	return s
}

// RefreshTools rebuilds run_python's description from the limits in force,
// so connections made after a settings change read the truth.
func (s *Server) RefreshTools() {
	s.mcp.AddTool(RunPythonTool(s.limits(), s.python), s.runPython)
}

// RunPythonTool is run_python's definition; its description tells the model
// the truth about where its code runs.
func RunPythonTool(lim Limits, py runner.Interpreter) mcpgo.Tool {
	version := py.Version
	if version == "" {
		version = "3 (the version is decided when PyGate's setup has run)"
	}
	safety := runner.Promise(lim.Level, lim.MemoryMB, lim.AllowedImports)
	desc := fmt.Sprintf(`Run Python code on the user's own computer and get back its stdout, stderr, the value of the last expression, any exception with its traceback, matplotlib figures as images, and the files it created or changed.

Where the code runs: CPython %s, started fresh for each call, in a persistent workspace folder (the working directory) that keeps files between calls, so a file written in one call can be read in the next. Variables do not persist between calls.
The person sees every piece of code before it runs and approves or denies it; a denial comes back with their reason, if they gave one. They may also edit the code; the answer then shows the code that ran.
%s
Time limit: %d seconds by default, up to %d seconds with timeout_seconds. There is no keyboard input: input() gets end-of-file at once.
Packages: list PyPI requirements in packages (for example ["pandas", "matplotlib>=3.8"]); they are installed (wheels only) before the run. Only the standard library is available otherwise.
Answers: if the person has not approved yet or the code is still running after %d seconds, the answer has status pending and an execution_id; call get_result with it to wait for the result. Long output is cut in the middle, and the answer says so.`,
		version, safety, int(lim.DefaultTimeout/time.Second), int(lim.MaxTimeout/time.Second), int(lim.AnswerWithin/time.Second))
	return mcpgo.NewTool("run_python",
		mcpgo.WithDescription(desc),
		mcpgo.WithTitleAnnotation("Run Python"),
		mcpgo.WithReadOnlyHintAnnotation(false),
		mcpgo.WithDestructiveHintAnnotation(true),
		mcpgo.WithOpenWorldHintAnnotation(true),
		mcpgo.WithString("code", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(MaxCode),
			mcpgo.Description("The Python code to run, as a whole program. If the last statement is an expression, its value is returned.")),
		mcpgo.WithArray("packages", mcpgo.WithStringItems(mcpgo.MaxLength(200)), mcpgo.MaxItems(runner.MaxPackages),
			mcpgo.Description("PyPI requirements to install before running, such as \"numpy\" or \"pandas>=2\".")),
		mcpgo.WithInteger("timeout_seconds", mcpgo.Min(1), mcpgo.Max(int(lim.MaxTimeout/time.Second)),
			mcpgo.Description(fmt.Sprintf("Time limit for this run in seconds (default %d).", int(lim.DefaultTimeout/time.Second)))),
		mcpgo.WithBoolean("network", mcpgo.DefaultBool(false),
			mcpgo.Description("Ask the person for internet access for this run. Leave false unless the code needs the internet.")),
	)
}

// GetResultTool is get_result's definition.
func GetResultTool() mcpgo.Tool {
	return mcpgo.NewTool("get_result",
		mcpgo.WithDescription("Wait for the result of a run_python call that answered with status pending, and return it in the same shape. If it is still not done after wait_seconds, the answer is pending again: call get_result again."),
		mcpgo.WithTitleAnnotation("Get a pending Python result"),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithString("execution_id", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(100),
			mcpgo.Description("The execution_id from the pending answer.")),
		mcpgo.WithInteger("wait_seconds", mcpgo.Min(0), mcpgo.Max(MaxWait),
			mcpgo.Description(fmt.Sprintf("How long to wait for the result, at most %d seconds (default %d).", MaxWait, MaxWait))),
	)
}

// runArgs are run_python's arguments after checking.
type runArgs struct {
	Code     string
	Packages []string
	Timeout  time.Duration
	Network  bool
}

// parseRunArgs checks run_python's arguments and says plainly what is wrong.
func parseRunArgs(raw map[string]any, lim Limits) (runArgs, string) {
	var a runArgs
	for k := range raw {
		switch k {
		case "code", "packages", "timeout_seconds", "network":
		default:
			return a, fmt.Sprintf("run_python has no argument %q; its arguments are code, packages, timeout_seconds and network.", k)
		}
	}
	code, ok := raw["code"].(string)
	switch {
	case raw["code"] == nil:
		return a, "run_python needs the argument code: the Python code to run, as a string."
	case !ok:
		return a, fmt.Sprintf("The argument code must be a string of Python code, not %s.", jsonType(raw["code"]))
	case strings.TrimSpace(code) == "":
		return a, "The argument code is empty; send the Python code to run."
	case len(code) > MaxCode:
		return a, fmt.Sprintf("The code is %s long; PyGate accepts at most 1 MiB (%d bytes) per call. Split the work into smaller pieces, or write data to a file in one call and read it in the next.", runner.HumanBytes(int64(len(code))), MaxCode)
	}
	a.Code = code
	if p, present := raw["packages"]; present && p != nil {
		list, ok := p.([]any)
		if !ok {
			return a, fmt.Sprintf("The argument packages must be a list of strings such as [\"numpy\"], not %s.", jsonType(p))
		}
		for _, item := range list {
			s, ok := item.(string)
			if !ok {
				return a, fmt.Sprintf("Every entry of packages must be a string such as \"numpy\"; one is %s.", jsonType(item))
			}
			a.Packages = append(a.Packages, s)
		}
		if err := runner.CheckPackages(a.Packages); err != nil {
			return a, "PyGate did not run this code: " + err.Error() + "."
		}
	}
	a.Timeout = lim.DefaultTimeout
	if t, present := raw["timeout_seconds"]; present && t != nil {
		n, ok := t.(float64)
		max := int(lim.MaxTimeout / time.Second)
		if !ok || n != float64(int64(n)) {
			return a, fmt.Sprintf("The argument timeout_seconds must be a whole number of seconds from 1 to %d, not %s.", max, jsonText(t))
		}
		if n < 1 || n > float64(max) {
			return a, fmt.Sprintf("timeout_seconds is %d; it must be from 1 to %d seconds.", int64(n), max)
		}
		a.Timeout = time.Duration(n) * time.Second
	}
	if n, present := raw["network"]; present && n != nil {
		b, ok := n.(bool)
		if !ok {
			return a, fmt.Sprintf("The argument network must be true or false, not %s.", jsonText(n))
		}
		a.Network = b
	}
	return a, ""
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 40 {
		return jsonType(v)
	}
	return string(b)
}

// clientOf reads who is calling from the session.
func clientOf(ctx context.Context) approval.Client {
	c := approval.Client{Name: "unknown-client"}
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return c
	}
	c.Session = sess.SessionID()
	if ci, ok := sess.(server.SessionWithClientInfo); ok {
		info := ci.GetClientInfo()
		if info.Name != "" {
			c.Name = info.Name
		}
		c.Version = info.Version
	}
	return c
}

func (s *Server) runPython(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	raw, ok := req.Params.Arguments.(map[string]any)
	if !ok {
		return refusal("run_python's arguments must be an object with at least code, for example {\"code\": \"print(1)\"}."), nil
	}
	lim := s.limits()
	args, problem := parseRunArgs(raw, lim)
	if problem != "" {
		return refusal(problem), nil
	}
	client := clientOf(ctx)
	r := approval.Request{
		Client:   client,
		Code:     args.Code,
		Packages: args.Packages,
		Network:  args.Network,
		Timeout:  args.Timeout,
		Level:    string(lim.Level),
	}
	spec := runner.Spec{
		ID:             newID(),
		Code:           args.Code,
		Packages:       args.Packages,
		Timeout:        args.Timeout,
		Workspace:      s.space(client.Name),
		Level:          lim.Level,
		MemoryMB:       lim.MemoryMB,
		AllowedImports: lim.AllowedImports,
	}
	e := s.start(r, spec)
	return s.await(ctx, req, e, lim.AnswerWithin), nil
}

func (s *Server) getResult(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	raw, _ := req.Params.Arguments.(map[string]any)
	id, ok := raw["execution_id"].(string)
	if !ok || id == "" {
		return refusal("get_result needs execution_id: the id from a pending run_python answer, as a string."), nil
	}
	wait := time.Duration(MaxWait) * time.Second
	if w, present := raw["wait_seconds"]; present && w != nil {
		n, ok := w.(float64)
		if !ok || n < 0 || n > MaxWait || n != float64(int64(n)) {
			return refusal(fmt.Sprintf("wait_seconds must be a whole number from 0 to %d.", MaxWait)), nil
		}
		wait = time.Duration(n) * time.Second
	}
	e := s.execs.get(id)
	if e == nil || e.client.Name != clientOf(ctx).Name {
		return refusal(fmt.Sprintf("PyGate has no execution with id %q. Use the execution_id from a pending run_python answer; results are kept for 24 hours while PyGate runs.", id)), nil
	}
	return s.await(ctx, req, e, wait), nil
}

// await waits up to d for e, sending progress notifications when the client
// asked for them. Cancelling the call (notifications/cancelled) stops e.
func (s *Server) await(ctx context.Context, req mcpgo.CallToolRequest, e *execution, d time.Duration) *mcpgo.CallToolResult {
	var token mcpgo.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(s.progressEvery)
	defer tick.Stop()
	step := 0
	for {
		select {
		case <-e.done:
			return answer(e)
		case <-deadline.C:
			return answer(e)
		case <-ctx.Done():
			e.cancel()
			select {
			case <-e.done:
			case <-time.After(10 * time.Second):
			}
			return answer(e)
		case <-tick.C:
			if token == nil {
				continue
			}
			step++
			_ = s.mcp.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": token,
				"progress":      step,
				"message":       fmt.Sprintf("Execution %s is %s (%s so far).", e.id, e.state(), seconds(time.Since(e.started).Round(time.Second))),
			})
		}
	}
}
