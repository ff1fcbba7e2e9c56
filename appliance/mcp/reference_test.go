package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// referencePath is the reference the catalog generates: what tools/list
// leaves out to stay within api.ToolsListBudget.
const referencePath = "../../docs/tools.md"

// TestReferenceGolden: docs/tools.md is the reference made from the
// catalog and the api types (go test -update rewrites it), so what the
// short descriptions and schemas on tools/list leave out is written down
// from the same source.
func TestReferenceGolden(t *testing.T) {
	goldenBytes(t, referencePath, []byte(reference(catalog())))
}

// reference writes the tools' reference in Markdown: each tool's
// description on tools/list and the rest of it, its arguments with their
// bounds, and its answer's members to the bottom.
func reference(tools []*tool) string {
	var b strings.Builder
	b.WriteString(`# Tools reference

Generated from the tool catalog (appliance/mcp) and the api types by
` + "`go test ./appliance/mcp -run ReferenceGolden -update`" + `; do not edit.
tools/list carries each tool's short description and schemas that give
the arguments' bounds and the answer's members one level deep (see the
size budget in wire.md); this file gives the rest. How to work with the
tools as a whole (frames, control, operation ids, the codes an input may
answer) is in the ` + "`operate_phone`" + ` prompt and in wire.md.

## Every answer

`)
	memberTable(&b, api.Members(reflect.TypeFor[api.Outcome]()), false)
	b.WriteString("\n(mutating): only mutating tools' answers carry it.\n")
	for _, t := range tools {
		kind := ""
		if t.mutating {
			kind = ", mutating"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s (%s%s). %s\n\n%s\n", t.name, t.title, t.scope, kind, t.desc, strings.TrimSpace(t.more))
		if args := api.Members(t.args); len(args) > 0 {
			b.WriteString("\nArguments:\n\n| name | type | bounds | |\n|---|---|---|---|\n")
			for _, m := range args {
				bound := boundText(t.name, m)
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Path, cell(m.Type), bound, m.Doc)
			}
		}
		if res := api.Members(t.result); len(res) > 0 {
			b.WriteString("\nAnswer, when ok:\n\n")
			memberTable(&b, res, true)
		}
	}
	return b.String()
}

// memberTable writes members as a table; optional marks the members an
// answer may leave out.
func memberTable(b *strings.Builder, ms []api.Member, optional bool) {
	b.WriteString("| member | type | |\n|---|---|---|\n")
	for _, m := range ms {
		note := m.Doc
		if m.Mutating {
			note = strings.TrimSpace("(mutating) " + note)
		}
		if optional && !m.Required {
			note = strings.TrimSpace("(optional) " + note)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", m.Path, cell(m.Type), note)
	}
}

// cell escapes the bars of an enumeration (jpeg|png) in a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// boundText is an argument's bounds and default in words: required, its
// range or length, its format and its default.
func boundText(tool api.Tool, m api.Member) string {
	var parts []string
	b, ok := api.BoundOf(tool, m.Path)
	if m.Required && !b.Optional {
		parts = append(parts, "required")
	}
	if ok {
		switch {
		case b.Ranged:
			parts = append(parts, span(tool, m.Path))
		case b.MaxLen > 0 && strings.HasPrefix(m.Type, "array"):
			parts = append(parts, "at most "+num(float64(b.MaxLen))+" items")
		case b.MaxLen > 0 && b.MinLen == b.MaxLen:
			parts = append(parts, num(float64(b.MaxLen))+" characters")
		case b.MaxLen > 0 && b.MinLen == 0:
			parts = append(parts, "at most "+num(float64(b.MaxLen))+" characters")
		case b.MaxLen > 0:
			parts = append(parts, span(tool, m.Path)+" characters")
		}
		if b.Format != "" {
			parts = append(parts, b.Format)
		}
		if b.Default != nil {
			parts = append(parts, "default "+def(tool, m.Path))
		}
	}
	return strings.Join(parts, ", ")
}
