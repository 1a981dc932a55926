package runner

import (
	"context"
	"fmt"
	"os"

	"github.com/pygate/pygate/internal/testenv"
	"sort"
	"testing"
	"time"
)

// BenchmarkSandboxOverhead measures what the sandbox launcher adds to one
// execution: the median run of print(i) at the standard level against the
// unsandboxed path (level off), interleaved in the same run. It reports
// both medians and their ratio; it asserts nothing about time.
//
//	go test ./runner -run '^$' -bench SandboxOverhead -benchtime 40x
func BenchmarkSandboxOverhead(b *testing.B) {
	home := b.TempDir()
	r := New(Config{
		RunsDir:  home + "/runs",
		Pythons:  NewPythons(home+"/uv", FindUV(home+"/uv"), testenv.MachinePython),
		Launcher: mustExecutable(b),
		UserHome: home + "/user",
		Secrets:  Secrets("linux", home+"/user", home+"/run"),
	})
	ws := home + "/ws"
	once := func(level Level, i int) time.Duration {
		start := time.Now()
		res, err := r.Run(context.Background(), Spec{ID: fmt.Sprintf("%s-%d", level, i), Code: fmt.Sprintf("print(%d)", i), Timeout: time.Minute, Workspace: ws, Level: level}, nil)
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%s run: %v %+v", level, err, res)
		}
		return time.Since(start)
	}
	once(Off, -1) // warm the interpreter and page cache
	once(Standard, -1)
	var off, sandboxed []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		off = append(off, once(Off, i))
		sandboxed = append(sandboxed, once(Standard, i))
	}
	mo, ms := median(off), median(sandboxed)
	b.ReportMetric(float64(mo.Microseconds())/1000, "off-median-ms")
	b.ReportMetric(float64(ms.Microseconds())/1000, "standard-median-ms")
	b.ReportMetric(float64(ms)/float64(mo), "ratio")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func mustExecutable(b *testing.B) string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return exe
}
