package api

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// One struct per tool's arguments. Optional numbers and flags are
// pointers, so that left out (the default applies) differs from zero;
// [BoundOf] gives each one's range and default.

// StatusArgs are openlolo_status's arguments: the phone alone.
type StatusArgs struct{ PhoneArg }

// CapabilitiesArgs are openlolo_capabilities's arguments: the phone alone.
type CapabilitiesArgs struct{ PhoneArg }

// DeviceInfoArgs are openlolo_device_info's arguments: the phone alone.
type DeviceInfoArgs struct{ PhoneArg }

// ScreenshotArgs are openlolo_screenshot's arguments.
type ScreenshotArgs struct {
	PhoneArg
	Format  ImageFormat `json:"format,omitempty" doc:"Image format."`
	MaxSize *int        `json:"max_size,omitempty" desc:"Longest side in pixels." doc:"Longest side of the returned image in pixels."`
}

// AppsArgs are openlolo_apps's arguments.
type AppsArgs struct {
	PhoneArg
	Query string `json:"query,omitempty" doc:"Part of an app's name or bundle id; empty lists all."`
	// IncludeHidden is accepted for the Python box's clients; this box's
	// catalog has no hidden apps, and its schema does not list it.
	IncludeHidden bool `json:"include_hidden,omitempty" schema:"unlisted" doc:"Accepted for compatibility; this box lists no hidden apps."`
}

// FindTextArgs are openlolo_find_text's arguments.
type FindTextArgs struct {
	PhoneArg
	Query string `json:"query,omitempty" doc:"Text to find (case-insensitive, runs of spaces count as one); empty lists every line of text top to bottom."`
}

// ElementsArgs are openlolo_elements's arguments.
type ElementsArgs struct {
	PhoneArg
	Query         string `json:"query,omitempty" desc:"Part of text, label or identifier." doc:"Only elements whose text, label or identifier contains it (case-insensitive, runs of spaces count as one); empty lists all."`
	ClickableOnly *bool  `json:"clickable_only,omitempty" doc:"Only elements that react to a tap."`
	Limit         *int   `json:"limit,omitempty" doc:"Most elements in this answer; next_cursor pages on."`
	Cursor        string `json:"cursor,omitempty" desc:"next_cursor of the previous answer." doc:"next_cursor of the previous answer, for the next page of the same frame's list."`
}

// OperationStatusArgs are openlolo_operation_status's arguments.
type OperationStatusArgs struct {
	OperationID string `json:"operation_id" doc:"The operation's UUID."`
}

// WatchArgs are openlolo_watch's arguments.
type WatchArgs struct {
	Cursor string      `json:"cursor,omitempty" doc:"The cursor from the previous watch answer."`
	WaitMS *int        `json:"wait_ms,omitempty" doc:"How long to wait for an event, in milliseconds."`
	Kinds  []EventKind `json:"kinds,omitempty" doc:"Only these kinds (default all)."`
	Phones []string    `json:"phones,omitempty" doc:"Only these phones' events (and those that name no phone)."`
}

// PauseArgs are openlolo_pause's arguments.
type PauseArgs struct {
	PhoneArg
	OperationID string `json:"operation_id,omitempty" doc:"Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once."`
}

// ControlArgs are openlolo_control's arguments.
type ControlArgs struct {
	PhoneArg
	Command     Command `json:"command" doc:"What to do."`
	OperationID string  `json:"operation_id,omitempty" doc:"Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once."`
}

// CancelArgs are openlolo_cancel's arguments.
type CancelArgs struct {
	Target      string `json:"target" doc:"The operation_id to stop."`
	OperationID string `json:"operation_id,omitempty" doc:"Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once."`
}

// InputOptions are the members every input tool takes.
type InputOptions struct {
	OperationID string   `json:"operation_id,omitempty" doc:"Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once."`
	Observe     *bool    `json:"observe,omitempty" doc:"Return a fresh screenshot (image and frame) in the answer after the action."`
	Settle      *float64 `json:"settle,omitempty" doc:"Seconds to wait after the action before the observation screenshot."`
}

// Options returns the input options (promoted to every input tool's
// arguments).
func (o *InputOptions) Options() *InputOptions { return o }

// FrameArgs are the members every touch tool takes: the caller's latest
// frame and a point as fractions of that image.
type FrameArgs struct {
	FrameID       string   `json:"frame_id" doc:"frame_id of YOUR latest openlolo_screenshot (or observation)."`
	GeometryEpoch Epoch    `json:"geometry_epoch" doc:"geometry_epoch of that same screenshot."`
	X             *float64 `json:"x" doc:"Horizontal position as a fraction of the screenshot's width: 0 left edge, 1 right edge."`
	Y             *float64 `json:"y" doc:"Vertical position as a fraction of the screenshot's height: 0 top, 1 bottom."`
}

// TapArgs are openlolo_tap's arguments.
type TapArgs struct {
	PhoneArg
	FrameArgs
	InputOptions
	Element string `json:"element,omitempty" desc:"An openlolo_elements id, in place of x, y." doc:"In place of x and y: an element id from openlolo_elements for this frame; the tap lands on its centre."`
}

