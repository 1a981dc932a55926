package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/pygate/pygate/internal/proctest"
)

// These tests run the real tray app, so they need a display: `make test`
// runs the Go tests under Xvfb and a private D-Bus session.
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("no DISPLAY: run these tests under Xvfb (make test does: xvfb-run -a dbus-run-session -- go test ./...)")
	}
}

// startHub runs `pygate tray` on home and waits until it listens.
func startHub(t *testing.T, home string) *exec.Cmd {
	t.Helper()
	needDisplay(t)
	cmd := exec.Command(binary, "tray")
	cmd.Env = append(os.Environ(), "PYGATE_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(home, "run", "pygate.sock")); err == nil {
			if _, err := os.Stat(filepath.Join(home, "run", "pid")); err == nil {
				return cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the hub did not start listening within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// relayClient launches `pygate mcp` (no --no-ui) as a client would.
func relayClient(t *testing.T, home, name string) (*client.Client, *exec.Cmd) {
	t.Helper()
	var relay *exec.Cmd
	tr := transport.NewStdioWithOptions(binary, []string{"PYGATE_HOME=" + home}, []string{"mcp"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			relay = exec.CommandContext(ctx, command, args...)
			relay.Env = append(os.Environ(), env...)
			return relay, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize through the relay: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, relay
}

func callOn(t *testing.T, c *client.Client, code string) answer {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "run_python"
	req.Params.Arguments = map[string]any{"code": code}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return toAnswer(t, res)
}

func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

func TestHubServesClientsThroughTheRelay(t *testing.T) {
	home := newHome(t, nil)
	hub := startHub(t, home)
	c, relay := relayClient(t, home, "relay-one")

	a := callOn(t, c, "print('through the hub')\n6 * 7")
	if a.sc["status"] != "ok" || a.sc["value"] != "42" || !strings.Contains(a.text, "through the hub") || !strings.Contains(a.text, "sandbox: standard") {
		t.Fatalf("%s", a.text)
	}

	// Python descends from the hub, not from the relay.
	done := make(chan answer, 1)
	go func() { done <- callOn(t, c, "import subprocess\nsubprocess.run(['sleep', '3040'])\n'slept'") }()
	sleepers := proctest.WaitFound("sleep\x003040", 30*time.Second)
	if len(sleepers) == 0 {
		t.Fatal("the run never started")
	}
	python := parentOf(sleepers[0])
	if parentOf(python) != hub.Process.Pid || parentOf(python) == relay.Process.Pid {
		t.Fatalf("Python %d has parent %d; the hub is %d and the relay %d", python, parentOf(python), hub.Process.Pid, relay.Process.Pid)
	}
	syscall.Kill(sleepers[0], syscall.SIGKILL)
	<-done

	// Two clients at once, each in its own workspace.
	c2, _ := relayClient(t, home, "relay-two")
	var wg sync.WaitGroup
	for _, cl := range []struct {
		c    *client.Client
		name string
	}{{c, "relay-one"}, {c2, "relay-two"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := callOn(t, cl.c, "import os, time\ntime.sleep(0.5)\nos.path.basename(os.getcwd())")
			if a.sc["value"] != "'"+cl.name+"'" {
				t.Errorf("%s ran in %v", cl.name, a.sc["value"])
			}
		}()
	}
	wg.Wait()
}

func TestSecondHubExits(t *testing.T) {
	home := newHome(t, nil)
	startHub(t, home)
	second := exec.Command(binary, "tray")
	second.Env = append(os.Environ(), "PYGATE_HOME="+home)
	out, err := second.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "already running") {
		t.Fatalf("second hub: %v %s", err, out)
	}
}

func TestKillingTheHubMidRunEndsTheRelayCleanly(t *testing.T) {
	home := newHome(t, nil)
	hub := startHub(t, home)
	var stderr strings.Builder
	var mu sync.Mutex
	tr := transport.NewStdioWithOptions(binary, []string{"PYGATE_HOME=" + home}, []string{"mcp"},
		transport.WithCommandStderrWriter(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return stderr.Write(p)
		})))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	c.Start(context.Background())
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgo.Implementation{Name: "doomed", Version: "1"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "run_python"
		req.Params.Arguments = map[string]any{"code": "import subprocess\nsubprocess.run(['sleep', '3041'])"}
		c.CallTool(context.Background(), req)
	}()
	if len(proctest.WaitFound("sleep\x003041", 30*time.Second)) == 0 {
		t.Fatal("the run never started")
	}
	hub.Process.Kill()
	hub.Wait()
	if left := proctest.WaitGone("sleep\x003041", 5*time.Second); len(left) > 0 {
		t.Fatalf("%v outlived the hub", left)
	}
	if left := proctest.WaitGone(filepath.Join(home, "runs"), 5*time.Second); len(left) > 0 {
		t.Fatalf("Python %v outlived the hub", left)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		said := stderr.String()
		mu.Unlock()
		if strings.Contains(said, "The PyGate app stopped") {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the relay did not say the app stopped; stderr: %s", stderr.String())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestWrongTokenIsRefused(t *testing.T) {
	home := newHome(t, nil)
	startHub(t, home)
	conn, err := net.Dial("unix", filepath.Join(home, "run", "pygate.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PYGATE1 %s mcp\n", strings.Repeat("f", 64))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err == nil {
		t.Fatalf("the hub answered %q to a wrong token", line)
	}
	logs, _ := os.ReadFile(filepath.Join(home, "logs", "pygate.log"))
	if !strings.Contains(string(logs), "wrong token") {
		t.Fatalf("the refusal was not logged:\n%s", logs)
	}
}

func TestRelayStartsTheHubWhenNoneRuns(t *testing.T) {
	needDisplay(t)
	home := newHome(t, nil)
	c, _ := relayClient(t, home, "starter")
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(home, "run", "pid")); err == nil {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})
	a := callOn(t, c, "'served by a hub the relay started'")
	if a.sc["value"] != "'served by a hub the relay started'" {
		t.Fatalf("%s", a.text)
	}
	if _, err := os.Stat(filepath.Join(home, "run", "pid")); err != nil {
		t.Fatalf("no hub is running: %v", err)
	}
}
