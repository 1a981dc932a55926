package ui

// Rules of this file: the settings window edits §4's keys and writes them
// through the app's settings module, which validates them and never
// touches a broken file. Errors are shown in the window, in its words.

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pygate/pygate/app"
	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/runner"
)

// SettingsWindow edits PyGate's settings.
type SettingsWindow struct {
	fyneApp fyne.App
	core    *app.Core
	win     fyne.Window

	approval, sandbox                                   *widget.Select
	timeout, maxTimeout, memory, answer, askFor, retain *widget.Entry
	python, imports                                     *widget.Entry
	status                                              *widget.Label
}

// NewSettingsWindow returns the window; it appears on Show.
func NewSettingsWindow(a fyne.App, core *app.Core) *SettingsWindow {
	return &SettingsWindow{fyneApp: a, core: core}
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// Show opens the window with the settings in force.
func (w *SettingsWindow) Show() {
	if w.win == nil {
		w.build()
	}
	w.load()
	w.win.Show()
	w.win.RequestFocus()
}

func (w *SettingsWindow) build() {
	w.win = w.fyneApp.NewWindow("PyGate: settings")
	w.win.Resize(fyne.NewSize(900, 640))
	w.win.SetCloseIntercept(func() { w.win.Hide() })
	w.approval = widget.NewSelect(names(approval.Policies), nil)
	w.sandbox = widget.NewSelect(names(runner.Levels), nil)
	entry := func() *widget.Entry { return widget.NewEntry() }
	w.timeout, w.maxTimeout, w.memory, w.answer, w.askFor, w.retain = entry(), entry(), entry(), entry(), entry(), entry()
	w.python = entry()
	w.imports = widget.NewMultiLineEntry()
	w.imports.SetMinRowsVisible(3)
	w.imports.Wrapping = fyne.TextWrapWord
	w.status = widget.NewLabel("")
	w.status.Wrapping = fyne.TextWrapWord

	form := widget.NewForm(
		widget.NewFormItem("Approval", w.approval),
		widget.NewFormItem("Sandbox", w.sandbox),
		widget.NewFormItem("Time limit (seconds)", w.timeout),
		widget.NewFormItem("Longest time limit a call may ask for", w.maxTimeout),
		widget.NewFormItem("Memory limit (MB)", w.memory),
		widget.NewFormItem("Answer the assistant within (seconds)", w.answer),
		widget.NewFormItem("Deny unanswered requests after (seconds)", w.askFor),
		widget.NewFormItem("Python version", w.python),
		widget.NewFormItem("Modules allowed at the strict level", w.imports),
		widget.NewFormItem("Keep activity for (days)", w.retain),
	)
	form.Items[0].HintText = "ask: show every request · auto-safe: run harmless code without asking · allow-all · deny-all"
	form.Items[1].HintText = "standard suits most people · strict also limits reading and imports · off removes it"
	save := widget.NewButton("Save", w.save)
	save.Importance = widget.HighImportance
	w.win.SetContent(container.NewBorder(nil, container.NewVBox(w.status, container.NewHBox(save)), nil, nil, container.NewVScroll(form)))
}

func (w *SettingsWindow) load() {
	s := w.core.Settings()
	w.approval.SetSelected(string(s.Approval))
	w.sandbox.SetSelected(string(s.Sandbox))
	w.timeout.SetText(strconv.Itoa(s.TimeoutSeconds))
	w.maxTimeout.SetText(strconv.Itoa(s.MaxTimeoutSeconds))
	w.memory.SetText(strconv.Itoa(s.MemoryMB))
	w.answer.SetText(strconv.Itoa(s.AnswerWithinSeconds))
	w.askFor.SetText(strconv.Itoa(s.ApprovalTimeoutSeconds))
	w.retain.SetText(strconv.Itoa(s.JournalRetentionDays))
	w.python.SetText(s.PythonVersion)
	w.imports.SetText(strings.Join(s.AllowedImports, ", "))
	w.status.SetText(strings.Join(w.core.SettingsProblems(), "\n"))
}

// save checks the form, writes it, and says what happened.
func (w *SettingsWindow) save() {
	numbers := map[string]*widget.Entry{
		"Time limit": w.timeout, "Longest time limit": w.maxTimeout, "Memory limit": w.memory,
		"Answer within": w.answer, "Deny unanswered requests after": w.askFor, "Keep activity for": w.retain,
	}
	values := map[*widget.Entry]int{}
	for label, e := range numbers {
		n, err := strconv.Atoi(strings.TrimSpace(e.Text))
		if err != nil {
			w.status.SetText(fmt.Sprintf("%s must be a whole number; nothing was saved.", label))
			return
		}
		values[e] = n
	}
	imports := strings.FieldsFunc(w.imports.Text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	err := w.core.ChangeSettings(func(s *app.Settings) {
		s.Approval = approval.Policy(w.approval.Selected)
		s.Sandbox = runner.Level(w.sandbox.Selected)
		s.TimeoutSeconds = values[w.timeout]
		s.MaxTimeoutSeconds = values[w.maxTimeout]
		s.MemoryMB = values[w.memory]
		s.AnswerWithinSeconds = values[w.answer]
		s.ApprovalTimeoutSeconds = values[w.askFor]
		s.JournalRetentionDays = values[w.retain]
		s.PythonVersion = strings.TrimSpace(w.python.Text)
		s.AllowedImports = imports
	})
	if err != nil {
		w.status.SetText("Nothing was saved: " + err.Error())
		return
	}
	w.status.SetText("Saved. New settings apply to the next request.")
}
