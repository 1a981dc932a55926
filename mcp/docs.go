package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/pygate/pygate/runner"
)

// DocLimits are the default limits, used for documentation and snapshots.
var DocLimits = Limits{DefaultTimeout: 60 * time.Second, MaxTimeout: 600 * time.Second, AnswerWithin: 45 * time.Second, MemoryMB: 2048, Level: runner.Standard}

// DocTools are the tools as a client sees them with default settings and
// the Python version left open.
func DocTools() []mcpgo.Tool {
	return []mcpgo.Tool{RunPythonTool(DocLimits, runner.Interpreter{}), GetResultTool()}
}

// ToolsMarkdown renders tools as the README's tool reference.
func ToolsMarkdown(tools []mcpgo.Tool) string {
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "### `%s`\n\n", t.Name)
		first, _, _ := strings.Cut(t.Description, "\n")
		b.WriteString(first + "\n\n")
		b.WriteString("| argument | type | required | description |\n|---|---|---|---|\n")
		names := make([]string, 0, len(t.InputSchema.Properties))
		for n := range t.InputSchema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p, _ := t.InputSchema.Properties[n].(map[string]any)
			req := "no"
			for _, r := range t.InputSchema.Required {
				if r == n {
					req = "yes"
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", n, schemaType(p), req, p["description"])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func schemaType(p map[string]any) string {
	t := fmt.Sprint(p["type"])
	var limits []string
	for _, k := range []string{"minLength", "maxLength", "minimum", "maximum", "maxItems"} {
		if v, ok := p[k]; ok {
			limits = append(limits, fmt.Sprintf("%s %v", k, v))
		}
	}
	if t == "array" {
		if items, ok := p["items"].(map[string]any); ok {
			t = "array of " + fmt.Sprint(items["type"])
		}
	}
	if len(limits) > 0 {
		t += " (" + strings.Join(limits, ", ") + ")"
	}
	return t
}

// ToolsSnapshot is the tools' JSON as served, for the snapshot under testdata/.
func ToolsSnapshot() ([]byte, error) {
	return json.MarshalIndent(DocTools(), "", "  ")
}
