// Command screenshots runs PyGate's real windows (Fyne's desktop driver,
// under Xvfb in `make screenshots`) with a realistic request and activity,
// captures each window and writes PNGs for people to look at.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/pygate/pygate/app"
	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/runner"
	"github.com/pygate/pygate/ui"
)

const request = `import pandas as pd
import matplotlib.pyplot as plt

# Monthly totals from the spreadsheet the user shared
sales = pd.read_csv("sales-2026.csv", parse_dates=["date"])
monthly = sales.groupby(sales["date"].dt.month)["amount"].sum()

fig, ax = plt.subplots(figsize=(8, 4))
monthly.plot(kind="bar", ax=ax, color="#2b5b9e")
ax.set_title("Sales per month, 2026")
fig.savefig("sales-per-month.png", dpi=120)

with open("summary.txt", "w") as f:
    f.write(f"Best month: {monthly.idxmax()} ({monthly.max():,.0f})\n")

monthly.describe()
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		os.Exit(runner.SandboxExec(os.Args[2:]))
	}
	out := "docs/screenshots"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := run(out); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "pygate-screenshots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	version, _ := exec.Command("python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	p := app.Paths{Home: home}
	os.WriteFile(p.Settings(), []byte(fmt.Sprintf(`{"approval":"allow-all","python_version":%q}`, strings.TrimSpace(string(version)))), 0o600)
	core, err := app.NewCore(context.Background(), p, "screenshots")
	if err != nil {
		return err
	}

	// Some real activity first, run the way a client's calls are.
	for _, code := range []string{
		"import statistics\nscores = [72, 88, 95, 61, 79]\nprint('mean', statistics.mean(scores))\nmax(scores)",
		"with open('notes.txt', 'w') as f:\n    f.write('Meeting moved to Thursday')\nprint('saved notes.txt')",
		"1 / 0",
	} {
		runDirect(core, code)
	}

	a := fyneapp.NewWithID("org.pygate.screenshots")
	u := ui.New(a, core, "screenshots")
	core.ChangeSettings(func(s *app.Settings) { s.Approval = approval.Ask })

	errc := make(chan error, 1)
	go func() { errc <- capture(a, u, out) }()
	a.Run()
	return <-errc
}

func runDirect(core *app.Core, code string) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	go core.Server.Serve(context.Background(), inR, outW)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"1"}}}`)
	readUntil(outR, `"id":0`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	q := strings.ReplaceAll(strings.ReplaceAll(code, `\`, `\\`), "\n", `\n`)
	q = strings.ReplaceAll(q, `"`, `\"`)
	fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"%s"}}}`+"\n", q)
	readUntil(outR, `"id":1`)
	inW.Close()
}

// readUntil reads r until what it read contains marker.
func readUntil(r *os.File, marker string) {
	buf := make([]byte, 1<<16)
	seen := ""
	for !strings.Contains(seen, marker) {
		n, err := r.Read(buf)
		if err != nil {
			return
		}
		seen += string(buf[:n])
	}
}

func capture(a fyne.App, u *ui.UI, out string) error {
	defer fyne.Do(a.Quit)
	time.Sleep(time.Second)

	// A realistic request, waiting in the approval window.
	go u.Core.Broker.Decide(context.Background(), approval.Request{
		Client:   approval.Client{Name: "claude-ai", Session: "s1"},
		Code:     request,
		Packages: []string{"pandas", "matplotlib"},
		Timeout:  60 * time.Second,
		Level:    "standard",
		Analysis: approval.Analyze(context.Background(), "python3", request),
	})
	time.Sleep(2500 * time.Millisecond) // the window appears and its buttons wake up
	if err := shoot(a, "PyGate: approve code", filepath.Join(out, "approval.png")); err != nil {
		return err
	}
	fyne.DoAndWait(func() {
		u.Activity.Show()
		if rows := u.Activity.Rows(); len(rows) > 1 {
			u.Activity.Select(rows[1].ID)
		}
	})
	time.Sleep(800 * time.Millisecond)
	if err := shoot(a, "PyGate: activity", filepath.Join(out, "activity.png")); err != nil {
		return err
	}
	fyne.DoAndWait(u.Settings.Show)
	time.Sleep(800 * time.Millisecond)
	return shoot(a, "PyGate: settings", filepath.Join(out, "settings.png"))
}

// shoot captures the X window titled title with ImageMagick's import, as
// the X server drew it.
func shoot(a fyne.App, title, path string) error {
	ids, err := exec.Command("xdotool", "search", "--name", "^"+title+"$").Output()
	if err != nil || len(strings.Fields(string(ids))) == 0 {
		return fmt.Errorf("no window titled %q (%v)", title, err)
	}
	id := strings.Fields(string(ids))[0]
	exec.Command("xdotool", "windowraise", id).Run()
	time.Sleep(300 * time.Millisecond)
	if out, err := exec.Command("import", "-window", id, path).CombinedOutput(); err != nil {
		return fmt.Errorf("capture %q: %v: %s", title, err, out)
	}
	fmt.Println("wrote", path)
	return nil
}