// LongPressArgs are openlolo_long_press's arguments.
type LongPressArgs struct {
	PhoneArg
	FrameArgs
	InputOptions
	Seconds *float64 `json:"seconds,omitempty" doc:"How long to hold."`
	Element string   `json:"element,omitempty" desc:"An openlolo_elements id, in place of x, y." doc:"In place of x and y: an element id from openlolo_elements for this frame; the press lands on its centre."`
}

// SwipeArgs are openlolo_swipe's arguments.
type SwipeArgs struct {
	PhoneArg
	FrameArgs
	InputOptions
	X2      *float64 `json:"x2" doc:"End x as a fraction of the width."`
	Y2      *float64 `json:"y2" doc:"End y as a fraction of the height."`
	Seconds *float64 `json:"seconds,omitempty" doc:"Duration of the movement."`
	Hold    *float64 `json:"hold,omitempty" doc:"Seconds to rest at the end before lifting."`
}

// TypeTextArgs are openlolo_type_text's arguments.
type TypeTextArgs struct {
	PhoneArg
	InputOptions
	Text *string `json:"text" doc:"The text to type."`
	// FrameID, GeometryEpoch and Element name a text field to tap (focus)
	// before typing; all three or none.
	FrameID       string `json:"frame_id,omitempty" doc:"With element: frame_id of YOUR latest frame (the openlolo_elements answer's)."`
	GeometryEpoch Epoch  `json:"geometry_epoch,omitempty" doc:"With element: geometry_epoch of that frame."`
	Element       string `json:"element,omitempty" desc:"A text field's openlolo_elements id, tapped first." doc:"A text field's element id from openlolo_elements: the box taps it to focus it, then types."`
}

// KeyArgs are openlolo_key's arguments.
type KeyArgs struct {
	PhoneArg
	InputOptions
	Key       KeyName    `json:"key" doc:"The key."`
	Modifiers []Modifier `json:"modifiers,omitempty" doc:"Modifiers held during the key."`
}

// ShortcutArgs are openlolo_shortcut's arguments.
type ShortcutArgs struct {
	PhoneArg
	InputOptions
	Shortcut Shortcut `json:"shortcut" doc:"The shortcut; openlolo_capabilities lists the phone's (iOS: home, spotlight, select_all, copy, paste, undo, app_switcher; Android: home, back, recents, notifications)."`
}

// ButtonArgs are openlolo_button's arguments.
type ButtonArgs struct {
	PhoneArg
	InputOptions
	Button Button `json:"button" doc:"The button."`
}

// LaunchAppArgs are openlolo_launch_app's arguments.
type LaunchAppArgs struct {
	PhoneArg
	InputOptions
	BundleID string `json:"bundle_id,omitempty" doc:"The app's bundle id (e.g. com.apple.mobilenotes) or its name (Notes)."`
	Name     string `json:"name,omitempty" doc:"The app's name, when bundle_id is not given."`
}

// OpenURLArgs are openlolo_open_url's arguments.
type OpenURLArgs struct {
	PhoneArg
	InputOptions
	URL      string `json:"url" doc:"Absolute http(s) URL."`
	BundleID string `json:"bundle_id,omitempty" doc:"Ignored for http(s) URLs (they open in Safari)."`
}

// FullPageArgs are openlolo_full_page's arguments.
type FullPageArgs struct {
	PhoneArg
	OperationID string      `json:"operation_id,omitempty" doc:"Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once."`
	MaxPages    *int        `json:"max_pages,omitempty" doc:"Most pages to capture (the first is the screen as it is)."`
	Output      PageOutput  `json:"output,omitempty" doc:"pages: one image per page; stitched: one tall image of the whole page; both."`
	Format      ImageFormat `json:"format,omitempty" doc:"Image format."`
	MaxSize     *int        `json:"max_size,omitempty" doc:"Longest side of each page's image in pixels (the stitched image has a page's width)."`
	Settle      *float64    `json:"settle,omitempty" desc:"Seconds to wait after each drag." doc:"Seconds to wait after each drag; then the box captures until the picture holds still (0: at once)."`
}

// SendTextArgs are openlolo_send_text's arguments.
type SendTextArgs struct {
	PhoneArg
	InputOptions
	Text *string `json:"text" doc:"The text to paste: any Unicode, newlines included."`
}

// ClipboardArgs are openlolo_clipboard's arguments: the phone alone.
type ClipboardArgs struct{ PhoneArg }

// Epoch is a geometry_epoch. The box sends it as a string; a client may
// send the string or the number.
type Epoch string

// UnmarshalJSON takes a string or an unsigned integer.
func (e *Epoch) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = Epoch(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		if _, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			*e = Epoch(n)
			return nil
		}
	}
	return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[Epoch](), Field: "geometry_epoch"}
}

// schemaTypes gives geometry_epoch's JSON types.
func (Epoch) schemaTypes() []string { return []string{"string", "integer"} }

// PhoneArg is the member every phone tool takes: which of the box's
// phones the call is for. A box with one phone, or a grant that reaches
// one, takes it left out; otherwise the answer is PHONE_REQUIRED without
// it.
type PhoneArg struct {
	Phone string `json:"phone,omitempty" doc:"The phone's id (openlolo_phones lists them); may be left out when the box has one phone or the client's grant reaches one."`
}

// PhoneID returns the phone the call names ("" none): promoted to every
// phone tool's arguments.
func (p PhoneArg) PhoneID() string { return p.Phone }

// PhonesArgs are openlolo_phones's arguments: none.
type PhonesArgs struct{}
