package ui

// Rules of this file: the activity window. It observes the journal (catch
// up from the store, then live from the bus) and never owns state; Stop
// asks the server to cancel. Widgets are touched only on the Fyne thread.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/pygate/pygate/journal"
)

// ActivityWindow lists executions, newest first, with their details.
type ActivityWindow struct {
	app     fyne.App
	store   *journal.Store
	runsDir string
	stop    func(id string) bool

	mu       sync.Mutex
	activity *Activity

	win      fyne.Window
	search   *widget.Entry
	list     *widget.List
	rows     []Entry
	selected string
	detail   *fyne.Container
}

// NewActivityWindow builds the window's model and starts following the
// journal; the window itself appears on Show.
func NewActivityWindow(app fyne.App, store *journal.Store, runsDir string, stop func(id string) bool) *ActivityWindow {
	w := &ActivityWindow{app: app, store: store, runsDir: runsDir, stop: stop, activity: NewActivity()}
	events, _ := store.Bus().Subscribe(256)
	go func() {
		// Catch up from the store off the start-up path; events that
		// arrived meanwhile are both on disk and on the bus, so the bus's
		// copies of what was read are skipped by time.
		var caughtUp time.Time
		w.mu.Lock()
		store.ReadAll(func(ev journal.Event) error {
			w.activity.Apply(ev)
			if ev.Time.After(caughtUp) {
				caughtUp = ev.Time
			}
			return nil
		})
		w.mu.Unlock()
		fyne.Do(w.reload)
		for ev := range events {
			if !ev.Time.After(caughtUp) {
				continue
			}
			w.mu.Lock()
			w.activity.Apply(ev)
			w.mu.Unlock()
			fyne.Do(w.reload)
		}
	}()
	return w
}

// Rows returns what the list shows now.
func (w *ActivityWindow) Rows() []Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	query := ""
	if w.search != nil {
		query = w.search.Text
	}
	return w.activity.List(query)
}

// Show opens the window (building it the first time) and brings it forward.
func (w *ActivityWindow) Show() {
	if w.win == nil {
		w.build()
	}
	w.reload()
	w.win.Show()
	w.win.RequestFocus()
}

func statusIcon(status string) string {
	switch status {
	case "ok":
		return "✔"
	case "waiting":
		return "…"
	case "running":
		return "▶"
	case "denied":
		return "⊘"
	default:
		return "✖"
	}
}

func (w *ActivityWindow) build() {
	w.win = w.app.NewWindow("PyGate: activity")
	w.win.Resize(fyne.NewSize(1000, 680))
	w.win.SetCloseIntercept(func() { w.win.Hide() })
	w.search = widget.NewEntry()
	w.search.SetPlaceHolder("Search code, output, client…")
	w.search.OnChanged = func(string) { w.reload() }
	w.list = widget.NewList(
		func() int { return len(w.rows) },
		func() fyne.CanvasObject {
			first := widget.NewLabel("first line of code")
			first.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil,
				container.NewHBox(widget.NewLabel("✔"), widget.NewLabel("Jan 2 15:04:05"), widget.NewLabel("client")),
				widget.NewLabel("0.00 s"), first)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(w.rows) {
				return
			}
			e := w.rows[i]
			row := o.(*fyne.Container).Objects // center, left, right
			left := row[1].(*fyne.Container).Objects
			left[0].(*widget.Label).SetText(statusIcon(e.Status))
			left[1].(*widget.Label).SetText(e.Time.Local().Format("Jan 2 15:04:05"))
			left[2].(*widget.Label).SetText(e.Client)
			row[0].(*widget.Label).SetText(e.FirstLine(60))
			dur := ""
			if e.Duration > 0 {
				dur = fmt.Sprintf("%.2f s", e.Duration.Seconds())
			}
			row[2].(*widget.Label).SetText(dur)
		})
	w.list.OnSelected = func(i widget.ListItemID) {
		if i < len(w.rows) {
			w.selected = w.rows[i].ID
			w.showDetail(w.rows[i])
		}
	}
	w.detail = container.NewStack(widget.NewLabel("Choose an execution to see its code and results."))
	exportJSON := widget.NewButton("Export JSON…", func() { w.export("pygate-activity.json", true) })
	exportMD := widget.NewButton("Export Markdown…", func() { w.export("pygate-activity.md", false) })
	left := container.NewBorder(w.search, container.NewHBox(exportJSON, exportMD), nil, nil, w.list)
	split := container.NewHSplit(left, w.detail)
	split.Offset = 0.45
	w.win.SetContent(split)
}

