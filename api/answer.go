package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Outcome is what every answer carries beside the tool's result: the
// status, the error when failed, and for mutating tools the operation and
// whether anything reached the phone.
type Outcome struct {
	Status      Status `json:"status" desc:"ok, failed (error says why) or pending (still running)."`
	OperationID string `json:"operation_id,omitempty" schema:"mutating" desc:"The operation's id (yours or one the box generated)."`
	Dispatched  *bool  `json:"dispatched,omitempty" schema:"mutating" desc:"false: nothing reached the phone."`
	State       string `json:"state,omitempty" schema:"mutating" desc:"Journal state: queued, dispatched, succeeded, failed, cancelled or outcome_unknown."`
	Replayed    bool   `json:"replayed,omitempty" schema:"mutating" desc:"true: this is the stored answer of an earlier call with the same operation_id."`
	// Tool names the tool of a pending operation.
	Tool  Tool   `json:"tool,omitempty" schema:"mutating" desc:"Pending answers: the operation's tool."`
	Error *Error `json:"error,omitempty"`
	// Ask is set when the owner must allow the call first (status
	// pending, nothing dispatched) and on ASK_DENIED and ASK_EXPIRED.
	Ask *Ask `json:"ask,omitempty" schema:"mutating" desc:"The owner's decision this call waits for: call again with the same operation_id and arguments once decided."`
}

// Failed reports whether the status is failed.
func (o Outcome) Failed() bool { return o.Status == StatusFailed }

// Answer is one tool's answer: the outcome and, when the status is ok, the
// tool's result R. Its JSON is one object with the outcome's and the
// result's members side by side.
type Answer[R any] struct {
	Outcome
	Result *R
}

// MarshalJSON writes the outcome's and the result's members as one object.
func (a Answer[R]) MarshalJSON() ([]byte, error) {
	o, err := json.Marshal(a.Outcome)
	if err != nil {
		return nil, fmt.Errorf("api: encode outcome: %w", err)
	}
	if a.Result == nil {
		return o, nil
	}
	r, err := json.Marshal(a.Result)
	if err != nil {
		return nil, fmt.Errorf("api: encode result: %w", err)
	}
	return joinObjects(o, r), nil
}

// UnmarshalJSON reads an answer: the outcome, and the result unless the
// status is failed.
func (a *Answer[R]) UnmarshalJSON(b []byte) error {
	*a = Answer[R]{}
	if err := json.Unmarshal(b, &a.Outcome); err != nil {
		return fmt.Errorf("api: decode answer: %w", err)
	}
	if a.Status == StatusFailed {
		return nil
	}
	var r R
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("api: decode answer's result: %w", err)
	}
	a.Result = &r
	return nil
}

// joinObjects joins two encoded JSON objects into one.
func joinObjects(a, b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) <= 2 { // {}
		return a
	}
	a = bytes.TrimSpace(a)
	if len(a) <= 2 {
		return b
	}
	out := make([]byte, 0, len(a)+len(b))
	out = append(out, a[:len(a)-1]...)
	out = append(out, ',')
	return append(out, b[1:]...)
}
