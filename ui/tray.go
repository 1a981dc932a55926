package ui

// Rules of this file: the tray menu is built by a pure function of the
// hub's state, so tests can read its labels; actions are wired by name.

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// State is what the tray shows about the hub.
type State struct {
	Waiting     int  // requests waiting for the person
	Running     int  // executions running
	Paused      bool // every request is denied until Resume
	SetupNeeded bool // no Python could be found
}

// Status is the tray's one-line summary.
func (s State) Status() string {
	switch {
	case s.SetupNeeded:
		return "Setup needed"
	case s.Paused:
		return "Paused: all requests are denied"
	case s.Waiting == 1:
		return "1 request waiting for you"
	case s.Waiting > 1:
		return fmt.Sprintf("%d requests waiting for you", s.Waiting)
	case s.Running == 1:
		return "Running 1 execution"
	case s.Running > 1:
		return fmt.Sprintf("Running %d executions", s.Running)
	}
	return "Ready"
}

// Item is one line of the tray menu.
type Item struct {
	Label    string
	Action   string // what tapping it does; "" for the status line
	Disabled bool
	Divider  bool // a separator before this item
}

// The actions tray items trigger.
const (
	ActApprovals = "approvals"
	ActActivity  = "activity"
	ActPause     = "pause"
	ActResume    = "resume"
	ActWorkspace = "workspace"
	ActSettings  = "settings"
	ActLogs      = "logs"
	ActAbout     = "about"
	ActQuit      = "quit"
)

// MenuItems builds the tray menu for a state.
func MenuItems(s State) []Item {
	approvals := "Approvals…"
	if s.Waiting > 0 {
		approvals = fmt.Sprintf("Approvals (%d waiting)…", s.Waiting)
	}
	pause := Item{Label: "Pause (deny every request)", Action: ActPause}
	if s.Paused {
		pause = Item{Label: "Resume", Action: ActResume}
	}
	return []Item{
		{Label: "PyGate: " + s.Status(), Disabled: true},
		{Label: approvals, Action: ActApprovals, Disabled: s.Waiting == 0, Divider: true},
		{Label: "Activity…", Action: ActActivity},
		pause,
		{Label: "Open workspace", Action: ActWorkspace, Divider: true},
		{Label: "Settings…", Action: ActSettings},
		{Label: "Open logs", Action: ActLogs},
		{Label: "About PyGate", Action: ActAbout},
		{Label: "Quit PyGate", Action: ActQuit, Divider: true},
	}
}

// fyneMenu turns items into a Fyne menu that calls do with each action.
func fyneMenu(items []Item, do func(action string)) *fyne.Menu {
	var out []*fyne.MenuItem
	for _, it := range items {
		if it.Divider {
			out = append(out, fyne.NewMenuItemSeparator())
		}
		action := it.Action
		mi := fyne.NewMenuItem(it.Label, func() {
			if action != "" {
				do(action)
			}
		})
		mi.Disabled = it.Disabled
		if action == ActQuit {
			mi.IsQuit = true
		}
		out = append(out, mi)
	}
	return fyne.NewMenu("PyGate", out...)
}
