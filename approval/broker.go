// Package approval decides whether an execution may run. It owns the
// approval policies, the grants a person gives ("allow for this session",
// "allow for 15 minutes"), and the Prompter interface that the windows
// implement. The broker fails closed: when nobody can be asked, the answer is
// no, and that answer is kept apart from a person saying no.
package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Policy is the approval setting.
type Policy string

// The approval policies.
const (
	Ask      Policy = "ask"
	AutoSafe Policy = "auto-safe"
	AllowAll Policy = "allow-all"
	DenyAll  Policy = "deny-all"
)

// Policies lists every policy, in the order they are offered to people.
var Policies = []Policy{Ask, AutoSafe, AllowAll, DenyAll}

// Scope says how far an allow reaches.
type Scope string

// The scopes of an allow.
const (
	Once       Scope = "once"
	ForSession Scope = "session"
	For15Min   Scope = "15-minutes"
)

// GrantDuration is how long a For15Min grant lasts.
const GrantDuration = 15 * time.Minute

// The two kinds of "no". Errors returned by Decide wrap exactly one of them.
var (
	// ErrDenied: the person, or a policy they chose, said no.
	ErrDenied = errors.New("denied")
	// ErrCouldNotAsk: nobody could be asked, so PyGate refused on their behalf.
	ErrCouldNotAsk = errors.New("could not ask")
)

// Client identifies who asks: the MCP client's name and version, and the
// connection (session) the request came on.
type Client struct {
	Name    string
	Version string
	Session string
}

// Request is everything a person needs to decide.
type Request struct {
	Client   Client
	Code     string
	Packages []string
	Network  bool
	Timeout  time.Duration
	Level    string // sandbox level the run will use
	Analysis Analysis
	// SandboxProblem says why the level's sandbox cannot be set up on this
	// computer; the window then offers to run this one execution without it.
	SandboxProblem string
}

// SHA256 is the hex digest of the exact code, as shown and journaled.
func (r Request) SHA256() string {
	sum := sha256.Sum256([]byte(r.Code))
	return hex.EncodeToString(sum[:])
}

// Decision is the broker's answer.
type Decision struct {
	Allow   bool
	Scope   Scope
	Reason  string // for the model; a person's reason when they gave one
	Code    string // the code to run: the request's, or the person's edit
	Edited  bool
	Network bool   // whether the run may use the network
	By      string // "policy", "grant" or "person"
	// Unsandboxed: the person explicitly chose to run this one execution
	// without the sandbox, which could not be set up.
	Unsandboxed bool
}

// Prompter asks a person. Ask blocks until they answer or ctx ends; an error
// means they could not be asked (no window could be shown).
type Prompter interface {
	Ask(ctx context.Context, r Request) (Decision, error)
}

// Broker decides requests: deny-all, then active grants, then the policy,
// then the Prompter.
type Broker struct {
	policy   func() Policy
	prompter Prompter
	timeout  func() time.Duration
	now      func() time.Time

	mu     sync.Mutex
	grants []grant
}

type grant struct {
	client  string // client name
	session string // set for ForSession grants
	until   time.Time
	network bool
}

// NewBroker returns a broker. policy and timeout are read on every request
// so settings changes apply at once; prompter may be nil (headless).
func NewBroker(policy func() Policy, timeout func() time.Duration, prompter Prompter) *Broker {
	return &Broker{policy: policy, timeout: timeout, prompter: prompter, now: time.Now}
}

// SetPrompter attaches or detaches (nil) the window that asks the person.
func (b *Broker) SetPrompter(p Prompter) {
	b.mu.Lock()
	b.prompter = p
	b.mu.Unlock()
}

