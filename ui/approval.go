package ui

// Rules of this file: the approval window. It implements approval.Prompter:
// requests queue and are shown one at a time; nothing is allowed by
// accident (Deny is the focused default, the buttons wake up only after a
// moment, closing the window denies); widgets are touched only through
// fyne.Do. The broker owns the decision; this file only asks.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/pygate/pygate/approval"
)

// ArmDelay is how long the decision buttons stay inactive after a request
// appears, so a click meant for another window cannot approve it.
const ArmDelay = time.Second

// Approvals asks the person about each request in a window.
type Approvals struct {
	app      fyne.App
	armDelay time.Duration
	onChange func() // the tray refreshes its waiting count

	mu    sync.Mutex
	queue []*pendingRequest
	win   fyne.Window
	view  *approvalView // what the window shows now
}

type pendingRequest struct {
	req      approval.Request
	deadline time.Time
	answer   chan approval.Decision
}

// NewApprovals returns the prompter for app. onChange, if set, is called
// when the queue grows or shrinks.
func NewApprovals(app fyne.App, onChange func()) *Approvals {
	return &Approvals{app: app, armDelay: ArmDelay, onChange: onChange}
}

// Waiting reports how many requests wait for the person.
func (a *Approvals) Waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue)
}

// Ask shows r (or queues it behind others) and waits for the person.
func (a *Approvals) Ask(ctx context.Context, r approval.Request) (approval.Decision, error) {
	p := &pendingRequest{req: r, answer: make(chan approval.Decision, 1)}
	if dl, ok := ctx.Deadline(); ok {
		p.deadline = dl
	}
	a.mu.Lock()
	a.queue = append(a.queue, p)
	first := len(a.queue) == 1
	a.mu.Unlock()
	a.changed()
	if first {
		a.app.SendNotification(fyne.NewNotification("PyGate: code waiting for you",
			fmt.Sprintf("%s wants to run Python on this computer.", clientLabel(r.Client.Name))))
	}
	fyne.Do(a.refresh)
	select {
	case d := <-p.answer:
		return d, nil
	case <-ctx.Done():
		a.remove(p)
		return approval.Decision{}, ctx.Err()
	}
}

// Show brings the window to the front if a request waits.
func (a *Approvals) Show() { fyne.Do(a.refresh) }

func (a *Approvals) changed() {
	if a.onChange != nil {
		a.onChange()
	}
}

func (a *Approvals) remove(p *pendingRequest) bool {
	a.mu.Lock()
	found := false
	for i, q := range a.queue {
		if q == p {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			found = true
			break
		}
	}
	a.mu.Unlock()
	if found {
		a.changed()
		fyne.Do(a.refresh)
	}
	return found
}

// decide answers p with d, unless it was withdrawn meanwhile.
func (a *Approvals) decide(p *pendingRequest, d approval.Decision) {
	if a.remove(p) {
		p.answer <- d
	}
}

// refresh shows the head of the queue, or closes the window when the queue
// is empty. It runs on the Fyne thread.
func (a *Approvals) refresh() {
	a.mu.Lock()
	var head *pendingRequest
	if len(a.queue) > 0 {
		head = a.queue[0]
	}
	count := len(a.queue)
	a.mu.Unlock()

	if head == nil {
		if a.view != nil {
			a.view.stop()
			a.view = nil
		}
		if a.win != nil {
			a.win.Hide()
		}
		return
	}
	if a.win == nil {
		a.win = a.app.NewWindow("PyGate: approve code")
		a.win.Resize(fyne.NewSize(900, 720))
		a.win.SetCloseIntercept(func() {
			if a.view != nil {
				a.decide(a.view.p, approval.Decision{Allow: false, Reason: "The person closed the approval window."})
			}
		})
	}
	if a.view != nil && a.view.p == head {
		a.view.setPosition(count)
		return
	}
	if a.view != nil {
		a.view.stop()
	}
	a.view = newApprovalView(a, head, count)
	a.win.SetContent(a.view.content)
	a.win.Show()
	a.win.RequestFocus()
}

// approvalView is the window's content for one request.
type approvalView struct {
	a                                  *Approvals
	p                                  *pendingRequest
	content                            fyne.CanvasObject
	position                           *widget.Label
	timer                              *widget.Label
	reason                             *widget.Entry
	editor                             *widget.Entry
	codeBox                            *fyne.Container
	noSandbox                          *widget.Check
	deny, once, session, quarter, edit *widget.Button
	done                               chan struct{}
}

func clientLabel(name string) string {
	switch name {
	case "claude-ai":
		return "Claude"
	case "", "unknown-client":
		return "An assistant"
	}
	return name
}

