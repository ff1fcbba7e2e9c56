package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

func invalid(format string, args ...any) *control.Error { return api.Invalid(format, args...) }

// decodeArgs decodes one JSON object into v strictly: unknown members and
// wrong types are INVALID_ARGUMENTS with a sentence naming the member.
func decodeArgs(raw json.RawMessage, v any) *control.Error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return invalid("argument %q must be %s, not a JSON %s", te.Field, typeWord(te.Type), te.Value)
		case errors.As(err, &se):
			return invalid("arguments are not valid JSON: %v", se)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
			return invalid("unknown argument %s; tools/list gives this tool's arguments", f)
		}
		return invalid("arguments could not be read: %s", msg)
	}
	if dec.More() {
		return invalid("arguments must be one JSON object")
	}
	return nil
}

// typeWord names the JSON type a Go type takes.
func typeWord(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
	}
	return "of another type"
}