// Select shows the execution with id, if it is listed.
func (w *ActivityWindow) Select(id string) {
	for i, e := range w.rows {
		if e.ID == id {
			w.list.Select(i)
		}
	}
}

// reload refreshes the list from the model; it runs on the Fyne thread.
func (w *ActivityWindow) reload() {
	if w.list == nil {
		return
	}
	w.rows = w.Rows()
	w.list.Refresh()
	for _, e := range w.rows {
		if e.ID == w.selected {
			w.showDetail(e)
		}
	}
}

func (w *ActivityWindow) showDetail(e Entry) {
	var parts []fyne.CanvasObject
	head := widget.NewLabelWithStyle(fmt.Sprintf("%s  %s from %s, %s", statusIcon(e.Status), e.Status, e.Client, e.Time.Local().Format("2006-01-02 15:04:05")),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	parts = append(parts, head)
	if e.Status == "running" || e.Status == "waiting" {
		id := e.ID
		stop := widget.NewButton("Stop this execution", func() { w.stop(id) })
		stop.Importance = widget.DangerImportance
		parts = append(parts, stop)
	}
	info := func(label, text string) {
		if text != "" {
			l := widget.NewLabel(label + ": " + text)
			l.Wrapping = fyne.TextWrapWord
			parts = append(parts, l)
		}
	}
	info("Decision", e.Decision)
	info("Analysis", strings.Join(e.Analysis, ", "))
	info("Packages", strings.Join(e.Packages, ", "))
	info("Sandbox", e.Sandbox)
	parts = append(parts, widget.NewLabelWithStyle("Code", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), newCodeView(e.Code))
	block := func(title, body string) {
		if body == "" {
			return
		}
		t := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		b := widget.NewLabel(body)
		b.TextStyle = fyne.TextStyle{Monospace: true}
		b.Wrapping = fyne.TextWrapBreak
		parts = append(parts, t, b)
	}
	if e.Result == nil {
		block("Output so far", e.LiveStdout)
		block("Errors so far", e.LiveStderr)
	}
	if r := e.Result; r != nil {
		block("Output", r.Stdout)
		block("Errors", r.Stderr)
		if r.Value != nil {
			block("Value", *r.Value)
		}
		if r.Error != nil {
			block("Exception", strings.TrimSpace(r.Error.Type+": "+r.Error.Message+"\n"+r.Error.Traceback))
		}
		if r.Message != "" && r.Status != "ok" {
			block("Message", r.Message)
		}
		var files []string
		for _, f := range r.Files {
			files = append(files, fmt.Sprintf("%s (%d bytes)", f.Path, f.Size))
		}
		block("Files created or changed", strings.Join(files, "\n"))
	}
	figures, _ := filepath.Glob(filepath.Join(w.runsDir, e.ID, "figure-*.png"))
	for _, f := range figures {
		img := canvas.NewImageFromFile(f)
		img.FillMode = canvas.ImageFillContain
		img.SetMinSize(fyne.NewSize(480, 360))
		parts = append(parts, img)
	}
	w.detail.Objects = []fyne.CanvasObject{container.NewScroll(container.NewVBox(parts...))}
	w.detail.Refresh()
}

func (w *ActivityWindow) export(name string, asJSON bool) {
	rows := w.Rows()
	save := dialog.NewFileSave(func(uc fyne.URIWriteCloser, err error) {
		if err != nil || uc == nil {
			return
		}
		defer uc.Close()
		var data []byte
		if asJSON {
			data, err = ExportJSON(rows)
		} else {
			data = []byte(ExportMarkdown(rows))
		}
		if err == nil {
			_, err = uc.Write(data)
		}
		if err != nil {
			dialog.ShowError(fmt.Errorf("PyGate could not save the export: %v", err), w.win)
		}
	}, w.win)
	save.SetFileName(name)
	if home, err := os.UserHomeDir(); err == nil {
		if l, err := storage.ListerForURI(storage.NewFileURI(home)); err == nil {
			save.SetLocation(l)
		}
	}
	save.Show()
}
