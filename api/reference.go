package api

import (
	"reflect"
	"strings"
)

// Member is one member of a tool's arguments or answer as the reference
// (docs/tools.md) lists it: what the short schemas on tools/list leave
// out.
type Member struct {
	// Path names the member from the top: observation.frame_id; a list's
	// items' members under the list's name with []: pages[].shift.
	Path string
	// Type is its JSON type, a list's as "array of" its items' type, an
	// enumeration's as its values (jpeg|png).
	Type string
	// Required: always present (an argument the call must give, a member
	// every answer of that shape has).
	Required bool
	// Mutating: an [Outcome] member only mutating tools' answers carry.
	Mutating bool
	// Doc is the member's doc tag, else its desc tag.
	Doc string
}

// Members lists the JSON members of the struct type t and, depth first,
// those of the objects inside them.
func Members(t reflect.Type) []Member {
	return members(deref(t), "", nil)
}

func members(t reflect.Type, prefix string, seen []reflect.Type) []Member {
	var out []Member
	for _, f := range fields(t) {
		m := Member{Path: prefix + f.name, Type: typeText(f.typ), Required: f.required, Mutating: f.mutating, Doc: f.doc}
		out = append(out, m)
		inner, path := deref(f.typ), m.Path+"."
		if k := inner.Kind(); k == reflect.Slice || k == reflect.Array {
			inner, path = deref(inner.Elem()), m.Path+"[]."
		}
		if inner.Kind() == reflect.Struct && inner != rawMessage && !containsType(seen, inner) {
			out = append(out, members(inner, path, append(seen, t))...)
		}
	}
	return out
}

func containsType(ts []reflect.Type, t reflect.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// typeText is a type as the reference writes it.
func typeText(t reflect.Type) string {
	s := typeSchema(t)
	return schemaText(s)
}

func schemaText(s *Schema) string {
	if len(s.Enum) > 0 {
		return strings.Join(s.Enum, "|")
	}
	if s.Items != nil {
		return "array of " + schemaText(s.Items)
	}
	return strings.Join(s.Type, "|")
}
