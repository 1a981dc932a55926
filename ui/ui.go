// Package ui is PyGate's face: the tray icon and menu, the approval window
// (the Prompter the approval broker asks), the activity window and the
// settings window, built with Fyne. The ui observes the core and never owns
// state; widgets are touched only on the Fyne thread (fyne.Do).
package ui

// Rules of this file: wiring the windows to the core and the tray.

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"

	"github.com/pygate/pygate/app"
)

//go:embed icon.png
var iconPNG []byte

// Icon is PyGate's icon.
var Icon = fyne.NewStaticResource("pygate.png", iconPNG)

// UI is the running desktop face of one hub.
type UI struct {
	App       fyne.App
	Core      *app.Core
	Approvals *Approvals
	Activity  *ActivityWindow
	Settings  *SettingsWindow
	version   string

	mu           sync.Mutex
	state        State
	setupNeeded  bool
	setupChecked time.Time
}

// New builds the ui for core and attaches the approval window to the
// broker, so requests are asked of the person from now on.
func New(a fyne.App, core *app.Core, version string) *UI {
	a.Settings().SetTheme(newTheme())
	a.SetIcon(Icon)
	u := &UI{App: a, Core: core, version: version}
	u.Approvals = NewApprovals(a, u.refreshTray)
	u.Activity = NewActivityWindow(a, core.Journal, core.Paths.Runs(), core.Server.Cancel)
	u.Settings = NewSettingsWindow(a, core)
	core.Broker.SetPrompter(u.Approvals)
	return u
}

// ShowYourself brings forward what needs the person: the approval window
// when a request waits, else the activity window.
func (u *UI) ShowYourself() {
	fyne.Do(func() {
		if u.Approvals.Waiting() > 0 {
			u.Approvals.Show()
			return
		}
		u.Activity.Show()
	})
}

// CurrentState reads the hub's state for the tray.
func (u *UI) CurrentState() State {
	waiting, running := u.Core.Server.Counts()
	u.mu.Lock()
	check := time.Since(u.setupChecked) > time.Minute
	u.mu.Unlock()
	if check {
		_, err := u.Core.Runner.Pythons.Peek(context.Background())
		u.mu.Lock()
		u.setupNeeded, u.setupChecked = err != nil, time.Now()
		u.mu.Unlock()
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return State{Waiting: waiting, Running: running, Paused: u.Core.Paused(), SetupNeeded: u.setupNeeded}
}

// Run shows the tray and runs the Fyne event loop until Quit.
func (u *UI) Run() {
	if d, ok := u.App.(desktop.App); ok {
		d.SetSystemTrayIcon(Icon)
	}
	u.App.Lifecycle().SetOnStarted(func() {
		accessoryMode()
		u.refreshTray()
	})
	go func() {
		for range time.Tick(2 * time.Second) {
			u.refreshTray()
		}
	}()
	u.App.Run()
}

// refreshTray rebuilds the tray menu when the state changed.
func (u *UI) refreshTray() {
	s := u.CurrentState()
	u.mu.Lock()
	changed := s != u.state
	u.state = s
	u.mu.Unlock()
	if !changed {
		return
	}
	fyne.Do(func() {
		if d, ok := u.App.(desktop.App); ok {
			d.SetSystemTrayMenu(fyneMenu(MenuItems(s), u.do))
		}
	})
}

func (u *UI) do(action string) {
	switch action {
	case ActApprovals:
		u.Approvals.Show()
	case ActActivity:
		u.Activity.Show()
	case ActPause:
		u.Core.SetPaused(true)
		u.refreshTray()
	case ActResume:
		u.Core.SetPaused(false)
		u.refreshTray()
	case ActWorkspace:
		u.open(u.Core.Paths.Workspaces())
	case ActSettings:
		u.Settings.Show()
	case ActLogs:
		u.open(u.Core.Paths.Logs())
	case ActAbout:
		w := u.App.NewWindow("About PyGate")
		dialog.ShowInformation("About PyGate", fmt.Sprintf("PyGate %s\n\nLets AI assistants run Python on this computer,\nwith your approval, inside a sandbox.\n\nHome: %s", u.version, u.Core.Paths.Home), w)
		w.Resize(fyne.NewSize(460, 260))
		w.Show()
	case ActQuit:
		u.App.Quit()
	}
}

// open shows a folder in the system's file manager.
func (u *UI) open(dir string) {
	uri := storage.NewFileURI(filepath.Clean(dir))
	parsed, err := url.Parse(uri.String())
	if err != nil {
		return
	}
	if err := u.App.OpenURL(parsed); err != nil {
		w := u.App.NewWindow("PyGate")
		dialog.ShowError(fmt.Errorf("PyGate could not open %s: %v", dir, err), w)
		w.Show()
	}
}
