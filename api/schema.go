package api

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Schema is a JSON Schema: the draft 2020-12 subset the tools use. Its
// members are declared in the order of their JSON names, so a Schema
// encodes with its keys sorted, as the schemas the box served before they
// were generated did.
type Schema struct {
	Default     any                 `json:"default,omitempty"`
	Description string              `json:"description,omitempty"`
	Enum        []string            `json:"enum,omitempty"`
	Format      string              `json:"format,omitempty"`
	Items       *Schema             `json:"items,omitempty"`
	MaxItems    *int                `json:"maxItems,omitempty"`
	MaxLength   *int                `json:"maxLength,omitempty"`
	Maximum     *float64            `json:"maximum,omitempty"`
	MinLength   *int                `json:"minLength,omitempty"`
	Minimum     *float64            `json:"minimum,omitempty"`
	Properties  *map[string]*Schema `json:"properties,omitempty"`
	Required    []string            `json:"required,omitempty"`
	Type        Types               `json:"type,omitempty"`
}

// Types is a schema's type: one name, or a list when a value may be of
// several types.
type Types []string

// MarshalJSON writes one type as a string, several as a list.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// ToolsListBudget is the most bytes the box's tools/list result may take
// as compact JSON, every tool listed: what an agent pays in its context
// before its first call (about a quarter as many tokens). It is issue
// 28's 24 KB, counted in thousands as its other figures are. A test holds
// the catalog to it; descriptions and schemas are written to fit.
const ToolsListBudget = 24_000

// Interfaces a type implements to shape its schema.
type (
	enumerated interface{ Enum() []string }
	multiTyped interface{ schemaTypes() []string }
)

var rawMessage = reflect.TypeFor[json.RawMessage]()

// InputSchema is the JSON Schema of tool's arguments, args being the
// arguments' struct type: the members without omitempty required, each
// bounded by [BoundOf] and described by its desc tag (short; the reference
// gives the doc tag). It does not say additionalProperties false, though
// the box refuses any other member (INVALID_ARGUMENTS names it): the
// properties already list every member, and the words would cost every
// tool's caller ([ToolsListBudget]).
func InputSchema(tool Tool, args reflect.Type) *Schema {
	s := &Schema{Type: Types{"object"}}
	props := map[string]*Schema{}
	for _, f := range fields(args) {
		if f.unlisted {
			continue
		}
		p := typeSchema(f.typ)
		p.Description = f.desc
		b, ok := BoundOf(tool, f.name)
		if ok {
			b.apply(p)
		}
		props[f.name] = p
		if f.required && !b.Optional {
			s.Required = append(s.Required, f.name)
		}
	}
	s.Properties = &props
	return s
}

// OutputSchema is the JSON Schema of tool's answer: the [Outcome]'s
// members (those of mutating tools only when mutating) and the members of
// result, the tool's result struct type. Only status is required: a failed
// answer carries no result.
//
// It is one level deep and says each member's JSON type (and a list's
// items' type); an object member is an open object. Every answer validates
// against it, and it costs the caller little ([ToolsListBudget]); the
// members' descriptions and the shapes below the first level are in the
// reference, made from the same types ([Members]).
func OutputSchema(result reflect.Type, mutating bool) *Schema {
	props := map[string]*Schema{}
	for _, f := range fields(reflect.TypeFor[Outcome]()) {
		if f.mutating && !mutating {
			continue
		}
		props[f.name] = shallow(f.typ)
	}
	for _, f := range fields(result) {
		props[f.name] = shallow(f.typ)
	}
	return &Schema{Type: Types{"object"}, Properties: &props, Required: []string{"status"}}
}

// shallow is a member's schema in an output schema: its type and a list's
// items' type, without enumerations (the reference lists the values).
func shallow(t reflect.Type) *Schema {
	s := typeSchema(t)
	out := &Schema{Type: s.Type}
	if s.Items != nil {
		out.Items = &Schema{Type: s.Items.Type}
	}
	return out
}

// apply states the bound in s: the default and format always, the range
// and length unless [Bound.Unstated].
func (b Bound) apply(s *Schema) {
	s.Format = b.Format
	s.Default = b.Default
	if b.Unstated {
		return
	}
	if b.Ranged {
		s.Minimum, s.Maximum = ptr(b.Min), ptr(b.Max)
	}
	array := s.Items != nil
	if b.MinLen > 0 && !array {
		s.MinLength = ptr(b.MinLen)
	}
	if b.MaxLen > 0 {
		if array {
			s.MaxItems = ptr(b.MaxLen)
		} else {
			s.MaxLength = ptr(b.MaxLen)
		}
	}
}

type field struct {
	// desc is the short description an input schema carries; doc is what
	// the reference says (desc when the member has no doc tag).
	name, desc, doc string
	typ             reflect.Type
	required        bool
	mutating        bool // an Outcome member only mutating tools' answers have
	unlisted        bool // an argument taken for compatibility, not in the schema
}

// fields lists t's JSON members, embedded structs' members included, as
// encoding/json sees them.
func fields(t reflect.Type) []field {
	var out []field
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		desc, doc := f.Tag.Get("desc"), f.Tag.Get("doc")
		if doc == "" {
			doc = desc
		}
		out = append(out, field{name: name, desc: desc, doc: doc, typ: f.Type,
			required: !strings.Contains(opts, "omitempty"), mutating: f.Tag.Get("schema") == "mutating",
			unlisted: f.Tag.Get("schema") == "unlisted"})
	}
	return out
}

// typeSchema is the schema of a Go type: its JSON type, its values when it
// has an Enum method, and a list's items; a struct is an object.
func typeSchema(t reflect.Type) *Schema {
	t = deref(t)
	v := reflect.Zero(t).Interface()
	if m, ok := v.(multiTyped); ok {
		return &Schema{Type: m.schemaTypes()}
	}
	if t == rawMessage {
		return &Schema{Type: Types{"object"}}
	}
	s := &Schema{}
	if e, ok := v.(enumerated); ok {
		s.Enum = e.Enum()
	}
	switch t.Kind() {
	case reflect.Bool:
		s.Type = Types{"boolean"}
	case reflect.String:
		s.Type = Types{"string"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.Type = Types{"integer"}
	case reflect.Float32, reflect.Float64:
		s.Type = Types{"number"}
	case reflect.Slice, reflect.Array:
		s.Type = Types{"array"}
		s.Items = typeSchema(t.Elem())
	case reflect.Map, reflect.Struct:
		s.Type = Types{"object"}
	}
	return s
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func ptr[T any](v T) *T { return &v }
