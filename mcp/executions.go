package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/journal"
	"github.com/pygate/pygate/runner"
)

// keepFinished is how long a finished execution's result stays available
// to get_result.
const keepFinished = 24 * time.Hour

// phase is where an execution is.
type phase string

const (
	phaseApproval phase = "waiting for the person to approve it"
	phaseRunning  phase = "running"
	phaseDone     phase = "finished"
)

// execution is one run_python call's work. It outlives the tool call that
// started it when the answer is pending.
type execution struct {
	id      string
	client  approval.Client
	request approval.Request
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}

	mu       sync.Mutex
	phase    phase
	decision approval.Decision
	denied   error
	setupErr error
	result   *runner.Result
	finished time.Time
}

// sandbox is what the run's sandbox enforced, or "" if it never ran.
func (e *execution) sandbox() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.result == nil {
		return ""
	}
	return e.result.Sandbox
}

func (e *execution) state() phase {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.phase
}

func (e *execution) setPhase(p phase) {
	e.mu.Lock()
	e.phase = p
	e.mu.Unlock()
}

// executions tracks the executions of one server.
type executions struct {
	mu   sync.Mutex
	byID map[string]*execution
}

func newExecutions() *executions { return &executions{byID: map[string]*execution{}} }

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (x *executions) add(e *execution) {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Now()
	for id, old := range x.byID {
		old.mu.Lock()
		expired := !old.finished.IsZero() && now.Sub(old.finished) > keepFinished
		old.mu.Unlock()
		if expired {
			delete(x.byID, id)
		}
	}
	x.byID[e.id] = e
}

func (x *executions) get(id string) *execution {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.byID[id]
}

// endSession stops the executions a closed connection started: nobody is
// left to receive their results.
func (x *executions) endSession(session string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range x.byID {
		if e.client.Session == session {
			e.cancel()
		}
	}
}

// start begins an execution: approval, then the run, journaling each step.
// It returns at once; e.done closes when the execution has ended.
func (s *Server) start(req approval.Request, spec runner.Spec) *execution {
	ctx, cancel := context.WithCancel(context.Background())
	e := &execution{
		id:      spec.ID,
		client:  req.Client,
		request: req,
		started: time.Now(),
		cancel:  cancel,
		done:    make(chan struct{}),
		phase:   phaseApproval,
	}
	s.execs.add(e)
	s.record(journal.Event{
		Kind: journal.Requested, Execution: e.id, Client: req.Client.Name,
		Code: req.Code, Packages: req.Packages, Network: req.Network, Timeout: int(spec.Timeout / time.Second),
	})
	go func() {
		defer close(e.done)
		defer cancel()
		s.execute(ctx, e, spec)
		e.mu.Lock()
		e.phase, e.finished = phaseDone, time.Now()
		e.mu.Unlock()
		s.record(journal.Event{
			Kind: journal.Finished, Execution: e.id, Client: req.Client.Name,
			Status: string(e.status()), Sandbox: e.sandbox(), Result: s.journalResult(e),
		})
	}()
	return e
}

func (s *Server) execute(ctx context.Context, e *execution, spec runner.Spec) {
	if s.broker.NeedsAnalysis() {
		if py, err := s.runner.Pythons.Base(ctx); err == nil {
			e.request.Analysis = approval.Analyze(ctx, py.Path, e.request.Code)
		} else {
			e.request.Analysis = approval.Analysis{Problem: "no Python was found to analyse it with"}
		}
	}
	if err := runner.Ready(spec.Level); err != nil {
		e.request.SandboxProblem = err.Error()
	}
	d, err := s.broker.Decide(ctx, e.request)
	allowed := err == nil && d.Allow
	s.record(journal.Event{
		Kind: journal.Decided, Execution: e.id, Client: e.client.Name,
		Allowed: &allowed, Scope: string(d.Scope), Reason: d.Reason, DecidedBy: d.By, Edited: d.Edited,
		Code: editedCode(d), Analysis: analysisChips(e.request.Analysis),
	})
	e.mu.Lock()
	e.decision = d
	if !allowed {
		e.denied = err
		if err == nil {
			e.denied = approval.ErrDenied
		}
	}
	e.mu.Unlock()
	if !allowed {
		return
	}
	if ctx.Err() != nil {
		return
	}
	spec.Code = d.Code
	spec.Network = d.Network
	if d.Unsandboxed && d.By == "person" {
		spec.Level = runner.Off
	}
	e.setPhase(phaseRunning)
	live := newOutputJournal(s, e.id, e.client.Name)
	spec.OnOutput = live.add
	defer live.flush()
	res, err := s.runner.Run(ctx, spec, func(py runner.Interpreter, sandbox string) {
		s.record(journal.Event{Kind: journal.Started, Execution: e.id, Client: e.client.Name, Python: py.Version, Sandbox: sandbox})
	})
	e.mu.Lock()
	e.result, e.setupErr = res, err
	e.mu.Unlock()
	if err != nil {
		slog.Info("execution could not start", "id", e.id, "err", err)
	}
}

func editedCode(d approval.Decision) string {
	if d.Edited {
		return d.Code
	}
	return ""
}

// status is the execution's status as the model sees it.
func (e *execution) status() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.phase != phaseDone:
		return "pending"
	case e.denied != nil:
		return "denied"
	case e.setupErr != nil:
		return "error"
	case e.result != nil:
		return string(e.result.Status)
	default:
		return "cancelled"
	}
}

func (s *Server) record(ev journal.Event) {
	if s.journal == nil {
		return
	}
	if err := s.journal.Append(ev); err != nil {
		slog.Error("journal append", "err", err)
	}
}

// journalResult is the structured result as kept in the journal (no images).
func (s *Server) journalResult(e *execution) json.RawMessage {
	out := buildOutput(e, limits{stdout: 20000, stderr: 20000})
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// Stop cancels every execution and waits up to timeout for them to end.
func (s *Server) Stop(timeout time.Duration) {
	s.execs.mu.Lock()
	var all []*execution
	for _, e := range s.execs.byID {
		all = append(all, e)
	}
	s.execs.mu.Unlock()
	deadline := time.After(timeout)
	for _, e := range all {
		e.cancel()
	}
	for _, e := range all {
		select {
		case <-e.done:
		case <-deadline:
			return
		}
	}
}

// Cancel stops one execution: a waiting approval is withdrawn, a running
// one is killed. It reports whether the execution was found.
func (s *Server) Cancel(id string) bool {
	e := s.execs.get(id)
	if e == nil {
		return false
	}
	e.cancel()
	return true
}

// Counts reports how many executions wait for approval and how many run.
func (s *Server) Counts() (waiting, running int) {
	s.execs.mu.Lock()
	defer s.execs.mu.Unlock()
	for _, e := range s.execs.byID {
		switch e.state() {
		case phaseApproval:
			waiting++
		case phaseRunning:
			running++
		}
	}
	return waiting, running
}

// analysisChips are the chips to journal, none when no analysis ran.
func analysisChips(a approval.Analysis) []string {
	if !a.Analysed && a.Problem == "" {
		return nil
	}
	return a.Chips()
}
