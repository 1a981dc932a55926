package approval

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type fakePrompter struct {
	answer Decision
	err    error
	block  bool
	asked  int
}

func (f *fakePrompter) Ask(ctx context.Context, r Request) (Decision, error) {
	f.asked++
	if f.block {
		<-ctx.Done()
		return Decision{}, ctx.Err()
	}
	return f.answer, f.err
}

func newBroker(p Policy, pr Prompter) *Broker {
	return NewBroker(func() Policy { return p }, func() time.Duration { return time.Minute }, pr)
}

func req(client, session string) Request {
	return Request{Client: Client{Name: client, Session: session}, Code: "print(1)", Level: "standard"}
}

func TestPolicies(t *testing.T) {
	clean := req("c", "s1")
	clean.Analysis.Clean = true
	withPkgs := clean
	withPkgs.Packages = []string{"numpy"}
	withNet := clean
	withNet.Network = true
	off := clean
	off.Level = "off"
	flagged := req("c", "s1")

	cases := []struct {
		name    string
		policy  Policy
		r       Request
		allow   bool
		kind    error
		network bool
	}{
		{"allow-all allows", AllowAll, flagged, true, nil, false},
		{"allow-all grants asked network", AllowAll, withNet, true, nil, true},
		{"deny-all denies", DenyAll, clean, false, ErrDenied, false},
		{"ask without a window cannot ask", Ask, clean, false, ErrCouldNotAsk, false},
		{"auto-safe allows clean code", AutoSafe, clean, true, nil, false},
		{"auto-safe asks for flagged code", AutoSafe, flagged, false, ErrCouldNotAsk, false},
		{"auto-safe asks for packages", AutoSafe, withPkgs, false, ErrCouldNotAsk, false},
		{"auto-safe asks for network", AutoSafe, withNet, false, ErrCouldNotAsk, false},
		{"auto-safe asks when sandbox is off", AutoSafe, off, false, ErrCouldNotAsk, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := newBroker(c.policy, nil).Decide(context.Background(), c.r)
			if d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%v)", d.Allow, c.allow, err)
			}
			if c.kind == nil && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.kind != nil {
				if !errors.Is(err, c.kind) {
					t.Fatalf("error %v is not %v", err, c.kind)
				}
				if d.Reason == "" {
					t.Fatal("a denial must carry a sentence for the model")
				}
			}
			if d.Allow && d.Network != c.network {
				t.Fatalf("network = %v, want %v", d.Network, c.network)
			}
		})
	}
}

func TestDenialsSayHowToAllow(t *testing.T) {
	_, err := newBroker(Ask, nil).Decide(context.Background(), req("c", "s"))
	if !strings.Contains(err.Error(), "open PyGate") || !strings.Contains(err.Error(), "allow-all") {
		t.Fatalf("headless ask denial does not say how to allow: %v", err)
	}
	_, err = newBroker(DenyAll, nil).Decide(context.Background(), req("c", "s"))
	if !strings.Contains(err.Error(), "deny-all") || errors.Is(err, ErrCouldNotAsk) {
		t.Fatalf("deny-all denial: %v", err)
	}
}

func TestPersonSaysNoWithReason(t *testing.T) {
	p := &fakePrompter{answer: Decision{Allow: false, Reason: "too risky"}}
	d, err := newBroker(Ask, p).Decide(context.Background(), req("c", "s"))
	if !errors.Is(err, ErrDenied) || errors.Is(err, ErrCouldNotAsk) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(d.Reason, "too risky") || d.By != "person" {
		t.Fatalf("decision = %+v", d)
	}
}

func TestPrompterFailureIsCouldNotAsk(t *testing.T) {
	p := &fakePrompter{err: errors.New("no display")}
	_, err := newBroker(Ask, p).Decide(context.Background(), req("c", "s"))
	if !errors.Is(err, ErrCouldNotAsk) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnansweredRequestIsDeniedAfterTimeout(t *testing.T) {
	p := &fakePrompter{block: true}
	b := NewBroker(func() Policy { return Ask }, func() time.Duration { return 50 * time.Millisecond }, p)
	d, err := b.Decide(context.Background(), req("c", "s"))
	if !errors.Is(err, ErrDenied) || !strings.Contains(d.Reason, "Nobody answered") {
		t.Fatalf("d = %+v, err = %v", d, err)
	}
}

func TestEditedCodeIsWhatRuns(t *testing.T) {
	p := &fakePrompter{answer: Decision{Allow: true, Scope: Once, Code: "print(2)"}}
	d, err := newBroker(Ask, p).Decide(context.Background(), req("c", "s"))
	if err != nil || d.Code != "print(2)" || !d.Edited {
		t.Fatalf("d = %+v, err = %v", d, err)
	}
}

func TestGrants(t *testing.T) {
	p := &fakePrompter{answer: Decision{Allow: true, Scope: ForSession}}
	b := newBroker(Ask, p)
	ctx := context.Background()
	if _, err := b.Decide(ctx, req("c", "s1")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Decide(ctx, req("c", "s1")); err != nil || p.asked != 1 {
		t.Fatalf("session grant not used: asked %d times, err %v", p.asked, err)
	}
	if _, _ = b.Decide(ctx, req("c", "s2")); p.asked != 2 {
		t.Fatal("a session grant must not cover another session")
	}
	net := req("c", "s1")
	net.Network = true
	if _, _ = b.Decide(ctx, net); p.asked != 3 {
		t.Fatal("a grant without network must not cover a network request")
	}

	// 15 minutes: covers other sessions of the same client, then expires.
	now := time.Now()
	b2 := newBroker(Ask, &fakePrompter{answer: Decision{Allow: true, Scope: For15Min}})
	b2.now = func() time.Time { return now }
	b2.Decide(ctx, req("c", "s1"))
	b2.SetPrompter(nil)
	if d, err := b2.Decide(ctx, req("c", "s9")); err != nil || d.By != "grant" {
		t.Fatalf("15-minute grant not used: %+v %v", d, err)
	}
	if _, err := b2.Decide(ctx, req("other", "s9")); err == nil {
		t.Fatal("a grant must not cover another client")
	}
	now = now.Add(GrantDuration + time.Second)
	if _, err := b2.Decide(ctx, req("c", "s1")); !errors.Is(err, ErrCouldNotAsk) {
		t.Fatalf("expired grant still used: %v", err)
	}

	// deny-all beats grants.
	b3 := NewBroker(func() Policy { return DenyAll }, func() time.Duration { return time.Minute }, nil)
	b3.grants = []grant{{client: "c"}}
	if _, err := b3.Decide(ctx, req("c", "s1")); !errors.Is(err, ErrDenied) {
		t.Fatal("deny-all must win over grants")
	}

	b.EndSession("s1")
	p.answer = Decision{Allow: false}
	if _, err := b.Decide(ctx, req("c", "s1")); err == nil {
		t.Fatal("grant survived the end of its session")
	}
}

func TestSHA256(t *testing.T) {
	if got := (Request{Code: "print(1)"}).SHA256(); got != "d287bb7f9d15abdc5b6e98536263815744b6ef21c8f3c839fc434ca70d8efe99" {
		t.Fatalf("SHA256 = %s", got)
	}
}

func TestNeedsAnalysis(t *testing.T) {
	for p, want := range map[Policy]bool{Ask: true, AutoSafe: true, AllowAll: false, DenyAll: false} {
		if got := newBroker(p, nil).NeedsAnalysis(); got != want {
			t.Errorf("%s: %v", p, got)
		}
	}
}
