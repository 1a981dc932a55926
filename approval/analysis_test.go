package approval

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed: run `make test`, which checks for it")
	}
	return p
}

func kinds(a Analysis) []string {
	var out []string
	for _, f := range a.Flags {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	slices.Sort(out)
	return out
}

func TestAnalyze(t *testing.T) {
	py := python(t)
	cases := []struct {
		name  string
		code  string
		kinds []string // flagged kinds, sorted
		clean bool
	}{
		{"plain arithmetic", "import math\nprint(math.sqrt(2))", nil, true},
		{"subprocess", "import subprocess\nsubprocess.run(['ls'])", []string{"subprocess"}, false},
		{"os.system", "import os\nos.system('rm -rf ~')", []string{"subprocess"}, false},
		{"os.system through an alias", "import os as o\no.system('x')", []string{"subprocess"}, false},
		{"from os import system", "from os import system as s\ns('x')", []string{"subprocess"}, false},
		{"requests", "import requests\nrequests.get('https://example.org')", []string{"network"}, false},
		{"urllib", "from urllib.request import urlopen\nurlopen('http://x')", []string{"network"}, false},
		{"raw socket", "import socket\nsocket.socket()", []string{"network"}, false},
		{"ctypes", "import ctypes\nctypes.CDLL(None)", []string{"native"}, false},
		{"eval", "eval('1+1')", []string{"dynamic"}, false},
		{"exec of built string", "exec('imp' + 'ort os')", []string{"dynamic"}, false},
		{"__import__ obfuscated", "m = __import__('o' + 's')\nm.system('x')", []string{"dynamic"}, false},
		{"importlib", "import importlib\nimportlib.import_module('os')", []string{"dynamic"}, false},
		{"getattr on builtins", "f = getattr(__builtins__, 'ev' + 'al')\nf('1')", []string{"dynamic"}, false},
		{"subclasses escape", "().__class__.__bases__[0].__subclasses__()", []string{"dynamic"}, false},
		{"sys.modules", "import sys\nsys.modules['os'].system('x')", []string{"dynamic"}, false},
		{"rmtree", "import shutil\nshutil.rmtree('/home')", []string{"delete"}, false},
		{"Path.unlink", "from pathlib import Path\nPath('a.txt').unlink()", []string{"delete"}, false},
		{"file write", "with open('out.txt', 'w') as f:\n    f.write('x')", []string{"write"}, false},
		{"file read is fine", "open('data.csv').read()", nil, true},
		{"computed mode may write", "m = 'w'\nopen('x', m)", []string{"write"}, false},
		{"write_text", "from pathlib import Path\nPath('n.txt').write_text('hi')", []string{"write"}, false},
		{"unknown import is not clean", "import numpy", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Analyze(context.Background(), py, c.code)
			if !a.Analysed {
				t.Fatalf("not analysed: %s", a.Problem)
			}
			if got := kinds(a); !slices.Equal(got, c.kinds) {
				t.Fatalf("kinds %v, want %v (%+v)", got, c.kinds, a.Flags)
			}
			if a.Clean != c.clean {
				t.Fatalf("clean %v, want %v", a.Clean, c.clean)
			}
		})
	}
}

func TestAnalyzeDetails(t *testing.T) {
	a := Analyze(context.Background(), python(t), "import shutil\n\nwith open('report.md', 'w') as f:\n    f.write('x')\nshutil.rmtree('old')")
	if len(a.Writes) != 1 || a.Writes[0].Path != "report.md" || a.Writes[0].Line != 3 {
		t.Fatalf("writes %+v", a.Writes)
	}
	if len(a.Deletes) != 1 || a.Deletes[0].Path != "old" {
		t.Fatalf("deletes %+v", a.Deletes)
	}
	if chips := a.Chips(); !slices.Contains(chips, "writes files") || !slices.Contains(chips, "deletes files") {
		t.Fatalf("chips %v", chips)
	}
}

func TestCodeThatDoesNotParseIsStillDescribed(t *testing.T) {
	for _, code := range []string{"def f(:\n  pass", "x = (" + strings.Repeat("(", 2000) + ")", "\x00"} {
		a := Analyze(context.Background(), python(t), code)
		if a.Analysed || a.Clean || a.Problem == "" || a.Chips()[0] != "could not analyse" {
			t.Fatalf("%q: %+v", code[:min(len(code), 20)], a)
		}
	}
	// A missing interpreter is a problem, never a clean bill.
	if a := Analyze(context.Background(), "/nonexistent/python", "1"); a.Analysed || a.Clean {
		t.Fatalf("%+v", a)
	}
}
