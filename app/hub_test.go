package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pygate/pygate/internal/proctest"
	"github.com/pygate/pygate/internal/testenv"
)

// startTestHub runs a hub on a fresh home with allow-all.
func startTestHub(t *testing.T) (*Hub, Paths, context.CancelFunc) {
	t.Helper()
	p := Paths{Home: t.TempDir()}
	os.WriteFile(p.Settings(), []byte(fmt.Sprintf(`{"approval":"allow-all","python_version":%q}`, testenv.MachinePython())), 0o600)
	core, err := NewCore(context.Background(), p, "test")
	if err != nil {
		t.Fatal(err)
	}
	shown := make(chan struct{}, 4)
	h, err := StartHub(context.Background(), core, func() { shown <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go h.Serve(ctx)
	t.Cleanup(func() { cancel(); h.Close() })
	return h, p, cancel
}

// mcpOver sends MCP lines over rw and returns a reader of the answers.
func initialize(t *testing.T, w io.Writer, r *bufio.Reader, client string) {
	t.Helper()
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`+"\n", client)
	readID(t, r, 0)
	fmt.Fprint(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

func readID(t *testing.T, r *bufio.Reader, id float64) map[string]any {
	t.Helper()
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m["id"] == id {
			return m
		}
	}
}

func TestHubServesEachConnectionAsItsOwnSession(t *testing.T) {
	_, p, _ := startTestHub(t)
	for _, client := range []string{"first-client", "second-client"} {
		conn, err := Dial(context.Background(), p, ModeMCP)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		initialize(t, conn, r, client)
		fmt.Fprint(conn, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"import os\nos.path.basename(os.getcwd())"}}}`+"\n")
		res := readID(t, r, 1)["result"].(map[string]any)["structuredContent"].(map[string]any)
		if res["value"] != "'"+client+"'" {
			t.Fatalf("%s ran in %v", client, res["value"])
		}
	}
}

func TestWrongTokenIsRefusedAndLogged(t *testing.T) {
	_, p, _ := startTestHub(t)
	var logged logBuffer
	restore := captureLog(&logged)
	defer restore()
	_, err := dialWithToken(context.Background(), p, ModeMCP, strings.Repeat("0", 64))
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("err %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(logged.String(), "wrong token") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logged.String(), "wrong token") {
		t.Fatalf("log: %s", logged.String())
	}
	// The token file and folder are private.
	for path, want := range map[string]os.FileMode{p.tokenFile(): 0o600, p.Run(): 0o700} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: %v %v", path, st.Mode().Perm(), err)
		}
	}
}

func TestSecondHubAsksTheFirstToShowItself(t *testing.T) {
	h, p, _ := startTestHub(t)
	shown := make(chan struct{}, 1)
	h.onShow = func() { shown <- struct{}{} }
	core, err := NewCore(context.Background(), p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartHub(context.Background(), core, nil); !errors.Is(err, ErrHubRunning) {
		t.Fatalf("err %v", err)
	}
	if err := AskToShow(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	select {
	case <-shown:
	case <-time.After(5 * time.Second):
		t.Fatal("the first hub was not asked to show itself")
	}
}

func TestRelayEndsWhenTheHubDiesAndNothingSurvives(t *testing.T) {
	h, p, _ := startTestHub(t)
	conn, err := Dial(context.Background(), p, ModeMCP)
	if err != nil {
		t.Fatal(err)
	}
	clientIn, relayIn := io.Pipe()
	relayOut, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Relay(context.Background(), conn, clientIn, clientOut) }()
	r := bufio.NewReader(relayOut)
	initialize(t, relayIn, r, "relay-client")
	fmt.Fprint(relayIn, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"import subprocess\nsubprocess.run(['sleep', '3030'])"}}}`+"\n")
	if len(proctest.WaitFound("sleep\x003030", 30*time.Second)) == 0 {
		t.Fatal("the run never started")
	}
	go io.Copy(io.Discard, relayOut)
	h.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrHubGone) {
			t.Fatalf("relay ended with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the relay did not end when the hub went away")
	}
	if left := proctest.WaitGone("sleep\x003030", 5*time.Second); len(left) > 0 {
		t.Fatalf("processes %v outlived the hub's connection", left)
	}
	if left := proctest.WaitGone(filepath.Join(p.Home, "runs"), 5*time.Second); len(left) > 0 {
		t.Fatalf("Python %v outlived the hub's connection", left)
	}
}
