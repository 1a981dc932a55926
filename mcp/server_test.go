package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/internal/launchertest"
	"github.com/pygate/pygate/internal/testenv"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/runner"
)

// TestMain lets this test binary serve as the sandbox launcher.
func TestMain(m *testing.M) { launchertest.Main(m) }

func newTestServer(t *testing.T, policy approval.Policy, answerWithin time.Duration) (*Server, *journal.Store) {
	t.Helper()
	home := t.TempDir()
	uv := runner.FindUV(filepath.Join(home, "uv"))
	if uv == "" {
		t.Fatal("uv is not installed: run `make test`, which installs it")
	}
	store, err := journal.Open(filepath.Join(home, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{DefaultTimeout: 30 * time.Second, MaxTimeout: 600 * time.Second, AnswerWithin: answerWithin, MemoryMB: 2048, Level: runner.Standard}
	s := New(Options{
		Version: "test",
		Runner: runner.New(runner.Config{
			RunsDir:  filepath.Join(home, "runs"),
			Pythons:  runner.NewPythons(filepath.Join(home, "uv"), uv, testenv.MachinePython),
			UserHome: filepath.Join(home, "user"),
		}),
		Broker:  approval.NewBroker(func() approval.Policy { return policy }, func() time.Duration { return time.Minute }, nil),
		Journal: store,
		Limits:  func() Limits { return lim },
		Workspace: func(c string) string {
			return filepath.Join(home, "workspaces", c)
		},
	})
	s.progressEvery = 50 * time.Millisecond
	t.Cleanup(func() { s.Stop(5 * time.Second) })
	return s, store
}

// conn is a raw JSON-RPC client on an in-process connection.
type conn struct {
	t     *testing.T
	w     io.Writer
	lines chan map[string]any
}

func connect(t *testing.T, s *Server, client string) *conn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { s.Serve(context.Background(), inR, outW); outW.Close() }()
	c := &conn{t: t, w: inW, lines: make(chan map[string]any, 1000)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a non-JSON line: %q", sc.Text())
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	c.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": client, "version": "1.0"}}})
	c.until(0)
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *conn) send(m any) {
	b, _ := json.Marshal(m)
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// until reads messages until the response with id, returning it and the
// notifications seen before it.
func (c *conn) until(id float64) (map[string]any, []map[string]any) {
	var notes []map[string]any
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatal("connection closed")
			}
			if m["id"] == id && m["method"] == nil {
				return m, notes
			}
			if m["method"] != nil {
				notes = append(notes, m)
			}
		case <-timeout:
			c.t.Fatalf("no response %v within 60 s", id)
		}
	}
}

func (c *conn) call(id int, tool string, args map[string]any, token any) (map[string]any, []map[string]any) {
	params := map[string]any{"name": tool, "arguments": args}
	if token != nil {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	resp, notes := c.until(float64(id))
	return resp, notes
}

func structured(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in %v", resp)
	}
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent in %v", res)
	}
	return sc
}

func TestThreeConnectionsGetOnlyTheirOwnProgress(t *testing.T) {
	s, _ := newTestServer(t, approval.AllowAll, 30*time.Second)
	var wg sync.WaitGroup
	for _, name := range []string{"alpha", "beta", "gamma"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := connect(t, s, "client-"+name)
			resp, notes := c.call(7, "run_python", map[string]any{"code": "import time\ntime.sleep(1)\n'" + name + "'"}, "tok-"+name)
			sc := structured(t, resp)
			if sc["status"] != "ok" || sc["value"] != "'"+name+"'" {
				t.Errorf("%s: %v", name, sc)
			}
			progress := 0
			for _, n := range notes {
				if n["method"] != "notifications/progress" {
					continue
				}
				progress++
				tok := n["params"].(map[string]any)["progressToken"]
				if tok != "tok-"+name {
					t.Errorf("connection %s received progress for %v", name, tok)
				}
			}
			if progress == 0 {
				t.Errorf("connection %s received no progress notifications", name)
			}
		}()
	}
	wg.Wait()
}

func TestClientNameIsRecordedAndUsedForTheWorkspace(t *testing.T) {
	s, store := newTestServer(t, approval.AllowAll, 30*time.Second)
	c := connect(t, s, "claude-ai")
	resp, _ := c.call(1, "run_python", map[string]any{"code": "import os\nos.path.basename(os.getcwd())"}, nil)
	if v := structured(t, resp)["value"]; v != "'claude-ai'" {
		t.Fatalf("workspace %v", v)
	}
	clients := map[journal.Kind]string{}
	store.ReadAll(func(e journal.Event) error { clients[e.Kind] = e.Client; return nil })
	for _, k := range []journal.Kind{journal.Requested, journal.Decided, journal.Started, journal.Finished} {
		if clients[k] != "claude-ai" {
			t.Fatalf("journal %s event has client %q", k, clients[k])
		}
	}
}

