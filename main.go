// Command pygate lets MCP clients such as Claude Desktop run Python on this
// computer, with the person's approval. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/pygate/pygate/app"
	"github.com/pygate/pygate/runner"
	"github.com/pygate/pygate/ui"
)

// appID is PyGate's application id (FyneApp.toml says the same).
const appID = "org.pygate.app"

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `PyGate lets AI assistants run Python on this computer, with your approval.

Usage:
  pygate                start the tray app (same as "pygate tray")
  pygate mcp [--no-ui]  serve MCP over stdin/stdout; this is what MCP clients run
  pygate doctor         check every part and say how to fix problems
  pygate setup          install uv and Python and configure MCP clients
  pygate uninstall      remove PyGate from MCP clients and start at login
  pygate autostart on|off|status
  pygate version        print the version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "tray"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "mcp":
		return runMCP(args, stdin, stdout, stderr)
	case "doctor":
		return runDoctor(stdout, stderr)
	case "", "tray":
		return runTray(args, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "PyGate %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	case "sandbox-exec":
		return runner.SandboxExec(args)
	case "setup", "uninstall", "autostart":
		fmt.Fprintf(stderr, "\"pygate %s\" is not available yet in this version of PyGate. For now, run \"pygate mcp\" from your MCP client and \"pygate doctor\" to check your computer.\n", cmd)
		return 2
	default:
		fmt.Fprintf(stderr, "pygate: unknown command %q.\n\n%s", cmd, usage)
		return 2
	}
}

// startService prepares a long-running command: the home folder, logs to
// its logs/ folder and stderr, and a context that ends on Ctrl-C or
// SIGTERM. It reports false after telling the person what went wrong.
func startService(stderr io.Writer) (app.Paths, context.Context, func(), bool) {
	paths, err := app.ResolveHome()
	if err != nil {
		fmt.Fprintf(stderr, "PyGate could not find its home folder: %v. Set PYGATE_HOME to a folder you can write to.\n", err)
		return paths, nil, nil, false
	}
	closeLog := app.SetupLogging(paths, slog.LevelInfo)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return paths, ctx, func() { stop(); closeLog() }, true
}

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	noUI := fs.Bool("no-ui", false, "serve in this process with policy-only approvals (no windows)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	paths, ctx, done, ok := startService(stderr)
	if !ok {
		return 1
	}
	defer done()
	if !*noUI {
		conn, why := connectToHub(ctx, paths)
		if conn != nil {
			slog.Info("relaying to the PyGate app", "home", paths.Home)
			if err := app.Relay(ctx, conn, stdin, stdout); err != nil {
				fmt.Fprintln(stderr, "The PyGate app stopped while your assistant was connected, so PyGate ended this connection. Open PyGate again and retry; nothing keeps running.")
				return 1
			}
			return 0
		}
		slog.Info("serving without the PyGate app", "why", why)
	}
	core, err := app.NewCore(ctx, paths, version)
	if err != nil {
		slog.Error("start", "err", err)
		fmt.Fprintf(stderr, "PyGate could not start: %v\n", err)
		return 1
	}
	slog.Info("serving MCP on stdio", "home", paths.Home, "version", version)
	if err := core.ServeHeadless(ctx, stdin, stdout); err != nil {
		slog.Error("serve", "err", err)
		return 1
	}
	return 0
}

// connectToHub finds the running PyGate app, or starts it and waits up to
// 10 s. It returns nil and the reason when PyGate should serve headless.
func connectToHub(ctx context.Context, paths app.Paths) (net.Conn, string) {
	conn, err := app.Dial(ctx, paths, app.ModeMCP)
	if err == nil {
		return conn, ""
	}
	if !errors.Is(err, app.ErrNoHub) {
		return nil, err.Error()
	}
	if !app.GUIPossible() {
		return nil, "no display to show windows on"
	}
	if err := app.StartHubProcess(); err != nil {
		return nil, err.Error()
	}
	conn, err = app.WaitForHub(ctx, paths, 10*time.Second)
	if err != nil {
		return nil, "the PyGate app did not answer within 10 seconds: " + err.Error()
	}
	return conn, ""
}

// runTray runs the hub: the one long-lived PyGate process of this user,
// with its tray and windows when a display exists.
func runTray(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("tray", flag.ContinueOnError)
	fs.SetOutput(stderr)
	background := fs.Bool("background", false, "started for a client: show no window if PyGate already runs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	paths, ctx, done, ok := startService(stderr)
	if !ok {
		return 1
	}
	defer done()
	core, err := app.NewCore(ctx, paths, version)
	if err != nil {
		fmt.Fprintf(stderr, "PyGate could not start: %v\n", err)
		return 1
	}
	var face *ui.UI
	onShow := func() {
		if face != nil {
			face.ShowYourself()
		}
	}
	hub, err := app.StartHub(ctx, core, onShow)
	if errors.Is(err, app.ErrHubRunning) {
		if *background {
			return 0
		}
		if err := app.AskToShow(ctx, paths); err != nil {
			fmt.Fprintln(stderr, "PyGate is already running, but did not answer; quit it from its tray menu and start it again.")
			return 1
		}
		fmt.Fprintln(stderr, "PyGate is already running; it has been asked to show itself.")
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "PyGate could not start: %v\n", err)
		return 1
	}
	defer hub.Close()
	slog.Info("hub started", "home", paths.Home, "version", version, "windows", app.GUIPossible())
	if !app.GUIPossible() {
		hub.Serve(ctx)
		return 0
	}
	face = ui.New(fyneapp.NewWithID(appID), core, version)
	go hub.Serve(ctx)
	go func() {
		<-ctx.Done()
		fyne.Do(face.App.Quit)
	}()
	face.Run()
	return 0
}

func runDoctor(stdout, stderr io.Writer) int {
	paths, err := app.ResolveHome()
	if err != nil {
		fmt.Fprintf(stderr, "PyGate could not find its home folder: %v. Set PYGATE_HOME to a folder you can write to.\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "PyGate %s doctor\n\n", version)
	if app.PrintChecks(stdout, app.Doctor(context.Background(), paths)) {
		return 1
	}
	return 0
}
