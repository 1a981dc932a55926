// Command roundtrip measures what PyGate adds to running a tiny piece of
// code: the median round trip of run_python with print(i) through
// `pygate mcp --no-ui`, against a bare `python -I -c print(i)` start of the
// same interpreter, measured in the same run. It prints both and the ratio.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/pygate/pygate/runner"
)

func main() {
	bin := flag.String("pygate", "bin/pygate", "the pygate binary to measure")
	n := flag.Int("n", 40, "measured round trips of each kind")
	flag.Parse()
	if err := run(*bin, *n); err != nil {
		fmt.Fprintln(os.Stderr, "roundtrip:", err)
		os.Exit(1)
	}
}

func run(bin string, n int) error {
	home, err := os.MkdirTemp("", "pygate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	version, err := exec.Command("python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		return fmt.Errorf("python3: %w", err)
	}
	settings, _ := json.Marshal(map[string]any{"approval": "allow-all", "python_version": strings.TrimSpace(string(version))})
	if err := os.WriteFile(filepath.Join(home, "settings.json"), settings, 0o600); err != nil {
		return err
	}

	// The interpreter PyGate will use, resolved the same way.
	uvDir := filepath.Join(home, "uv")
	want := strings.TrimSpace(string(version))
	py, err := runner.NewPythons(uvDir, runner.FindUV(uvDir), func() string { return want }).Base(context.Background())
	if err != nil {
		return err
	}

	tr := transport.NewStdio(bin, []string{"PYGATE_HOME=" + home}, "mcp", "--no-ui")
	if err := tr.Start(context.Background()); err != nil {
		return err
	}
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		return err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		return err
	}

	call := func(i int) (time.Duration, error) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "run_python"
		req.Params.Arguments = map[string]any{"code": fmt.Sprintf("print(%d)", i)}
		start := time.Now()
		res, err := c.CallTool(context.Background(), req)
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("run_python failed: %v", res.Content)
		}
		return d, nil
	}
	bare := func(i int) (time.Duration, error) {
		start := time.Now()
		out, err := exec.Command(py.Path, "-I", "-c", fmt.Sprintf("print(%d)", i)).Output()
		d := time.Since(start)
		if err != nil || strings.TrimSpace(string(out)) != fmt.Sprint(i) {
			return 0, fmt.Errorf("bare python: %v %q", err, out)
		}
		return d, nil
	}

	// Warm both paths, then interleave them so drift hits both alike.
	for i := 0; i < 3; i++ {
		if _, err := call(i); err != nil {
			return err
		}
		if _, err := bare(i); err != nil {
			return err
		}
	}
	var viaPyGate, viaPython []time.Duration
	for i := 0; i < n; i++ {
		d, err := call(i)
		if err != nil {
			return err
		}
		viaPyGate = append(viaPyGate, d)
		d, err = bare(i)
		if err != nil {
			return err
		}
		viaPython = append(viaPython, d)
	}
	mp, mb := median(viaPyGate), median(viaPython)
	fmt.Printf("interpreter: Python %s at %s\n", py.Version, py.Path)
	fmt.Printf("runs: %d of each, interleaved\n", n)
	fmt.Printf("median run_python round trip through pygate mcp: %s\n", mp.Round(10*time.Microsecond))
	fmt.Printf("median bare python -I -c start:                  %s\n", mb.Round(10*time.Microsecond))
	fmt.Printf("ratio: %.2fx (PyGate adds %s)\n", float64(mp)/float64(mb), (mp - mb).Round(10*time.Microsecond))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