// Decide answers r. A denial returns the Decision (with its Reason) and an
// error wrapping ErrDenied or ErrCouldNotAsk.
func (b *Broker) Decide(ctx context.Context, r Request) (Decision, error) {
	allow := func(by string, scope Scope) (Decision, error) {
		return Decision{Allow: true, Scope: scope, Code: r.Code, Network: r.Network, By: by}, nil
	}
	policy := b.policy()
	switch policy {
	case DenyAll:
		return deny(ErrDenied, "policy",
			"PyGate's approval setting is deny-all, so no code runs. To run code, open PyGate and choose Resume, or change the approval setting.")
	}
	if b.granted(r) {
		return allow("grant", Once)
	}
	switch policy {
	case AllowAll:
		return allow("policy", Once)
	case AutoSafe:
		if r.Analysis.Clean && len(r.Packages) == 0 && !r.Network && r.Level != "off" {
			return allow("policy", Once)
		}
	}

	b.mu.Lock()
	p := b.prompter
	b.mu.Unlock()
	if p == nil {
		return deny(ErrCouldNotAsk, "policy",
			"PyGate could not ask the person to approve this code because the PyGate app is not open. Ask them to open PyGate (or set its approval setting to allow-all) and then try again.")
	}
	timeout := b.timeout()
	askCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d, err := p.Ask(askCtx, r)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return deny(ErrDenied, "person", "The request was withdrawn before the person answered.")
	case askCtx.Err() != nil:
		return deny(ErrDenied, "person", fmt.Sprintf(
			"Nobody answered the approval request within %s, so the code did not run. Try again when the person is at their computer.",
			humanDuration(timeout)))
	default:
		return deny(fmt.Errorf("%w: %w", ErrCouldNotAsk, err), "person",
			"PyGate could not show its approval window, so the code did not run. Ask the person to open PyGate and try again.")
	}
	d.By = "person"
	if !d.Allow {
		reason := "The person declined to run this code."
		if d.Reason != "" {
			reason += " Their reason: " + d.Reason
		}
		d.Reason = reason
		return d, fmt.Errorf("%w by the person", ErrDenied)
	}
	if d.Code == "" {
		d.Code = r.Code
	}
	d.Edited = d.Code != r.Code
	b.remember(r, d)
	return d, nil
}

func deny(kind error, by, reason string) (Decision, error) {
	return Decision{Allow: false, Reason: reason, By: by}, fmt.Errorf("%w: %s", kind, reason)
}

// granted reports whether an unexpired grant covers r. A grant given without
// network never covers a request for network.
func (b *Broker) granted(r Request) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	kept := b.grants[:0]
	ok := false
	for _, g := range b.grants {
		if !g.until.IsZero() && now.After(g.until) {
			continue
		}
		kept = append(kept, g)
		if g.client == r.Client.Name && (g.session == "" || g.session == r.Client.Session) && (g.network || !r.Network) {
			ok = true
		}
	}
	b.grants = kept
	return ok
}

func (b *Broker) remember(r Request, d Decision) {
	g := grant{client: r.Client.Name, network: d.Network}
	switch d.Scope {
	case ForSession:
		g.session = r.Client.Session
	case For15Min:
		g.until = b.now().Add(GrantDuration)
	default:
		return
	}
	b.mu.Lock()
	b.grants = append(b.grants, g)
	b.mu.Unlock()
}

// NeedsAnalysis reports whether a decision may look at the code's static
// analysis: with allow-all and deny-all it does not, and PyGate saves the
// time of analysing.
func (b *Broker) NeedsAnalysis() bool {
	p := b.policy()
	return p == Ask || p == AutoSafe
}

// EndSession drops the grants given for one client session.
func (b *Broker) EndSession(session string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.grants[:0]
	for _, g := range b.grants {
		if g.session == "" || g.session != session {
			kept = append(kept, g)
		}
	}
	b.grants = kept
}

// RevokeAll drops every grant (used when the person pauses PyGate).
func (b *Broker) RevokeAll() {
	b.mu.Lock()
	b.grants = nil
	b.mu.Unlock()
}

func humanDuration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	default:
		return fmt.Sprintf("%d seconds", int(d.Round(time.Second)/time.Second))
	}
}
