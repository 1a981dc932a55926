package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/pygate/pygate/app"
	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/internal/launchertest"
	"github.com/pygate/pygate/internal/testenv"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/mcp"
	"github.com/pygate/pygate/runner"
)

// TestMain lets this test binary serve as the sandbox launcher.
func TestMain(m *testing.M) { launchertest.Main(m) }

func TestTrayMenuLabels(t *testing.T) {
	cases := []struct {
		state  State
		status string
		labels []string
	}{
		{State{}, "PyGate: Ready", []string{"Approvals…", "Activity…", "Pause (deny every request)", "Open workspace", "Settings…", "Open logs", "About PyGate", "Quit PyGate"}},
		{State{Waiting: 2, Running: 1}, "PyGate: 2 requests waiting for you", []string{"Approvals (2 waiting)…"}},
		{State{Waiting: 1}, "PyGate: 1 request waiting for you", []string{"Approvals (1 waiting)…"}},
		{State{Running: 3}, "PyGate: Running 3 executions", nil},
		{State{Paused: true}, "PyGate: Paused: all requests are denied", []string{"Resume"}},
		{State{SetupNeeded: true}, "PyGate: Setup needed", nil},
	}
	for _, c := range cases {
		items := MenuItems(c.state)
		if items[0].Label != c.status || !items[0].Disabled {
			t.Errorf("%+v: status line %q", c.state, items[0].Label)
		}
		var labels []string
		for _, it := range items {
			labels = append(labels, it.Label)
		}
		for _, want := range c.labels {
			if !strings.Contains(strings.Join(labels, "|"), want) {
				t.Errorf("%+v: menu %v lacks %q", c.state, labels, want)
			}
		}
		if approvals := items[1]; approvals.Disabled != (c.state.Waiting == 0) {
			t.Errorf("%+v: Approvals… disabled = %v", c.state, approvals.Disabled)
		}
	}
}

// fixture is a real core (real Python, real sandbox) with the ui attached
// to a headless test app.
type fixture struct {
	t    *testing.T
	u    *UI
	conn *mcpConn
}

func newFixture(t *testing.T, settings string) *fixture {
	t.Helper()
	p := app.Paths{Home: t.TempDir()}
	if settings == "" {
		settings = fmt.Sprintf(`{"approval":"ask","python_version":%q}`, testenv.MachinePython())
	}
	os.MkdirAll(p.Home, 0o700)
	os.WriteFile(p.Settings(), []byte(settings), 0o600)
	core, err := app.NewCore(context.Background(), p, "test")
	if err != nil {
		t.Fatal(err)
	}
	a := test.NewTempApp(t)
	u := New(a, core, "test")
	u.Approvals.armDelay = 300 * time.Millisecond
	t.Cleanup(func() { core.Server.Stop(5 * time.Second) })
	return &fixture{t: t, u: u, conn: dialCore(t, core)}
}

// mcpConn is an in-process MCP connection to the core's server.
type mcpConn struct {
	t       *testing.T
	in      *os.File
	replies chan map[string]any
}

func dialCore(t *testing.T, core *app.Core) *mcpConn {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	go func() { core.Server.Serve(context.Background(), inR, outW); outW.Close() }()
	c := &mcpConn{t: t, in: inW, replies: make(chan map[string]any, 64)}
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				close(c.replies)
				return
			}
			if m["id"] != nil {
				c.replies <- m
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"1"}}}`)
	<-c.replies
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *mcpConn) send(line string) { fmt.Fprintln(c.in, line) }

// call starts run_python and returns a channel with its structured answer
// and text.
func (c *mcpConn) call(id int, code string) {
	args, _ := json.Marshal(map[string]any{"code": code})
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_python","arguments":%s}}`, id, args))
}

func (c *mcpConn) answer() (map[string]any, string) {
	select {
	case m := <-c.replies:
		res := m["result"].(map[string]any)
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		return res["structuredContent"].(map[string]any), text
	case <-time.After(60 * time.Second):
		c.t.Fatal("no answer within 60 s")
	}
	return nil, ""
}