func newApprovalView(a *Approvals, p *pendingRequest, count int) *approvalView {
	v := &approvalView{a: a, p: p, done: make(chan struct{})}
	r := p.req

	title := widget.NewLabelWithStyle(fmt.Sprintf("%s wants to run Python on this computer", clientLabel(r.Client.Name)),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.position = widget.NewLabel("")
	v.timer = widget.NewLabel("")
	v.setPosition(count)
	v.tick()

	chips := container.NewHBox()
	for _, c := range r.Analysis.Chips() {
		l := widget.NewLabel(c)
		l.Importance = widget.WarningImportance
		if c == "nothing flagged" {
			l.Importance = widget.SuccessImportance
		}
		chips.Add(l)
	}

	facts := widget.NewForm()
	pk := "none (standard library only)"
	if len(r.Packages) > 0 {
		pk = strings.Join(r.Packages, ", ") + " (installed from PyPI before the run)"
	}
	facts.Append("Packages", widget.NewLabel(pk))
	network := widget.NewLabel("No internet access")
	if r.Network {
		network.SetText("Asks for internet access for this run")
		network.Importance = widget.DangerImportance
	}
	facts.Append("Network", network)
	facts.Append("Sandbox", widget.NewLabel(sandboxLabel(r.Level)))
	facts.Append("Time limit", widget.NewLabel(fmt.Sprintf("%d seconds", int(r.Timeout/time.Second))))

	details := widget.NewLabel(flagDetails(r.Analysis))
	details.Wrapping = fyne.TextWrapWord
	hint := widget.NewLabelWithStyle("This summary comes from reading the code. It is a hint, not a guarantee: read the code itself before you allow it.",
		fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	hint.Wrapping = fyne.TextWrapWord

	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(v.position, v.timer), title),
		chips, facts, details, hint,
	)
	if r.SandboxProblem != "" {
		warn := widget.NewLabel("The sandbox cannot be set up on this computer: " + r.SandboxProblem)
		warn.Importance = widget.DangerImportance
		warn.Wrapping = fyne.TextWrapWord
		v.noSandbox = widget.NewCheck("Run without sandbox for this one execution (the code gets all your permissions)", nil)
		top.Add(warn)
		top.Add(v.noSandbox)
	}

	v.codeBox = container.NewStack(container.NewScroll(newCodeView(r.Code)))
	v.reason = widget.NewEntry()
	v.reason.SetPlaceHolder("Reason for denying (optional; the assistant is told)")

	v.deny = widget.NewButton("Deny", func() {
		a.decide(p, approval.Decision{Allow: false, Reason: strings.TrimSpace(v.reason.Text)})
	})
	v.edit = widget.NewButton("Edit code", v.startEditing)
	v.once = widget.NewButton("Allow once", func() { v.allow(approval.Once) })
	v.session = widget.NewButton("Allow for this session", func() { v.allow(approval.ForSession) })
	v.quarter = widget.NewButton("Allow for 15 minutes", func() { v.allow(approval.For15Min) })
	v.once.Importance = widget.HighImportance
	v.setArmed(false)

	buttons := container.NewHBox(v.deny, v.edit, layoutSpacer(), v.once, v.session, v.quarter)
	bottom := container.NewVBox(v.reason, buttons)
	v.content = container.NewBorder(top, bottom, nil, nil, v.codeBox)

	go v.run()
	return v
}

func sandboxLabel(level string) string {
	switch level {
	case "strict":
		return "strict: reads only Python and its workspace, writes only its workspace, no network, few imports"
	case "off":
		return "off: the code runs with all your permissions"
	}
	return "standard: writes only in its workspace, cannot read your secrets (keys, passwords, browser data)"
}

func flagDetails(an approval.Analysis) string {
	if !an.Analysed {
		return "PyGate could not analyse this code (" + an.Problem + "). Read it carefully."
	}
	if len(an.Flags) == 0 {
		return "Nothing in the code stands out."
	}
	var lines []string
	for i, f := range an.Flags {
		if i == 8 {
			lines = append(lines, fmt.Sprintf("… and %d more.", len(an.Flags)-8))
			break
		}
		lines = append(lines, fmt.Sprintf("Line %d: %s", f.Line, f.Detail))
	}
	return strings.Join(lines, "\n")
}

// run wakes the buttons after the arm delay and counts down to auto-deny.
func (v *approvalView) run() {
	arm := time.NewTimer(v.a.armDelay)
	defer arm.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-v.done:
			return
		case <-arm.C:
			fyne.Do(func() {
				v.setArmed(true)
				// Deny is the default: Enter or Space on it denies.
				if v.a.win != nil && v.a.view == v {
					v.a.win.Canvas().Focus(v.deny)
				}
			})
		case <-tick.C:
			fyne.Do(v.tick)
		}
	}
}

func (v *approvalView) stop() {
	select {
	case <-v.done:
	default:
		close(v.done)
	}
}

func (v *approvalView) setArmed(on bool) {
	for _, b := range []*widget.Button{v.deny, v.once, v.session, v.quarter, v.edit} {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

func (v *approvalView) setPosition(count int) {
	if count > 1 {
		v.position.SetText(fmt.Sprintf("1 of %d", count))
	} else {
		v.position.SetText("")
	}
}

func (v *approvalView) tick() {
	if v.p.deadline.IsZero() {
		v.timer.SetText("")
		return
	}
	left := time.Until(v.p.deadline).Round(time.Second)
	if left < 0 {
		left = 0
	}
	v.timer.SetText(fmt.Sprintf("Denied automatically in %d:%02d", int(left/time.Minute), int(left%time.Minute/time.Second)))
}

func (v *approvalView) startEditing() {
	v.editor = widget.NewMultiLineEntry()
	v.editor.TextStyle = fyne.TextStyle{Monospace: true}
	v.editor.SetText(v.p.req.Code)
	v.codeBox.Objects = []fyne.CanvasObject{v.editor}
	v.codeBox.Refresh()
	v.edit.Disable()
	v.edit.SetText("Editing: what you allow is what runs")
}

func (v *approvalView) allow(scope approval.Scope) {
	d := approval.Decision{Allow: true, Scope: scope, Code: v.p.req.Code, Network: v.p.req.Network}
	if v.editor != nil {
		d.Code = v.editor.Text
	}
	if v.noSandbox != nil && v.noSandbox.Checked {
		d.Unsandboxed = true
	}
	v.a.decide(v.p, d)
}

func layoutSpacer() fyne.CanvasObject { return layout.NewSpacer() }
