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
	AdditionalProperties *bool               `json:"additionalProperties,omitempty"`
	Default              any                 `json:"default,omitempty"`
	Description          string              `json:"description,omitempty"`
	Enum                 []string            `json:"enum,omitempty"`
	Format               string              `json:"format,omitempty"`
	Items                *Schema             `json:"items,omitempty"`
	MaxItems             *int                `json:"maxItems,omitempty"`
	MaxLength            *int                `json:"maxLength,omitempty"`
	Maximum              *float64            `json:"maximum,omitempty"`
	MinLength            *int                `json:"minLength,omitempty"`
	Minimum              *float64            `json:"minimum,omitempty"`
	Properties           *map[string]*Schema `json:"properties,omitempty"`
	Required             []string            `json:"required,omitempty"`
	Type                 Types               `json:"type,omitempty"`
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

// Interfaces a type implements to shape its schema.
type (
	enumerated  interface{ Enum() []string }
	multiTyped  interface{ schemaTypes() []string }
	closedShape interface{ closedSchema() }
)

var rawMessage = reflect.TypeFor[json.RawMessage]()

// InputSchema is the JSON Schema of tool's arguments, args being the
// arguments' struct type: closed (no other members), the members without
// omitempty required, each bounded by [BoundOf].
func InputSchema(tool Tool, args reflect.Type) *Schema {
	s := &Schema{Type: Types{"object"}, AdditionalProperties: ptr(false)}
	props := map[string]*Schema{}
	for _, f := range fields(args) {
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
func OutputSchema(result reflect.Type, mutating bool) *Schema {
	props := map[string]*Schema{}
	for _, f := range fields(reflect.TypeFor[Outcome]()) {
		if f.mutating && !mutating {
			continue
		}
		props[f.name] = f.schema()
	}
	for _, f := range fields(result) {
		props[f.name] = f.schema()
	}
	return &Schema{Type: Types{"object"}, Properties: &props, Required: []string{"status"}}
}

func (b Bound) apply(s *Schema) {
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
	s.Format = b.Format
	s.Default = b.Default
}

type field struct {
	name, desc string
	typ        reflect.Type
	required   bool
	mutating   bool // an Outcome member only mutating tools' answers have
}

func (f field) schema() *Schema {
	s := typeSchema(f.typ)
	s.Description = f.desc
	return s
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
		out = append(out, field{name: name, desc: f.Tag.Get("desc"), typ: f.Type,
			required: !strings.Contains(opts, "omitempty"), mutating: f.Tag.Get("schema") == "mutating"})
	}
	return out
}

// typeSchema is the schema of a Go type.
func typeSchema(t reflect.Type) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
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
	case reflect.Map:
		s.Type = Types{"object"}
	case reflect.Struct:
		s.Type = Types{"object"}
		props := map[string]*Schema{}
		_, closed := v.(closedShape)
		for _, f := range fields(t) {
			props[f.name] = f.schema()
			if closed && f.required {
				s.Required = append(s.Required, f.name)
			}
		}
		if closed {
			s.AdditionalProperties = ptr(false)
		}
		s.Properties = &props
	}
	return s
}

func ptr[T any](v T) *T { return &v }
