package api

import (
	"encoding/json"
	"fmt"
)

// Event is one openlolo_watch event: its kind, time and cursor, and the
// members of its kind (exactly one of the kind fields is set).
type Event struct {
	Kind   EventKind `json:"kind"`
	TimeMS int64     `json:"time_ms"`
	// Cursor continues a watch from just after this event.
	Cursor string `json:"cursor,omitempty"`
	// PhoneID is the phone the event is about on a box of several
	// phones; "" on a box of one, and for the box's and a client's events.
	PhoneID string `json:"phone,omitempty" desc:"The phone the event is about, on a box of several phones."`

	Frame     *FrameEvent     `json:"-"`
	Phone     *PhoneEvent     `json:"-"`
	Control   *ControlEvent   `json:"-"`
	Operation *OperationEvent `json:"-"`
	Access    *AccessEvent    `json:"-"`
	Ask       *AskEvent       `json:"-"`
}

// FrameEvent: the screen changed.
type FrameEvent struct {
	Seq         uint64 `json:"seq"`
	FrameTimeMS int64  `json:"frame_time_ms"`
}

// PhoneEvent: the phone was attached or detached or its geometry changed.
type PhoneEvent struct {
	Event         string     `json:"event"`
	State         PhoneState `json:"state"`
	Width         int        `json:"width"`
	Height        int        `json:"height"`
	GeometryEpoch string     `json:"geometry_epoch"`
}

// ControlEvent: control was acquired, renewed, released or lapsed, or
// input was paused or resumed.
type ControlEvent struct {
	Event  string `json:"event"`
	Client string `json:"client"`
}

// OperationEvent: one of the caller's operations changed state.
type OperationEvent struct {
	OperationID string `json:"operation_id"`
	Tool        Tool   `json:"tool"`
	State       string `json:"state"`
	// Run is the run the operation is a step of (its call's _meta
	// "openlolo.mcp".run); absent when the call named none.
	Run *Run `json:"run,omitempty"`
}

// Run names a run: a client's calls toward one goal, which the box page's
// Activity groups under the title. A call names it in _meta
// "openlolo.mcp".run.
type Run struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// AccessEvent: the caller's grant was revoked or is expiring.
type AccessEvent struct {
	Event     string `json:"event"`
	ExpiresMS int64  `json:"expires_ms,omitempty"`
}

type eventHead struct {
	Kind   EventKind `json:"kind"`
	TimeMS int64     `json:"time_ms"`
	Cursor string    `json:"cursor,omitempty"`
	Phone  string    `json:"phone,omitempty"`
}

// Body is the event's kind-specific part (nil when none is set).
func (e Event) Body() any {
	switch {
	case e.Frame != nil:
		return e.Frame
	case e.Phone != nil:
		return e.Phone
	case e.Control != nil:
		return e.Control
	case e.Operation != nil:
		return e.Operation
	case e.Access != nil:
		return e.Access
	case e.Ask != nil:
		return e.Ask
	}
	return nil
}

// MarshalJSON writes the head and the kind's members as one object.
func (e Event) MarshalJSON() ([]byte, error) {
	h, err := json.Marshal(eventHead{Kind: e.Kind, TimeMS: e.TimeMS, Cursor: e.Cursor, Phone: e.PhoneID})
	if err != nil {
		return nil, err
	}
	body := e.Body()
	if body == nil {
		return h, nil
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("api: encode %s event: %w", e.Kind, err)
	}
	return joinObjects(h, b), nil
}

// UnmarshalJSON reads an event and its kind's members.
func (e *Event) UnmarshalJSON(b []byte) error {
	var h eventHead
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("api: decode event: %w", err)
	}
	*e = Event{Kind: h.Kind, TimeMS: h.TimeMS, Cursor: h.Cursor, PhoneID: h.Phone}
	return e.SetBody(b)
}

// SetBody decodes the kind's members from data (JSON) into the field of
// e's kind; an unknown kind keeps none.
func (e *Event) SetBody(data []byte) error {
	var err error
	switch e.Kind {
	case KindFrame:
		e.Frame = new(FrameEvent)
		err = json.Unmarshal(data, e.Frame)
	case KindPhone:
		e.Phone = new(PhoneEvent)
		err = json.Unmarshal(data, e.Phone)
	case KindControl:
		e.Control = new(ControlEvent)
		err = json.Unmarshal(data, e.Control)
	case KindOperation:
		e.Operation = new(OperationEvent)
		err = json.Unmarshal(data, e.Operation)
	case KindAccess:
		e.Access = new(AccessEvent)
		err = json.Unmarshal(data, e.Access)
	case KindAsk:
		e.Ask = new(AskEvent)
		err = json.Unmarshal(data, e.Ask)
	}
	if err != nil {
		return fmt.Errorf("api: decode %s event: %w", e.Kind, err)
	}
	return nil
}