func TestPendingThenGetResult(t *testing.T) {
	s, _ := newTestServer(t, approval.AllowAll, 300*time.Millisecond)
	c := connect(t, s, "c")
	resp, _ := c.call(1, "run_python", map[string]any{"code": "import time\ntime.sleep(1.5)\n'done'"}, nil)
	sc := structured(t, resp)
	if sc["status"] != "pending" || resp["result"].(map[string]any)["isError"] == true {
		t.Fatalf("first answer %v", sc)
	}
	id := sc["execution_id"].(string)
	text := resp["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, "get_result") || !strings.Contains(text, id) {
		t.Fatalf("pending text does not tell the model what to do: %s", text)
	}
	resp, _ = c.call(2, "get_result", map[string]any{"execution_id": id, "wait_seconds": 30}, nil)
	if sc := structured(t, resp); sc["status"] != "ok" || sc["value"] != "'done'" {
		t.Fatalf("get_result %v", sc)
	}
	resp, _ = c.call(3, "get_result", map[string]any{"execution_id": "nope"}, nil)
	if sc := structured(t, resp); sc["status"] != "error" || !strings.Contains(sc["message"].(string), "no execution") {
		t.Fatalf("unknown id %v", sc)
	}
	// Another client cannot read this client's result.
	other := connect(t, s, "someone-else")
	resp, _ = other.call(1, "get_result", map[string]any{"execution_id": id, "wait_seconds": 0}, nil)
	if sc := structured(t, resp); sc["status"] != "error" {
		t.Fatalf("another client read the result: %v", sc)
	}
}

func TestCancelledNotificationKillsTheRun(t *testing.T) {
	s, store := newTestServer(t, approval.AllowAll, 30*time.Second)
	c := connect(t, s, "c")
	c.send(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": map[string]any{
		"name": "run_python", "arguments": map[string]any{"code": "import time\ntime.sleep(60)"}}})
	// Wait until Python has started, then cancel.
	deadline := time.Now().Add(20 * time.Second)
	for started := false; !started; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started")
		}
		store.ReadAll(func(e journal.Event) error { started = started || e.Kind == journal.Started; return nil })
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 5, "reason": "user pressed stop"}})
	resp, _ := c.until(5)
	if sc := structured(t, resp); sc["status"] != "cancelled" {
		t.Fatalf("status %v", sc["status"])
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("cancelling took %s", time.Since(start))
	}
}

func TestArgumentsAreCheckedPlainly(t *testing.T) {
	s, _ := newTestServer(t, approval.AllowAll, 30*time.Second)
	c := connect(t, s, "c")
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "needs the argument code"},
		{map[string]any{"code": 42}, "must be a string of Python code, not a number"},
		{map[string]any{"code": "   "}, "is empty"},
		{map[string]any{"code": strings.Repeat("x", MaxCode+1)}, "at most 1 MiB"},
		{map[string]any{"code": "1", "timeout_seconds": "ten"}, "whole number of seconds from 1 to 600"},
		{map[string]any{"code": "1", "timeout_seconds": 9999}, "must be from 1 to 600"},
		{map[string]any{"code": "1", "packages": "numpy"}, "must be a list of strings"},
		{map[string]any{"code": "1", "packages": []any{"-e ."}}, "not a PyPI package name"},
		{map[string]any{"code": "1", "network": "yes"}, "must be true or false"},
		{map[string]any{"code": "1", "cwd": "/"}, "has no argument \"cwd\""},
	}
	for i, tc := range cases {
		resp, _ := c.call(100+i, "run_python", tc.args, nil)
		res := resp["result"].(map[string]any)
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		if res["isError"] != true || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError %v, text %q; want %q", tc.args, res["isError"], text, tc.want)
		}
	}
}

func TestAnswersStayUnderTheLimit(t *testing.T) {
	s, _ := newTestServer(t, approval.AllowAll, 60*time.Second)
	c := connect(t, s, "c")
	// Control characters expand sixfold in JSON; the answer must still fit.
	resp, _ := c.call(1, "run_python", map[string]any{"code": "import sys\nsys.stdout.write('\\x01' * 3_000_000)\nsys.stderr.write('\\x02' * 3_000_000)"}, nil)
	b, _ := json.Marshal(resp["result"])
	if len(b) >= MaxAnswer {
		t.Fatalf("answer is %d characters", len(b))
	}
	sc := structured(t, resp)
	tr := sc["truncated"].(map[string]any)
	if tr["stdout"] != true || tr["stderr"] != true {
		t.Fatalf("truncated %v", tr)
	}
}

func TestHeadlessDenials(t *testing.T) {
	for _, tc := range []struct {
		policy approval.Policy
		want   string
	}{
		{approval.Ask, "not open"},
		{approval.DenyAll, "deny-all"},
	} {
		s, _ := newTestServer(t, tc.policy, 30*time.Second)
		c := connect(t, s, "c")
		resp, _ := c.call(1, "run_python", map[string]any{"code": "print(1)"}, nil)
		sc := structured(t, resp)
		if sc["status"] != "denied" || !strings.Contains(sc["message"].(string), tc.want) || resp["result"].(map[string]any)["isError"] != true {
			t.Fatalf("%s: %v", tc.policy, sc)
		}
	}
}

func TestAutoSafeRunsOnlyCleanCode(t *testing.T) {
	s, store := newTestServer(t, approval.AutoSafe, 30*time.Second)
	c := connect(t, s, "c")
	resp, _ := c.call(1, "run_python", map[string]any{"code": "import math\nmath.factorial(5)"}, nil)
	if sc := structured(t, resp); sc["status"] != "ok" || sc["value"] != "120" {
		t.Fatalf("clean code under auto-safe: %v", sc)
	}
	resp, _ = c.call(2, "run_python", map[string]any{"code": "import os\nos.system('true')"}, nil)
	if sc := structured(t, resp); sc["status"] != "denied" || !strings.Contains(sc["message"].(string), "could not ask") {
		t.Fatalf("flagged code under auto-safe with nobody to ask: %v", sc)
	}
	var chips []string
	store.ReadAll(func(e journal.Event) error {
		if e.Kind == journal.Decided {
			chips = append(chips, strings.Join(e.Analysis, "+"))
		}
		return nil
	})
	if len(chips) != 2 || chips[0] != "nothing flagged" || chips[1] != "runs programs" {
		t.Fatalf("journaled analysis %v", chips)
	}
}
