// Package e2e drives the real pygate binary as an MCP client would: it
// builds the binary, launches `pygate mcp --no-ui` with mcp-go's client
// pinned to protocol 2025-11-25 (what Claude Desktop sends), and checks every
// kind of answer, including those to code that misbehaves.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/pygate/pygate/internal/proctest"
	"github.com/pygate/pygate/internal/testenv"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pygate-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "pygate")
	build := exec.Command("go", "build", "-o", binary, "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build pygate:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newHome makes a PYGATE_HOME with the given settings (merged over
// allow-all and the machine's Python).
func newHome(t *testing.T, settings map[string]any) string {
	t.Helper()
	home := t.TempDir()
	s := map[string]any{"approval": "allow-all", "python_version": testenv.MachinePython()}
	for k, v := range settings {
		s[k] = v
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// server is one running `pygate mcp --no-ui` with a connected client.
type server struct {
	c     *client.Client
	cmd   *exec.Cmd
	home  string
	mu    sync.Mutex
	notes []mcpgo.JSONRPCNotification
}

func start(t *testing.T, home string) *server {
	t.Helper()
	s := &server{home: home}
	tr := transport.NewStdioWithOptions(binary, []string{"PYGATE_HOME=" + home}, []string{"mcp", "--no-ui"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			s.cmd = cmd
			return cmd, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.c = client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	if err := s.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		s.mu.Lock()
		s.notes = append(s.notes, n)
		s.mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgo.Implementation{Name: "e2e-client", Version: "1.0"}
	res, err := s.c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != "2025-11-25" {
		t.Fatalf("negotiated %s", res.ProtocolVersion)
	}
	t.Cleanup(func() { s.c.Close() })
	return s
}

type answer struct {
	text    string
	isError bool
	sc      map[string]any
	images  int
	size    int
}

func (s *server) call(t *testing.T, tool string, args map[string]any) answer {
	t.Helper()
	return s.callCtx(t, context.Background(), tool, args, nil)
}

func (s *server) callCtx(t *testing.T, ctx context.Context, tool string, args map[string]any, token any) answer {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	if token != nil {
		req.Params.Meta = &mcpgo.Meta{ProgressToken: token}
	}
	ctx, cancel := context.WithTimeout(ctx, 180*time.Second)
	defer cancel()
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return toAnswer(t, res)
}

func toAnswer(t *testing.T, res *mcpgo.CallToolResult) answer {
	a := answer{isError: res.IsError}
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcpgo.TextContent:
			a.text += c.Text
		case mcpgo.ImageContent:
			a.images++
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &a.sc); err != nil || a.sc == nil {
		t.Fatalf("no structuredContent: %s", raw)
	}
	all, _ := json.Marshal(res)
	a.size = len(all)
	return a
}

// waitGone fails the test if a process whose command line holds marker is
// still alive after a few seconds.
func waitGone(t *testing.T, marker, what string) {
	t.Helper()
	if left := proctest.WaitGone(marker, 5*time.Second); len(left) > 0 {
		t.Fatalf("%s (pids %v) is still alive", what, left)
	}
}

func TestAnswers(t *testing.T) {
	s := start(t, newHome(t, nil))
	cases := []struct {
		name    string
		code    string
		status  string
		isError bool
		check   func(a answer) string
	}{
		{"stdout", "print('hello from python')", "ok", false, func(a answer) string {
			if a.sc["stdout"] != "hello from python\n" || !strings.Contains(a.text, "hello from python") {
				return "stdout missing"
			}
			return ""
		}},
		{"non-ASCII", "s = 'Grüße, 世界 — ✓ 🐍'\nprint(s)\ns", "ok", false, func(a answer) string {
			if a.sc["stdout"] != "Grüße, 世界 — ✓ 🐍\n" || a.sc["value"] != "'Grüße, 世界 — ✓ 🐍'" || !strings.Contains(a.text, "Grüße, 世界 — ✓ 🐍") {
				return "text did not round-trip"
			}
			return ""
		}},
		{"exception", "def divide(a, b):\n    return a / b\n\ndivide(1, 0)", "error", true, func(a answer) string {
			e, _ := a.sc["error"].(map[string]any)
			if e["type"] != "ZeroDivisionError" || !strings.Contains(a.text, "Traceback") || !strings.Contains(a.text, `File "main.py", line 4`) || !strings.Contains(a.text, "return a / b") {
				return "traceback missing"
			}
			if strings.Contains(a.text, "bootstrap") {
				return "traceback shows PyGate's frames"
			}
			return ""
		}},
		{"stdout and stderr apart", "import sys\nprint('to out')\nprint('to err', file=sys.stderr)", "ok", false, func(a answer) string {
			if a.sc["stdout"] != "to out\n" || a.sc["stderr"] != "to err\n" || !strings.Contains(a.text, "--- stderr ---\nto err") {
				return "streams mixed up"
			}
			return ""
		}},
		{"last expression", "x = [i * i for i in range(5)]\nx", "ok", false, func(a answer) string {
			if a.sc["value"] != "[0, 1, 4, 9, 16]" || !strings.Contains(a.text, "[0, 1, 4, 9, 16]") {
				return "value missing"
			}
			return ""
		}},
		{"input gets EOF", "import time\nt = time.time()\ntry:\n    input('? ')\nexcept EOFError:\n    print('EOF after', round(time.time() - t))", "ok", false, func(a answer) string {
			if !strings.Contains(a.sc["stdout"].(string), "EOF after 0") {
				return "input did not get EOF at once"
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := s.call(t, "run_python", map[string]any{"code": c.code})
			if a.sc["status"] != c.status || a.isError != c.isError {
				t.Fatalf("status %v isError %v\n%s", a.sc["status"], a.isError, a.text)
			}
			if msg := c.check(a); msg != "" {
				t.Fatalf("%s:\n%s\n%v", msg, a.text, a.sc)
			}
		})
	}
}

func TestInfiniteLoopTimesOut(t *testing.T) {
	s := start(t, newHome(t, nil))
	begin := time.Now()
	a := s.call(t, "run_python", map[string]any{"code": "while True:\n    pass", "timeout_seconds": 2})
	if took := time.Since(begin); took > 10*time.Second {
		t.Fatalf("answered after %s", took)
	}
	if a.sc["status"] != "timeout" || !a.isError || !strings.Contains(a.text, "time limit of 2 seconds") {
		t.Fatalf("%s", a.text)
	}
}

func TestFloodOfOutputIsCut(t *testing.T) {
	s := start(t, newHome(t, nil))
	a := s.call(t, "run_python", map[string]any{"code": "for i in range(3_000_000):\n    print(i)", "timeout_seconds": 120})
	if a.sc["status"] != "ok" || a.size >= 1_000_000 {
		t.Fatalf("status %v, answer of %d characters", a.sc["status"], a.size)
	}
	if !strings.Contains(a.text, "stdout was cut") || !strings.Contains(a.text, "cut here") || !strings.Contains(a.text, "2999999") {
		t.Fatalf("the cut is not said plainly:\n%s", a.text[len(a.text)-500:])
	}
	if tr := a.sc["truncated"].(map[string]any); tr["stdout"] != true {
		t.Fatalf("truncated %v", tr)
	}
}

func TestBackgroundProcessIsGoneAfterTheCall(t *testing.T) {
	s := start(t, newHome(t, nil))
	a := s.call(t, "run_python", map[string]any{"code": "import subprocess\nsubprocess.Popen(['sleep', '3002'])\n'started'"})
	if a.sc["value"] != "'started'" {
		t.Fatalf("%s", a.text)
	}
	waitGone(t, "sleep\x003002", "sleep 3002 started by the code")
}

func TestFourConcurrentCalls(t *testing.T) {
	s := start(t, newHome(t, nil))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var starts, ends []float64
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each run reports when it began and ended; a run that sleeps
			// until all four have begun proves they ran side by side.
			code := fmt.Sprintf("import time, os\nbegan = time.time()\nopen(f'began-{%d}', 'w').close()\n"+
				"while len([f for f in os.listdir('.') if f.startswith('began-')]) < 4 and time.time() - began < 20:\n    time.sleep(0.05)\n"+
				"(%d, began, time.time())", i, i)
			a := s.call(t, "run_python", map[string]any{"code": code})
			var id int
			var began, ended float64
			if _, err := fmt.Sscanf(fmt.Sprint(a.sc["value"]), "(%d, %g, %g)", &id, &began, &ended); err != nil || id != i {
				t.Errorf("call %d answered %v", i, a.sc["value"])
				return
			}
			mu.Lock()
			starts, ends = append(starts, began), append(ends, ended)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(starts) != 4 {
		t.Fatal("not every call answered")
	}
	latestStart, earliestEnd := starts[0], ends[0]
	for i := range starts {
		latestStart, earliestEnd = max(latestStart, starts[i]), min(earliestEnd, ends[i])
	}
	if latestStart >= earliestEnd {
		t.Fatal("the four runs did not overlap: calls were served one after another")
	}
}

func TestWorkspacePersistsBetweenCalls(t *testing.T) {
	home := newHome(t, nil)
	s := start(t, home)
	a := s.call(t, "run_python", map[string]any{"code": "with open('notes.txt', 'w') as f:\n    f.write('kept')"})
	if !strings.Contains(a.text, "notes.txt (4 bytes)") {
		t.Fatalf("created file not listed:\n%s", a.text)
	}
	a = s.call(t, "run_python", map[string]any{"code": "open('notes.txt').read()"})
	if a.sc["value"] != "'kept'" {
		t.Fatalf("%s", a.text)
	}
	if _, err := os.Stat(filepath.Join(home, "workspaces", "e2e-client", "notes.txt")); err != nil {
		t.Fatalf("workspace is not per client: %v", err)
	}
}

func TestPendingThenGetResult(t *testing.T) {
	s := start(t, newHome(t, map[string]any{"answer_within_seconds": 1}))
	a := s.callCtx(t, context.Background(), "run_python", map[string]any{"code": "import time\ntime.sleep(3)\n'finished'"}, "progress-1")
	if a.sc["status"] != "pending" || a.isError {
		t.Fatalf("%s", a.text)
	}
	id := a.sc["execution_id"].(string)
	var got answer
	for i := 0; i < 5; i++ {
		got = s.call(t, "get_result", map[string]any{"execution_id": id, "wait_seconds": 10})
		if got.sc["status"] != "pending" {
			break
		}
	}
	if got.sc["status"] != "ok" || got.sc["value"] != "'finished'" || got.sc["execution_id"] != id {
		t.Fatalf("%s", got.text)
	}
}

func TestProgressWhileWaiting(t *testing.T) {
	s := start(t, newHome(t, nil))
	s.callCtx(t, context.Background(), "run_python", map[string]any{"code": "import time\ntime.sleep(5)"}, "tok-e2e")
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, note := range s.notes {
		if note.Method == "notifications/progress" && note.Params.AdditionalFields["progressToken"] == "tok-e2e" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no progress notifications while a 5-second run was waited for")
	}
}

func TestCancellationKillsTheRun(t *testing.T) {
	home := newHome(t, nil)
	s := start(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		proctest.WaitFound("sleep\x003003", 30*time.Second)
		cancel()
	}()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "run_python"
	req.Params.Arguments = map[string]any{"code": "import subprocess\nsubprocess.run(['sleep', '3003'])"}
	if _, err := s.c.CallTool(ctx, req); err == nil {
		t.Fatal("the call was not cancelled")
	}
	waitGone(t, filepath.Join(home, "runs"), "the cancelled run's Python")
	waitGone(t, "sleep\x003003", "the cancelled run's sleep")
	// The server carries on.
	if a := s.call(t, "run_python", map[string]any{"code": "'still here'"}); a.sc["value"] != "'still here'" {
		t.Fatalf("%s", a.text)
	}
}

func TestJournalHoldsTheCode(t *testing.T) {
	home := newHome(t, nil)
	s := start(t, home)
	s.call(t, "run_python", map[string]any{"code": "print('journal me 12345')"})
	files, _ := filepath.Glob(filepath.Join(home, "journal", "*.jsonl"))
	var all string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all += string(b)
	}
	for _, want := range []string{`"kind":"requested"`, `print('journal me 12345')`, `"client":"e2e-client"`, `"kind":"finished"`, `"status":"ok"`} {
		if !strings.Contains(all, want) {
			t.Fatalf("journal lacks %s:\n%s", want, all)
		}
	}
}

func TestRefusals(t *testing.T) {
	s := start(t, newHome(t, nil))
	big := strings.Repeat("#", 1<<20) + "\nprint(1)"
	a := s.call(t, "run_python", map[string]any{"code": big})
	if !a.isError || !strings.Contains(a.text, "at most 1 MiB (1048576 bytes)") {
		t.Fatalf("%s", a.text)
	}
	a = s.call(t, "run_python", map[string]any{"code": "print(1)", "timeout_seconds": "soon"})
	if !a.isError || !strings.Contains(a.text, "timeout_seconds must be a whole number") {
		t.Fatalf("%s", a.text)
	}
	a = s.call(t, "run_python", map[string]any{"code": []any{"print(1)"}})
	if !a.isError || !strings.Contains(a.text, "must be a string of Python code, not a list") {
		t.Fatalf("%s", a.text)
	}
}

func TestHeadlessPolicies(t *testing.T) {
	for _, tc := range []struct{ policy, want string }{
		{"ask", "could not ask the person to approve this code because the PyGate app is not open"},
		{"deny-all", "approval setting is deny-all"},
	} {
		s := start(t, newHome(t, map[string]any{"approval": tc.policy}))
		a := s.call(t, "run_python", map[string]any{"code": "print(1)"})
		if a.sc["status"] != "denied" || !a.isError || !strings.Contains(a.text, tc.want) {
			t.Fatalf("%s: %s", tc.policy, a.text)
		}
	}
}

func TestBrokenSettingsAreLeftAlone(t *testing.T) {
	home := t.TempDir()
	broken := []byte("{\n  \"approval\": \"allow-all\",,\n}\n")
	path := filepath.Join(home, "settings.json")
	os.WriteFile(path, broken, 0o600)
	s := start(t, home)
	// Defaults apply: approval is "ask", and with no window that is a denial.
	a := s.call(t, "run_python", map[string]any{"code": "print(1)"})
	if a.sc["status"] != "denied" {
		t.Fatalf("%s", a.text)
	}
	s.c.Close()
	after, _ := os.ReadFile(path)
	if string(after) != string(broken) {
		t.Fatalf("settings.json changed to %q", after)
	}
	logs, _ := os.ReadFile(filepath.Join(home, "logs", "pygate.log"))
	if !strings.Contains(string(logs), "line 2, column 27") {
		t.Fatalf("the log does not say where settings.json breaks:\n%s", logs)
	}
}

// rawServer starts pygate mcp with plain pipes, for bytes no client sends.
func rawServer(t *testing.T, home string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	cmd := exec.Command(binary, "mcp", "--no-ui")
	cmd.Env = append(os.Environ(), "PYGATE_HOME="+home)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	return cmd, in, sc
}

func readJSON(t *testing.T, sc *bufio.Scanner) map[string]any {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("no more output: %v", sc.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
		t.Fatalf("stdout carried a non-JSON line %q", sc.Text())
	}
	return m
}

func TestParseErrorThenCarryOn(t *testing.T) {
	_, in, sc := rawServer(t, newHome(t, nil))
	io.WriteString(in, "this is not json\n")
	m := readJSON(t, sc)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32700) {
		t.Fatalf("%v", m)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n")
	if m := readJSON(t, sc); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("the server stopped serving after a parse error: %v", m)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"1+1"}}}`+"\n")
	if m := readJSON(t, sc); m["id"] != float64(2) {
		t.Fatalf("%v", m)
	}
}

func TestKillingTheServerLeavesNoPython(t *testing.T) {
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			home := newHome(t, nil)
			cmd, in, sc := rawServer(t, home)
			io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n")
			readJSON(t, sc)
			io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			sleeper := fmt.Sprintf("sleep\x00%d", 3010+i)
			code := fmt.Sprintf(`import subprocess, time\nsubprocess.Popen(['sleep', '%d'])\ntime.sleep(300)`, 3010+i)
			io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"`+code+`"}}}`+"\n")
			if len(proctest.WaitFound(sleeper, 30*time.Second)) == 0 {
				t.Fatal("the run never started")
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			// Python runs in a PID namespace of its own: when it dies, so
			// does everything it started, even if PyGate was killed outright.
			waitGone(t, filepath.Join(home, "runs"), "Python")
			waitGone(t, sleeper, "the process Python started")
		})
	}
}

func TestSandboxThroughMCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("pong"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	code := fmt.Sprintf("import socket\ns = socket.create_connection(('127.0.0.1', %d), timeout=3)\ns.recv(4)", port)

	s := start(t, newHome(t, nil))
	a := s.call(t, "run_python", map[string]any{"code": code})
	if a.sc["status"] != "error" || !strings.Contains(a.text, "network: true") || !strings.Contains(fmt.Sprint(a.sc["sandbox"]), "network namespace") {
		t.Fatalf("without network:\n%s", a.text)
	}
	a = s.call(t, "run_python", map[string]any{"code": code, "network": true})
	if a.sc["status"] != "ok" || a.sc["value"] != "b'pong'" || !strings.Contains(a.text, "network allowed for this run") {
		t.Fatalf("with network under allow-all:\n%s", a.text)
	}

	strict := start(t, newHome(t, map[string]any{"sandbox": "strict"}))
	a = strict.call(t, "run_python", map[string]any{"code": "import os"})
	if a.sc["status"] != "error" || !strings.Contains(a.text, "Importing 'os' is not allowed at PyGate's strict sandbox level") || !strings.Contains(a.text, "statistics") {
		t.Fatalf("strict:\n%s", a.text)
	}
	a = strict.call(t, "run_python", map[string]any{"code": "import math, statistics\nstatistics.median([3, 1, 2])"})
	if a.sc["status"] != "ok" || a.sc["value"] != "2" {
		t.Fatalf("strict allowed imports:\n%s", a.text)
	}
	tools, err := strict.c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "run_python" && !strings.Contains(tool.Description, "Sandbox: strict") {
			t.Fatalf("the description does not tell the truth about the level:\n%s", tool.Description)
		}
	}
}
