package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// toolSize is one tool's share of tools/list in compact JSON.
type toolSize struct {
	name                       string
	total, desc, input, output int
}

// toolsListSizes measures a tools/list result: its compact size and each
// tool's, with the description's and the two schemas' shares.
func toolsListSizes(t *testing.T, result json.RawMessage) (int, []toolSize) {
	t.Helper()
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatal(err)
	}
	var sizes []toolSize
	for _, raw := range list.Tools {
		var tl struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &tl); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, toolSize{name: tl.Name, total: compactLen(t, raw), desc: len(tl.Description),
			input: compactLen(t, tl.InputSchema), output: compactLen(t, tl.OutputSchema)})
	}
	return compactLen(t, result), sizes
}

// compactLen is the length of the JSON b as compact JSON, as the box
// sends it.
func compactLen(t *testing.T, b []byte) int {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Len()
}

// sizeTable writes the sizes as a Markdown table: bytes and estimated
// tokens (bytes/4) per tool and in total.
func sizeTable(total int, sizes []toolSize) string {
	var b strings.Builder
	b.WriteString("| tool | bytes | tokens | description | inputSchema | outputSchema |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", s.name, s.total, s.total/4, s.desc, s.input, s.output)
	}
	fmt.Fprintf(&b, "| **tools/list** | **%d** | **%d** | | | |\n", total, total/4)
	return b.String()
}

// TestToolsListSize holds tools/list, every tool listed, to
// api.ToolsListBudget bytes of compact JSON: what an agent pays in its
// context before its first call. With -v it prints each tool's bytes and
// estimated tokens (docs/wire.md keeps the table).
func TestToolsListSize(t *testing.T) {
	total, sizes := toolsListSizes(t, fullToolsList(t))
	table := sizeTable(total, sizes)
	t.Logf("tools/list, compact, %d tools:\n%s", len(sizes), table)
	if total > api.ToolsListBudget {
		t.Errorf("tools/list is %d bytes of compact JSON, over the budget of %d (api.ToolsListBudget); per tool:\n%s",
			total, api.ToolsListBudget, table)
	}
}

// TestWireDocToolsListSizes: docs/wire.md's table of what tools/list
// costs gives each tool's bytes and tokens as the catalog has them now
// (its "after" columns), so the figures an integrator reads do not go
// stale when a tool changes.
func TestWireDocToolsListSizes(t *testing.T) {
	total, sizes := toolsListSizes(t, fullToolsList(t))
	doc, err := os.ReadFile("../../docs/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // tool (or **tools/list**) -> its cells
	for line := range strings.Lines(string(doc)) {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) == 5 {
			for i := range cells {
				cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "*")
			}
			rows[cells[0]] = cells
		}
	}
	want := func(name string, bytes int) {
		t.Helper()
		row, ok := rows[name]
		if !ok {
			t.Errorf("docs/wire.md's tools/list table has no row for %s", name)
			return
		}
		if got, w := row[3]+" "+row[4], fmt.Sprintf("%d %d", bytes, bytes/4); got != w {
			t.Errorf("docs/wire.md gives %s %s bytes and tokens after; the catalog has %s (go test ./appliance/mcp -run ToolsListSize -v prints the table)", name, got, w)
		}
	}
	for _, s := range sizes {
		want(s.name, s.total)
	}
	want("tools/list", total)
}
