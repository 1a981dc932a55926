package approval

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

//go:embed analyze.py
var analyzerPy string

// Flag is one use in the code the person should notice.
type Flag struct {
	Kind   string `json:"kind"` // subprocess, network, native, dynamic, delete, write
	Line   int    `json:"line"`
	Detail string `json:"detail"`
}

// PathUse is a file the code writes or deletes, as written in the code
// ("(computed)" when the path is not a literal).
type PathUse struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

// Analysis is what static analysis found in the code. It is a hint for
// the person, never a guarantee: code can hide what it does.
type Analysis struct {
	Analysed bool      `json:"parsed"`
	Problem  string    `json:"error"` // why it could not be analysed
	Imports  []string  `json:"imports"`
	Flags    []Flag    `json:"flags"`
	Writes   []PathUse `json:"writes"`
	Deletes  []PathUse `json:"deletes"`
	Clean    bool      `json:"-"` // analysed, nothing flagged, only harmless imports
}

// HarmlessModules may be imported by code that auto-safe runs without
// asking: pure computation and text, nothing that reaches files, processes
// or the network.
var HarmlessModules = []string{
	"collections", "datetime", "itertools", "math", "queue", "random", "re", "stat", "statistics", "time",
	"unicodedata", "json", "string", "functools", "operator", "decimal", "fractions", "heapq", "bisect",
	"typing", "dataclasses", "enum", "copy", "textwrap", "cmath", "numbers", "pprint", "calendar",
	"array", "base64", "binascii", "hashlib", "hmac", "uuid", "zlib", "difflib", "csv", "abc", "contextlib",
	"itertools", "secrets", "struct", "graphlib", "zoneinfo",
}

// Analyze parses code with python (never running it) and summarises what
// it touches. Code that does not parse, or an analyser that fails, gives an
// Analysis that says it could not analyse.
func Analyze(ctx context.Context, python, code string) Analysis {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-X", "utf8", "-c", analyzerPy)
	cmd.Stdin = strings.NewReader(code)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	hide(cmd)
	if err := cmd.Run(); err != nil {
		return Analysis{Problem: fmt.Sprintf("the analyser failed (%v)", err)}
	}
	return parseAnalysis(out.Bytes())
}

func parseAnalysis(data []byte) Analysis {
	var a Analysis
	if err := json.Unmarshal(data, &a); err != nil {
		return Analysis{Problem: "the analyser's answer could not be read"}
	}
	if !a.Analysed {
		if a.Problem == "" {
			a.Problem = "the code could not be parsed"
		}
		return a
	}
	a.Clean = len(a.Flags) == 0
	for _, m := range a.Imports {
		if !slices.Contains(HarmlessModules, m) {
			a.Clean = false
		}
	}
	return a
}

// Chips are short labels for the approval window, one per kind of use.
func (a Analysis) Chips() []string {
	if !a.Analysed {
		return []string{"could not analyse"}
	}
	labels := map[string]string{
		"subprocess": "runs programs",
		"network":    "uses the network",
		"native":     "calls native code",
		"dynamic":    "hides or builds code",
		"delete":     "deletes files",
		"write":      "writes files",
	}
	var chips []string
	for _, f := range a.Flags {
		if l := labels[f.Kind]; l != "" && !slices.Contains(chips, l) {
			chips = append(chips, l)
		}
	}
	if len(chips) == 0 {
		chips = append(chips, "nothing flagged")
	}
	return chips
}
