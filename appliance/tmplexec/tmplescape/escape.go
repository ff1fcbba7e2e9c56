// Package tmplescape writes html/template's contextual escaping out as
// template text that package tmplexec executes: every action with the
// escaper functions html/template chose for its context, and every text
// edit it made. Only tests import it, so the box's binary links no
// html/template executor (see tmplexec's doc).
package tmplescape

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"text/template/parse"
)

// Text escapes the templates of t reachable from entries, as executing
// them would, and returns them as one text of {{define}} blocks, in name
// order. It fails if html/template refuses a template, or if escaping
// made a template of its own for a second context (tmplexec would need
// its tree, which html/template keeps to itself).
func Text(t *template.Template, entries ...string) (string, error) {
	for _, name := range entries {
		// Executing escapes the template first; with no data the execution
		// itself may fail, which is not what is asked here.
		err := t.ExecuteTemplate(io.Discard, name, nil)
		var escErr *template.Error
		if errors.As(err, &escErr) {
			return "", fmt.Errorf("tmplescape: escape %s: %w", name, err)
		}
		if t.Lookup(name) == nil {
			return "", fmt.Errorf("tmplescape: no template %q", name)
		}
	}
	seen := map[string]*parse.Tree{}
	todo := slices.Clone(entries)
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[name] != nil {
			continue
		}
		tt := t.Lookup(name)
		if tt == nil || tt.Tree == nil {
			return "", fmt.Errorf("tmplescape: template %q is called but html/template keeps its tree to itself (a template called in a second context); call it from one context only", name)
		}
		seen[name] = tt.Tree
		todo = append(todo, calls(tt.Tree.Root)...)
	}
	var b strings.Builder
	for _, name := range slices.Sorted(mapsKeys(seen)) {
		fmt.Fprintf(&b, "{{define %q}}%s{{end}}\n", name, seen[name].Root.String())
	}
	return b.String(), nil
}

func mapsKeys(m map[string]*parse.Tree) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// calls lists the templates n's {{template}} actions name.
func calls(n parse.Node) []string {
	var out []string
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.TemplateNode:
			out = append(out, n.Name)
		}
	}
	walk(n)
	return out
}
