package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
)

// call is one tool call as a tool's run function sees it.
type call struct {
	caller *oauth.Caller
	client control.Client
	raw    json.RawMessage
}

// result is a tool's answer and, for screenshots and observations, the
// image to add as a content block.
type result struct {
	answer control.Answer
	image  *encoded
}

type tool struct {
	name, title, desc string
	scope             string
	mutating          bool
	noRateLimit       bool
	ann               *sdk.ToolAnnotations
	input, output     schema
	run               func(h *Handler, ctx context.Context, c call) result
	// say is the one-sentence summary of a successful answer.
	say func(a control.Answer) string
}

func (t *tool) sdkTool() *sdk.Tool {
	return &sdk.Tool{Name: t.name, Title: t.title, Description: t.desc, Annotations: t.ann,
		InputSchema: t.input, OutputSchema: t.output}
}

func ptr[T any](v T) *T { return &v }

func readAnn(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
}

// inputAnn: input changes the phone, may destroy what is on it, reaches
// whatever the phone shows; an operation_id makes a retry safe.
func inputAnn(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)}
}

func controlAnn(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

// Descriptions share these sentences.
const (
	auto     = " Control is automatic: the first input takes control when it is free; never acquire or release around each call."
	frameDoc = " Needs frame_id and geometry_epoch of YOUR latest screenshot; x and y are fractions of that image (0..1). FRAME_EXPIRED: take a new screenshot and use its frame."
	errsDoc  = " CONTROL_BUSY: another client holds control. PAUSED: someone paused input. OUTCOME_UNKNOWN: look before acting again. dispatched=false means nothing reached the phone."
)

func catalog() []*tool {
	r, c := oauth.ScopePhoneRead, oauth.ScopePhoneControl
	return []*tool{
		{name: "openlolo_status", title: "Box and phone status", scope: r, ann: readAnn("Box and phone status"),
			desc:   "Who and what: the box, whether the phone is ready (and why not), who holds control and until when, whether input is paused, your client name, scopes, entry and grant expiry, and how many calls you have left this minute. Call it first, and when something is refused.",
			input:  object(nil, schema{}),
			output: output(false, schema{"box": schema{"type": "object"}, "phone": schema{"type": "object"}, "control": schema{"type": "object"}, "paused": schema{"type": "boolean"}, "you": schema{"type": "object"}, "calls_left": schema{"type": "integer"}, "remote": schema{"type": "object"}}),
			run:    (*Handler).status, say: sayStatus},
		{name: "openlolo_capabilities", title: "What this phone can do", scope: r, ann: readAnn("What this phone can do"),
			desc:   "What the attached phone supports: keyboard, touch, screenshots, buttons, key names and modifiers, text limits, gesture ranges and screenshot formats. Use it before key or button calls on an unfamiliar phone.",
			input:  object(nil, schema{}),
			output: output(false, schema{"platform": schema{"type": "string"}, "keyboard": schema{"type": "boolean"}, "touch": schema{"type": "boolean"}, "screenshot": schema{"type": "boolean"}, "buttons": schema{"type": "array"}, "keys": schema{"type": "array"}}),
			run:    (*Handler).capabilities, say: func(control.Answer) string { return "Capabilities listed in the structured answer." }},
		{name: "openlolo_screenshot", title: "Screenshot", scope: r, ann: readAnn("Screenshot"),
			desc:   "A picture of the phone's screen now, as an image block, with the frame_id and geometry_epoch that touch tools need (this becomes YOUR latest frame; other clients' screenshots never change it). format jpeg (default) or png; max_size bounds the longer side (128..4096, default 1536). CAPTURE_FAILED or PHONE_UNAVAILABLE: see openlolo_status.",
			input:  object(nil, schema{"format": enum("Image format.", []string{"jpeg", "png"}, "jpeg"), "max_size": integer("Longest side of the returned image in pixels.", 128, 4096, defaultMax)}),
			output: output(false, frameOut()),
			run:    (*Handler).screenshot, say: sayFrame},
		{name: "openlolo_apps", title: "Known apps", scope: r, ann: readAnn("Known apps"),
			desc:   "The apps this box can launch (bundle id and name), filtered by query (a case-insensitive part of the name or bundle id). openlolo_launch_app takes either.",
			input:  object(nil, schema{"query": str("Part of an app's name or bundle id; empty lists all.", maxQuery), "include_hidden": boolean("Accepted for compatibility; this box lists no hidden apps.", false)}),
			output: output(false, schema{"apps": schema{"type": "array"}, "query": schema{"type": "string"}, "matched": schema{"type": "integer"}}),
			run:    (*Handler).apps, say: func(a control.Answer) string { return "Apps listed in the structured answer." }},
		{name: "openlolo_device_info", title: "Device info", scope: r, ann: readAnn("Device info"),
			desc:   "The phone's model, platform, screen size and backend (sim or gadget), and whether it is ready.",
			input:  object(nil, schema{}),
			output: output(false, schema{"model": schema{"type": "string"}, "platform": schema{"type": "string"}, "backend": schema{"type": "string"}, "native_width": schema{"type": "integer"}, "native_height": schema{"type": "integer"}}),
			run:    (*Handler).deviceInfo, say: func(control.Answer) string { return "Device info in the structured answer." }},
		{name: "openlolo_operation_status", title: "Operation status", scope: r, ann: readAnn("Operation status"),
			desc:   "The journal record of one of YOUR operations: tool, state (queued, dispatched, succeeded, failed, cancelled, outcome_unknown), error code and stored answer. Use it after a dropped connection or OUTCOME_UNKNOWN instead of replaying input. OPERATION_NOT_FOUND: no such operation of yours.",
			input:  object([]string{"operation_id"}, schema{"operation_id": uuidProp("The operation's UUID.")}),
			output: output(false, schema{"operation": schema{"type": "object"}}),
			run:    (*Handler).operationStatus, say: sayOperation},
		{name: "openlolo_watch", title: "Watch for events", scope: r, ann: readAnn("Watch for events"),
			desc:   "Long poll: returns what happened after cursor (without one: from now), holding up to wait_ms (default 25000, max 60000) until something does. Events: frame (the screen changed; at most one per 250 ms), control (acquired, renewed, released, lapsed, paused, resumed), phone (attached, detached, geometry), operation (your own operations' states), access (your grant revoked or expiring). Pass the returned cursor to the next call to get each event exactly once. CURSOR_EXPIRED: call again without a cursor.",
			input:  object(nil, schema{"cursor": str("The cursor from the previous watch answer.", maxCursor), "wait_ms": integer("How long to wait for an event.", 0, 60000, 25000), "kinds": schema{"type": "array", "items": schema{"type": "string", "enum": watchKinds()}, "description": "Only these kinds (default all)."}}),
			output: output(false, schema{"events": schema{"type": "array"}, "cursor": schema{"type": "string"}}),
			run:    (*Handler).watch, say: sayWatch},
		{name: "openlolo_pause", title: "Pause all input", scope: r, mutating: true, noRateLimit: true, ann: controlAnn("Pause all input"),
			desc:   "Stops all input at once, for any client: queued inputs are cancelled, a running one is interrupted (OUTCOME_UNKNOWN), every key and touch is released, and input stays blocked until the control holder resumes (openlolo_control command=resume). Never rate-limited. Use it when anything looks wrong.",
			input:  object(nil, schema{"operation_id": opProp()}),
			output: output(true, schema{"paused": schema{"type": "boolean"}}),
			run:    (*Handler).pause, say: func(control.Answer) string {
				return "Input is paused; the control holder resumes it with openlolo_control command=resume."
			}},

		{name: "openlolo_tap", title: "Tap", scope: c, mutating: true, ann: inputAnn("Tap"),
			desc:   "Taps the screen at (x, y)." + frameDoc + auto + errsDoc,
			input:  object([]string{"frame_id", "geometry_epoch", "x", "y"}, inputProps(frameProps(schema{}), 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).tap, say: sayInput("Tapped")},
		{name: "openlolo_long_press", title: "Long press", scope: c, mutating: true, ann: inputAnn("Long press"),
			desc:   "Presses and holds at (x, y) for seconds (0.03..2, default 1)." + frameDoc + auto + errsDoc,
			input:  object([]string{"frame_id", "geometry_epoch", "x", "y"}, inputProps(frameProps(schema{"seconds": number("How long to hold.", 0.03, 2, 1)}), 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).longPress, say: sayInput("Long-pressed")},
		{name: "openlolo_swipe", title: "Swipe", scope: c, mutating: true, ann: inputAnn("Swipe"),
			desc: "Drags from (x, y) to (x2, y2) in seconds (0.03..2, default 0.6), then holds hold seconds (0..2; >0 stops scrolling momentum) before lifting." + frameDoc + auto + errsDoc,
			input: object([]string{"frame_id", "geometry_epoch", "x", "y", "x2", "y2"}, inputProps(frameProps(schema{
				"x2": number("End x as a fraction of the width.", 0, 1, nil), "y2": number("End y as a fraction of the height.", 0, 1, nil),
				"seconds": number("Duration of the movement.", 0.03, 2, 0.6), "hold": number("Seconds to rest at the end before lifting.", 0, 2, 0)}), 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).swipe, say: sayInput("Swiped")},
		{name: "openlolo_type_text", title: "Type text", scope: c, mutating: true, ann: inputAnn("Type text"),
			desc:   "Types text on the phone's keyboard into the focused field: printable US ASCII only, up to 500 characters; anything else is UNSUPPORTED_TEXT before any key is sent. Tap the field first." + auto + errsDoc,
			input:  object([]string{"text"}, inputProps(schema{"text": schema{"type": "string", "minLength": 1, "maxLength": maxText, "description": "The text to type."}}, 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).typeText, say: sayInput("Typed the text")},
		{name: "openlolo_key", title: "Press a key", scope: c, mutating: true, ann: inputAnn("Press a key"),
			desc:   "Presses one named key with optional modifiers: a–z, 0–9, enter, escape, backspace, tab, space, up, down, left, right, delete, home, end, pageup, pagedown, f1–f12; modifiers ctrl, shift, alt, cmd (e.g. key=space modifiers=[cmd] opens search on iOS). UNSUPPORTED_KEY: not a known key." + auto + errsDoc,
			input:  object([]string{"key"}, inputProps(schema{"key": enum("The key.", keyNames(), ""), "modifiers": schema{"type": "array", "maxItems": 4, "items": schema{"type": "string", "enum": modifierNames()}, "description": "Modifiers held during the key."}}, 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).key, say: sayInput("Pressed the key")},
		{name: "openlolo_button", title: "Press a button", scope: c, mutating: true, ann: inputAnn("Press a button"),
			desc:   "Presses a hardware or system button: home, lock, volume_up, volume_down, mute; back and app_switch on Android only (UNSUPPORTED_BUTTON elsewhere)." + auto + errsDoc,
			input:  object([]string{"button"}, inputProps(schema{"button": enum("The button.", buttonNames(), "")}, 0.5)),
			output: output(true, observationOut()),
			run:    (*Handler).button, say: sayInput("Pressed the button")},
		{name: "openlolo_launch_app", title: "Launch an app", scope: c, mutating: true, ann: inputAnn("Launch an app"),
			desc:   "Opens an app by bundle id or name (as openlolo_apps lists them) through the phone's search, without restarting it. APP_NOT_FOUND: not in the box's catalog." + auto + errsDoc,
			input:  object(nil, inputProps(schema{"bundle_id": str("The app's bundle id (e.g. com.apple.mobilenotes) or its name (Notes).", maxAppRef), "name": str("The app's name, when bundle_id is not given.", maxAppRef)}, 1.5)),
			output: output(true, mergeSchema(observationOut(), schema{"app": schema{"type": "object"}})),
			run:    (*Handler).launchApp, say: sayInput("Opened the app")},
		{name: "openlolo_open_url", title: "Open a URL", scope: c, mutating: true, ann: inputAnn("Open a URL"),
			desc:   "Opens an http or https URL in Safari (typed into its address bar). Other schemes are UNSUPPORTED on this box." + auto + errsDoc,
			input:  object([]string{"url"}, inputProps(schema{"url": schema{"type": "string", "minLength": 3, "maxLength": maxURL, "description": "Absolute http(s) URL."}, "bundle_id": str("Ignored for http(s) URLs (they open in Safari).", maxAppRef)}, 1.5)),
			output: output(true, observationOut()),
			run:    (*Handler).openURL, say: sayInput("Opened the URL")},
		{name: "openlolo_control", title: "Control lease", scope: c, mutating: true, ann: controlAnn("Control lease"),
			desc:   "Manages control of the phone: acquire (take it when free; CONTROL_BUSY when another client holds it), renew, release (free it when you are done), resume (continue after a pause; takes control if free). Control lapses after 90 s without a control call. Acquire does not resume a pause.",
			input:  object([]string{"command"}, schema{"command": enum("What to do.", []string{"acquire", "renew", "release", "resume"}, ""), "operation_id": opProp()}),
			output: output(true, schema{"control": schema{"type": "object"}, "paused": schema{"type": "boolean"}}),
			run:    (*Handler).control, say: sayControl},
		{name: "openlolo_cancel", title: "Cancel an operation", scope: c, mutating: true, ann: controlAnn("Cancel an operation"),
			desc:   "Stops one of YOUR queued or running operations (target = its operation_id). A queued one is cancelled before it reaches the phone; a running one ends OUTCOME_UNKNOWN. OPERATION_NOT_FOUND: no such operation of yours.",
			input:  object([]string{"target"}, schema{"target": uuidProp("The operation_id to stop."), "operation_id": opProp()}),
			output: output(true, schema{"target": schema{"type": "string"}, "was": schema{"type": "string"}, "stopped": schema{"type": "boolean"}}),
			run:    (*Handler).cancel, say: func(a control.Answer) string {
				return "Cancel requested; openlolo_operation_status shows the target's final state."
			}},
	}
}

func mergeSchema(a, b schema) schema {
	for k, v := range b {
		a[k] = v
	}
	return a
}
