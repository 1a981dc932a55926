package mcp

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tool snapshot and the README's tool section")

// TestToolSnapshot keeps testdata/tools.json equal to what clients are
// served, so a schema change is always a reviewed change.
func TestToolSnapshot(t *testing.T) {
	got, err := ToolsSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/tools.json"
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcp -update)", err)
	}
	if strings.TrimSpace(string(want)) != strings.TrimSpace(string(got)) {
		t.Fatalf("the tools changed; review and run `go test ./mcp -run TestToolSnapshot -update`\n%s", got)
	}
}

// TestREADMEToolSection keeps the README's tool reference generated from code.
func TestREADMEToolSection(t *testing.T) {
	const start, end = "<!-- tools:start -->\n", "<!-- tools:end -->"
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i, j := strings.Index(readme, start), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatal("README.md lacks the tools:start/tools:end markers")
	}
	want := ToolsMarkdown(DocTools())
	if *update {
		readme = readme[:i+len(start)] + want + readme[j:]
		if err := os.WriteFile("../README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if readme[i+len(start):j] != want {
		t.Fatalf("README's tool section is out of date; run `go test ./mcp -run TestREADME -update`")
	}
}