// view waits until the approval window shows a request and returns it.
func (f *fixture) view(count int) *approvalView {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var v *approvalView
		fyne.DoAndWait(func() { v = f.u.Approvals.view })
		if v != nil && f.u.Approvals.Waiting() == count {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("the approval window never showed %d request(s)", count)
	return nil
}

func waitArmed(t *testing.T, v *approvalView) {
	deadline := time.Now().Add(5 * time.Second)
	for v.once.Disabled() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if v.once.Disabled() {
		t.Fatal("the buttons never became active")
	}
}

func TestButtonsAreInactiveAtFirst(t *testing.T) {
	f := newFixture(t, "")
	f.conn.call(1, "1")
	v := f.view(1)
	for _, b := range []fyne.Disableable{v.deny, v.once, v.session, v.quarter, v.edit} {
		if !b.Disabled() {
			t.Fatal("a decision button was active the moment the window appeared")
		}
	}
	waitArmed(t, v)
	if f.u.Approvals.win.Canvas().Focused() != v.deny {
		t.Fatal("Deny is not the default (focused) button")
	}
	test.Tap(v.deny)
	f.conn.answer()
}

func TestAllowOnceRunsTheCode(t *testing.T) {
	f := newFixture(t, "")
	f.conn.call(1, "print('allowed!')\n21 * 2")
	v := f.view(1)
	if !strings.Contains(v.p.req.Code, "allowed!") || v.p.req.Client.Name != "claude-ai" {
		t.Fatalf("window shows %+v", v.p.req)
	}
	waitArmed(t, v)
	test.Tap(v.once)
	sc, text := f.conn.answer()
	if sc["status"] != "ok" || sc["value"] != "42" || !strings.Contains(text, "allowed!") {
		t.Fatalf("%v\n%s", sc, text)
	}
}

func TestDenyWithReasonTellsTheModel(t *testing.T) {
	f := newFixture(t, "")
	f.conn.call(1, "import os\nos.system('echo hi')")
	v := f.view(1)
	if chips := strings.Join(v.p.req.Analysis.Chips(), ","); !strings.Contains(chips, "runs programs") {
		t.Fatalf("chips %s", chips)
	}
	waitArmed(t, v)
	test.Type(v.reason, "please do not run shell commands")
	test.Tap(v.deny)
	sc, text := f.conn.answer()
	if sc["status"] != "denied" || !strings.Contains(text, "The person declined") || !strings.Contains(text, "please do not run shell commands") {
		t.Fatalf("%v\n%s", sc, text)
	}
}

func TestEditedCodeIsWhatRuns(t *testing.T) {
	f := newFixture(t, "")
	f.conn.call(1, "'original'")
	v := f.view(1)
	waitArmed(t, v)
	test.Tap(v.edit)
	v.editor.SetText("'edited by the person'")
	test.Tap(v.once)
	sc, text := f.conn.answer()
	if sc["value"] != "'edited by the person'" || sc["edited"] != true || !strings.Contains(text, "The person edited the code") {
		t.Fatalf("%v\n%s", sc, text)
	}
}

func TestCountdownExpiryDenies(t *testing.T) {
	f := newFixture(t, fmt.Sprintf(`{"approval":"ask","python_version":%q,"approval_timeout_seconds":10}`, testenv.MachinePython()))
	f.conn.call(1, "1")
	v := f.view(1)
	if !strings.HasPrefix(v.timer.Text, "Denied automatically in 0:") {
		t.Fatalf("countdown reads %q", v.timer.Text)
	}
	sc, text := f.conn.answer()
	if sc["status"] != "denied" || !strings.Contains(text, "Nobody answered") {
		t.Fatalf("%v\n%s", sc, text)
	}
	fyne.DoAndWait(func() {})
	if f.u.Approvals.Waiting() != 0 || f.u.Approvals.win.Content().Visible() && f.u.Approvals.view != nil {
		t.Fatal("the expired request is still shown")
	}
}

func TestQueuedRequestsShowOneAtATime(t *testing.T) {
	f := newFixture(t, "")
	for i := 1; i <= 3; i++ {
		f.conn.call(i, fmt.Sprintf("'request %d'", i))
	}
	v := f.view(3)
	if v.position.Text != "1 of 3" {
		t.Fatalf("position %q", v.position.Text)
	}
	first := v.p.req.Code
	waitArmed(t, v)
	test.Tap(v.once)
	v2 := f.view(2)
	if v2 == v || v2.p.req.Code == first || v2.position.Text != "1 of 2" {
		t.Fatalf("after one decision the window shows %q at %q", v2.p.req.Code, v2.position.Text)
	}
	if !v2.once.Disabled() {
		t.Fatal("the next request's buttons were active at once")
	}
	waitArmed(t, v2)
	test.Tap(v2.deny)
	v3 := f.view(1)
	waitArmed(t, v3)
	test.Tap(v3.deny)
	got := map[string]bool{}
	for i := 0; i < 3; i++ {
		sc, _ := f.conn.answer()
		got[fmt.Sprint(sc["status"])] = true
	}
	if !got["ok"] || !got["denied"] {
		t.Fatalf("statuses %v", got)
	}
}

func TestFinishedExecutionAppearsInActivity(t *testing.T) {
	f := newFixture(t, fmt.Sprintf(`{"approval":"allow-all","python_version":%q}`, testenv.MachinePython()))
	f.conn.call(1, "print('visible in activity')\n'done'")
	f.conn.answer()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rows := f.u.Activity.Rows()
		if len(rows) == 1 && rows[0].Status == "ok" && rows[0].Result != nil {
			if rows[0].Result.Stdout != "visible in activity\n" || rows[0].Client != "claude-ai" || !strings.Contains(rows[0].Sandbox, "standard") {
				t.Fatalf("%+v", rows[0])
			}
			fyne.DoAndWait(f.u.Activity.Show)
			if f.u.Activity.list.Length() != 1 {
				t.Fatal("the list does not show the execution")
			}
			md := ExportMarkdown(rows)
			if !strings.Contains(md, "visible in activity") || !strings.Contains(md, "```python") {
				t.Fatalf("markdown export:\n%s", md)
			}
			if js, err := ExportJSON(rows); err != nil || !strings.Contains(string(js), `"execution_id"`) {
				t.Fatalf("json export: %v", err)
			}
			if len(f.u.Activity.Rows()) != 1 {
				t.Fatal("search changed the rows")
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("activity rows: %+v", f.u.Activity.Rows())
}

func TestSettingsWindowSavesValidatedValues(t *testing.T) {
	f := newFixture(t, "")
	fyne.DoAndWait(f.u.Settings.Show)
	w := f.u.Settings
	w.memory.SetText("lots")
	w.save()
	if !strings.Contains(w.status.Text, "Memory limit must be a whole number") {
		t.Fatalf("status %q", w.status.Text)
	}
	w.memory.SetText("4096")
	w.sandbox.SetSelected("strict")
	w.save()
	if !strings.HasPrefix(w.status.Text, "Saved") {
		t.Fatalf("status %q", w.status.Text)
	}
	s := f.u.Core.Settings()
	if s.MemoryMB != 4096 || s.Sandbox != runner.Strict {
		t.Fatalf("settings %+v", s)
	}
	// A new connection reads the new truth in run_python's description.
	c := dialCore(t, f.u.Core)
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	list := <-c.replies
	desc := fmt.Sprint(list["result"])
	if !strings.Contains(desc, "Sandbox: strict") || !strings.Contains(desc, "Memory limit: 4096 MB") {
		t.Fatalf("tools/list after the change: %.300s", desc)
	}
	w.timeout.SetText("0")
	w.save()
	if !strings.Contains(w.status.Text, "timeout_seconds") || f.u.Core.Settings().TimeoutSeconds == 0 {
		t.Fatalf("status %q", w.status.Text)
	}
}

// Guard the types the tests lean on.
var (
	_ approval.Prompter = (*Approvals)(nil)
	_                   = mcp.Output{}
)

func TestActivityFoldsEvents(t *testing.T) {
	a := NewActivity()
	yes := true
	now := time.Now()
	a.Apply(journal.Event{Kind: journal.Requested, Execution: "old", Time: now.Add(-time.Minute), Client: "claude-ai", Code: "\n\nprint('old')"})
	a.Apply(journal.Event{Kind: journal.Requested, Execution: "new", Time: now, Client: "cursor", Code: "for i in range(3):\n    print(i)"})
	a.Apply(journal.Event{Kind: journal.Decided, Execution: "new", Allowed: &yes, DecidedBy: "person", Scope: "once", Analysis: []string{"nothing flagged"}})
	a.Apply(journal.Event{Kind: journal.Started, Execution: "new", Sandbox: "standard (Landlock)"})
	a.Apply(journal.Event{Kind: journal.Output, Execution: "new", Stream: "stdout", Text: "0\n1\n"})
	rows := a.List("")
	if len(rows) != 2 || rows[0].ID != "new" || rows[0].Status != "running" || rows[0].LiveStdout != "0\n1\n" || rows[0].Decision != "allowed by person (once)" {
		t.Fatalf("%+v", rows)
	}
	if rows[1].FirstLine(40) != "print('old')" {
		t.Fatalf("first line %q", rows[1].FirstLine(40))
	}
	if got := a.List("CURSOR"); len(got) != 1 || got[0].ID != "new" {
		t.Fatalf("search: %+v", got)
	}
	a.Apply(journal.Event{Kind: journal.Finished, Execution: "new", Status: "ok", Result: []byte(`{"execution_id":"new","status":"ok","stdout":"0\n1\n2\n","duration_ms":1500}`)})
	if r := a.List("")[0]; r.Status != "ok" || r.Result.Stdout != "0\n1\n2\n" || r.Duration != 1500*time.Millisecond {
		t.Fatalf("%+v", r)
	}
}
