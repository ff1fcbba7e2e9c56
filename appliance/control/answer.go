package control

import (
	"encoding/json"
	"fmt"
	"github.com/openlolo/openlolo/api"
)

// Answer is a tool's structured answer (docs/wire.md, Answers): status, for mutating
// tools operation_id and dispatched, error when failed, and the tool's own
// fields beside them.
type Answer struct {
	Status      api.Status
	OperationID string // mutating tools only
	Dispatched  *bool  // mutating tools only
	Error       *Error
	Fields      map[string]any
}

// OK is a successful read answer with fields.
func OK(fields map[string]any) Answer { return Answer{Status: api.StatusOK, Fields: fields} }

// Fail is a failed read answer.
func Fail(err *Error) Answer { return Answer{Status: api.StatusFailed, Error: err} }

// Failed reports whether the answer's status is failed.
func (a Answer) Failed() bool { return a.Status == api.StatusFailed }

// Set adds a field, creating the map if needed.
func (a *Answer) Set(key string, v any) {
	if a.Fields == nil {
		a.Fields = map[string]any{}
	}
	a.Fields[key] = v
}

// Map returns the answer as one JSON object's members.
func (a Answer) Map() map[string]any {
	m := make(map[string]any, len(a.Fields)+4)
	for k, v := range a.Fields {
		m[k] = v
	}
	m["status"] = a.Status
	if a.OperationID != "" {
		m["operation_id"] = a.OperationID
	}
	if a.Dispatched != nil {
		m["dispatched"] = *a.Dispatched
	}
	if a.Error != nil {
		m["error"] = a.Error
	}
	return m
}

// MarshalJSON writes the fixed members and the fields as one object.
func (a Answer) MarshalJSON() ([]byte, error) { return json.Marshal(a.Map()) }

// UnmarshalJSON reads an answer written by MarshalJSON.
func (a *Answer) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("control: decode answer: %w", err)
	}
	*a = Answer{}
	for k, raw := range m {
		var err error
		switch k {
		case "status":
			err = json.Unmarshal(raw, &a.Status)
		case "operation_id":
			err = json.Unmarshal(raw, &a.OperationID)
		case "dispatched":
			var d bool
			err = json.Unmarshal(raw, &d)
			a.Dispatched = &d
		case "error":
			err = json.Unmarshal(raw, &a.Error)
		default:
			var v any
			err = json.Unmarshal(raw, &v)
			a.Set(k, v)
		}
		if err != nil {
			return fmt.Errorf("control: decode answer member %q: %w", k, err)
		}
	}
	return nil
}

func boolp(b bool) *bool { return &b }
