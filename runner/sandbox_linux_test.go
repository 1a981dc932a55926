package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sandboxRun runs code with the given spec changes and returns the result.
func sandboxRun(t *testing.T, r *Runner, ws, code string, edit func(*Spec)) *Result {
	t.Helper()
	spec := Spec{ID: fmt.Sprintf("sb-%d", time.Now().UnixNano()), Code: code, Timeout: 30 * time.Second, Workspace: ws, Level: Standard, MemoryMB: 2048}
	if edit != nil {
		edit(&spec)
	}
	res, err := r.Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func errText(res *Result) string {
	if res.Error == nil {
		return ""
	}
	return res.Error.Type + ": " + res.Error.Message
}

func TestStandardWriteOutsideWorkspaceFails(t *testing.T) {
	r, ws := newTestRunner(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	res := sandboxRun(t, r, ws, fmt.Sprintf("open(%q, 'w').write('escaped')", outside), nil)
	if res.Status != StatusError || res.Error.Type != "PermissionError" {
		t.Fatalf("status %s, error %s", res.Status, errText(res))
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("the file outside the workspace exists: %v", err)
	}
	// Inside the workspace, writing works.
	if res := sandboxRun(t, r, ws, "open('inside.txt', 'w').write('ok')", nil); res.Status != StatusOK {
		t.Fatalf("writing in the workspace failed: %s", errText(res))
	}
}

func TestStandardReadsAllButSecrets(t *testing.T) {
	r, ws := newTestRunner(t)
	for path, content := range map[string]string{".ssh/id_ed25519": "PRIVATE KEY", ".aws/credentials": "AKIA", "notes/todo.txt": "buy milk"} {
		full := filepath.Join(r.UserHome, path)
		os.MkdirAll(filepath.Dir(full), 0o700)
		os.WriteFile(full, []byte(content), 0o600)
	}
	for _, secret := range []string{".ssh/id_ed25519", ".aws/credentials"} {
		res := sandboxRun(t, r, ws, fmt.Sprintf("import os\nopen(os.path.join(os.environ['HOME'], %q)).read()", secret), nil)
		if res.Status != StatusError || res.Error.Type != "PermissionError" || res.Value != nil {
			t.Fatalf("%s: status %s, error %s, value %v", secret, res.Status, errText(res), res.Value)
		}
	}
	res := sandboxRun(t, r, ws, "import os\nopen(os.path.join(os.environ['HOME'], 'notes/todo.txt')).read()", nil)
	if res.Status != StatusOK || *res.Value != "'buy milk'" {
		t.Fatalf("reading an ordinary file failed: %s", errText(res))
	}
	// Listing the secrets folder is refused too.
	res = sandboxRun(t, r, ws, "import os\nos.listdir(os.path.join(os.environ['HOME'], '.ssh'))", nil)
	if res.Status != StatusError {
		t.Fatalf("listing ~/.ssh worked: %v", res.Value)
	}
}

func TestNoNetworkByDefault(t *testing.T) {
	r, ws := newTestRunner(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := tcp.Accept(); err == nil {
			accepted <- c
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := tcp.Addr().(*net.TCPAddr).Port
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port

	for _, mode := range []struct {
		name       string
		namespaces bool
		want       string
	}{
		{"network namespace", true, "network namespace"},
		{"seccomp fallback", false, "seccomp"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			useNamespaces = mode.namespaces
			defer func() { useNamespaces = true }()
			res := sandboxRun(t, r, ws, fmt.Sprintf("import socket\ns = socket.create_connection(('127.0.0.1', %d), timeout=3)\ns.sendall(b'hello')", tcpPort), nil)
			if res.Status != StatusError {
				t.Fatalf("TCP connected: status %s", res.Status)
			}
			if !strings.Contains(res.Sandbox, mode.want) {
				t.Fatalf("sandbox %q does not mention %q", res.Sandbox, mode.want)
			}
			if !strings.Contains(strings.Join(res.Notes, " "), "network: true") {
				t.Fatalf("the failure does not say how to ask for network: %v (%s)", res.Notes, errText(res))
			}
			select {
			case c := <-accepted:
				c.Close()
				t.Fatal("the listener saw a connection")
			case <-time.After(200 * time.Millisecond):
			}
			res = sandboxRun(t, r, ws, fmt.Sprintf("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'leak', ('127.0.0.1', %d))", udpPort), nil)
			udp.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			buf := make([]byte, 16)
			if n, _, err := udp.ReadFrom(buf); err == nil {
				t.Fatalf("a UDP datagram was delivered: %q (status %s)", buf[:n], res.Status)
			}
		})
	}

	// With network allowed for the run, the same connection works.
	res := sandboxRun(t, r, ws, fmt.Sprintf("import socket\ns = socket.create_connection(('127.0.0.1', %d), timeout=3)\ns.sendall(b'hello')\ns.close()\n'sent'", tcpPort),
		func(s *Spec) { s.Network = true })
	if res.Status != StatusOK {
		t.Fatalf("network: true did not connect: %s", errText(res))
	}
	select {
	case c := <-accepted:
		got := make([]byte, 5)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := c.Read(got)
		c.Close()
		if string(got[:n]) != "hello" {
			t.Fatalf("listener read %q", got[:n])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the listener saw nothing with network allowed")
	}
}

func TestMemoryLimit(t *testing.T) {
	r, ws := newTestRunner(t)
	res := sandboxRun(t, r, ws, "data = bytearray(8 * 1024**3)\nlen(data)", nil)
	if res.Status != StatusError || res.Error.Type != "MemoryError" {
		t.Fatalf("status %s error %s", res.Status, errText(res))
	}
	if notes := strings.Join(res.Notes, " "); !strings.Contains(notes, "2 GiB") || !strings.Contains(notes, "memory_mb") {
		t.Fatalf("the result does not name the memory limit: %v", res.Notes)
	}
	if !strings.Contains(res.Sandbox, "2 GiB memory") {
		t.Fatalf("sandbox %q", res.Sandbox)
	}
}

func countProcesses() int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if strings.TrimLeft(e.Name(), "0123456789") == "" {
			n++
		}
	}
	return n
}

func TestForkBombIsContained(t *testing.T) {
	r, ws := newTestRunner(t)
	before := countProcesses()
	start := time.Now()
	res := sandboxRun(t, r, ws, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass", func(s *Spec) { s.Timeout = 5 * time.Second })
	if res.Status != StatusTimeout {
		t.Fatalf("status %s (%s)", res.Status, errText(res))
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the fork bomb ran for %s", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for countProcesses() > before+3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if after := countProcesses(); after > before+3 {
		t.Fatalf("the machine had %d processes before and %d after", before, after)
	}
	if res := sandboxRun(t, r, ws, "import subprocess\nsubprocess.run(['true']).returncode", nil); res.Status != StatusOK || *res.Value != "0" {
		t.Fatalf("the next run failed: %s", errText(res))
	}
}

func TestFileSizeLimit(t *testing.T) {
	r, ws := newTestRunner(t)
	res := sandboxRun(t, r, ws, "with open('big.bin', 'wb') as f:\n    for _ in range(20):\n        f.write(b'x' * 1024 * 1024)", func(s *Spec) { s.FileMB = 5 })
	if res.Status != StatusError || !strings.Contains(errText(res), "File too large") {
		t.Fatalf("status %s error %s", res.Status, errText(res))
	}
	st, err := os.Stat(filepath.Join(ws, "big.bin"))
	if err != nil || st.Size() > 5<<20 {
		t.Fatalf("big.bin: %v, %d bytes", err, st.Size())
	}
	if !strings.Contains(strings.Join(res.Notes, " "), "5 MiB") {
		t.Fatalf("notes %v", res.Notes)
	}
}

func TestStrictImports(t *testing.T) {
	r, ws := newTestRunner(t)
	strict := func(s *Spec) { s.Level = Strict; s.AllowedImports = []string{"math", "statistics", "json"} }
	for _, mod := range []string{"os", "socket", "subprocess"} {
		res := sandboxRun(t, r, ws, "import "+mod, strict)
		msg := errText(res)
		if res.Status != StatusError || !strings.Contains(msg, fmt.Sprintf("Importing '%s' is not allowed", mod)) || !strings.Contains(msg, "Allowed modules: json, math, statistics") {
			t.Fatalf("import %s: status %s, %s", mod, res.Status, msg)
		}
	}
	res := sandboxRun(t, r, ws, "import math, statistics\nstatistics.mean([1, 2, 3]) + math.sqrt(16)", strict)
	if res.Status != StatusOK || *res.Value != "6.0" {
		t.Fatalf("allowed imports failed: %s", errText(res))
	}
	if !strings.HasPrefix(res.Sandbox, "strict (") {
		t.Fatalf("sandbox %q", res.Sandbox)
	}
	// Strict reads only Python, system files and the workspace.
	os.MkdirAll(r.UserHome, 0o700)
	os.WriteFile(filepath.Join(r.UserHome, "diary.txt"), []byte("private"), 0o600)
	res = sandboxRun(t, r, ws, fmt.Sprintf("open(%q).read()", filepath.Join(r.UserHome, "diary.txt")), strict)
	if res.Status != StatusError || res.Error.Type != "PermissionError" {
		t.Fatalf("strict read the home folder: status %s %s", res.Status, errText(res))
	}
}

func TestFailsClosedWithoutLandlock(t *testing.T) {
	r, ws := newTestRunner(t)
	launcherEnv = []string{"PYGATE_TEST_NO_LANDLOCK=1"}
	defer func() { launcherEnv = []string{} }()
	_, err := r.Run(context.Background(), Spec{ID: "no-landlock", Code: "open('ran.txt', 'w').write('x')", Timeout: 30 * time.Second, Workspace: ws, Level: Standard}, nil)
	se, ok := err.(*SetupError)
	if !ok || !strings.Contains(se.Problem, "Landlock") || !strings.Contains(se.Problem, "did not run") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); !os.IsNotExist(err) {
		t.Fatal("the code ran although the sandbox could not be set up")
	}
	// Off is the explicit way to run without it.
	res, err := r.Run(context.Background(), Spec{ID: "off", Code: "'ran'", Timeout: 30 * time.Second, Workspace: ws, Level: Off}, nil)
	if err != nil || res.Status != StatusOK || !strings.HasPrefix(res.Sandbox, "off") {
		t.Fatalf("off: %+v %v", res, err)
	}
}

func TestSandboxIsReported(t *testing.T) {
	r, ws := newTestRunner(t)
	res := sandboxRun(t, r, ws, "1", nil)
	for _, want := range []string{"standard (", "Landlock", "files+TCP", "network namespace", "2 GiB memory", "256 processes"} {
		if !strings.Contains(res.Sandbox, want) {
			t.Fatalf("sandbox %q lacks %q", res.Sandbox, want)
		}
	}
}
