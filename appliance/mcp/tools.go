package mcp

import (
	"context"
	"encoding/json"
	"github.com/openlolo/openlolo/api"
	"reflect"

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
	// args and result are the tool's argument and result types in api;
	// the schemas are generated from them.
	args, result reflect.Type
	run          func(h *Handler, ctx context.Context, c call) result
	// say is the one-sentence summary of a successful answer.
	say func(a control.Answer) string
}

func (t *tool) sdkTool() *sdk.Tool {
	return &sdk.Tool{Name: t.name, Title: t.title, Description: t.desc, Annotations: t.ann,
		InputSchema: api.InputSchema(api.Tool(t.name), t.args), OutputSchema: api.OutputSchema(t.result, t.mutating)}
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
	r, c := string(api.ScopePhoneRead), string(api.ScopePhoneControl)
	return []*tool{
		{name: "openlolo_status", title: "Box and phone status", scope: r, ann: readAnn("Box and phone status"),
			desc: "Who and what: the box, whether the phone is ready (and why not), who holds control and until when, whether input is paused, your client name, scopes, entry and grant expiry, and how many calls you have left this minute. Call it first, and when something is refused.",
			args: reflect.TypeFor[api.StatusArgs](), result: reflect.TypeFor[api.StatusResult](),
			run: (*Handler).status, say: sayStatus},
		{name: "openlolo_capabilities", title: "What this phone can do", scope: r, ann: readAnn("What this phone can do"),
			desc: "What the attached phone supports: keyboard, touch, screenshots, buttons, key names and modifiers, text limits, gesture ranges and screenshot formats. Use it before key or button calls on an unfamiliar phone.",
			args: reflect.TypeFor[api.CapabilitiesArgs](), result: reflect.TypeFor[api.CapabilitiesResult](),
			run: (*Handler).capabilities, say: func(control.Answer) string { return "Capabilities listed in the structured answer." }},
		{name: "openlolo_screenshot", title: "Screenshot", scope: r, ann: readAnn("Screenshot"),
			desc: "A picture of the phone's screen now, as an image block, with the frame_id and geometry_epoch that touch tools need (this becomes YOUR latest frame; other clients' screenshots never change it). format jpeg (default) or png; max_size bounds the longer side (128..4096, default 1536). CAPTURE_FAILED or PHONE_UNAVAILABLE: see openlolo_status.",
			args: reflect.TypeFor[api.ScreenshotArgs](), result: reflect.TypeFor[api.ScreenshotResult](),
			run: (*Handler).screenshot, say: sayFrame},
		{name: "openlolo_apps", title: "Known apps", scope: r, ann: readAnn("Known apps"),
			desc: "The apps this box can launch (bundle id and name), filtered by query (a case-insensitive part of the name or bundle id). openlolo_launch_app takes either.",
			args: reflect.TypeFor[api.AppsArgs](), result: reflect.TypeFor[api.AppsResult](),
			run: (*Handler).apps, say: func(a control.Answer) string { return "Apps listed in the structured answer." }},
		{name: "openlolo_device_info", title: "Device info", scope: r, ann: readAnn("Device info"),
			desc: "The phone's model, platform, screen size and backend (sim or gadget), and whether it is ready.",
			args: reflect.TypeFor[api.DeviceInfoArgs](), result: reflect.TypeFor[api.DeviceInfoResult](),
			run: (*Handler).deviceInfo, say: func(control.Answer) string { return "Device info in the structured answer." }},
		{name: "openlolo_operation_status", title: "Operation status", scope: r, ann: readAnn("Operation status"),
			desc: "The journal record of one of YOUR operations: tool, state (queued, dispatched, succeeded, failed, cancelled, outcome_unknown), error code and stored answer. Use it after a dropped connection or OUTCOME_UNKNOWN instead of replaying input. OPERATION_NOT_FOUND: no such operation of yours.",
			args: reflect.TypeFor[api.OperationStatusArgs](), result: reflect.TypeFor[api.OperationStatusResult](),
			run: (*Handler).operationStatus, say: sayOperation},
		{name: "openlolo_watch", title: "Watch for events", scope: r, ann: readAnn("Watch for events"),
			desc: "Long poll: returns what happened after cursor (without one: from now), holding up to wait_ms (default 25000, max 60000) until something does. Events: frame (the screen changed; at most one per 250 ms), control (acquired, renewed, released, lapsed, paused, resumed), phone (attached, detached, geometry), operation (your own operations' states), access (your grant revoked or expiring). Pass the returned cursor to the next call to get each event exactly once. CURSOR_EXPIRED: call again without a cursor.",
			args: reflect.TypeFor[api.WatchArgs](), result: reflect.TypeFor[api.WatchResult](),
			run: (*Handler).watch, say: sayWatch},
		{name: "openlolo_pause", title: "Pause all input", scope: r, mutating: true, noRateLimit: true, ann: controlAnn("Pause all input"),
			desc: "Stops all input at once, for any client: queued inputs are cancelled, a running one is interrupted (OUTCOME_UNKNOWN), every key and touch is released, and input stays blocked until the control holder resumes (openlolo_control command=resume). Never rate-limited. Use it when anything looks wrong.",
			args: reflect.TypeFor[api.PauseArgs](), result: reflect.TypeFor[api.PauseResult](),
			run: (*Handler).pause, say: func(control.Answer) string {
				return "Input is paused; the control holder resumes it with openlolo_control command=resume."
			}},

		{name: "openlolo_tap", title: "Tap", scope: c, mutating: true, ann: inputAnn("Tap"),
			desc: "Taps the screen at (x, y)." + frameDoc + auto + errsDoc,
			args: reflect.TypeFor[api.TapArgs](), result: reflect.TypeFor[api.TapResult](),
			run: (*Handler).tap, say: sayInput("Tapped")},
		{name: "openlolo_long_press", title: "Long press", scope: c, mutating: true, ann: inputAnn("Long press"),
			desc: "Presses and holds at (x, y) for seconds (0.03..2, default 1)." + frameDoc + auto + errsDoc,
			args: reflect.TypeFor[api.LongPressArgs](), result: reflect.TypeFor[api.LongPressResult](),
			run: (*Handler).longPress, say: sayInput("Long-pressed")},
		{name: "openlolo_swipe", title: "Swipe", scope: c, mutating: true, ann: inputAnn("Swipe"),
			desc: "Drags from (x, y) to (x2, y2) in seconds (0.03..2, default 0.6), then holds hold seconds (0..2; >0 stops scrolling momentum) before lifting." + frameDoc + auto + errsDoc,
			args: reflect.TypeFor[api.SwipeArgs](), result: reflect.TypeFor[api.SwipeResult](),
			run: (*Handler).swipe, say: sayInput("Swiped")},
		{name: "openlolo_type_text", title: "Type text", scope: c, mutating: true, ann: inputAnn("Type text"),
			desc: "Types text on the phone's keyboard into the focused field: printable US ASCII only, up to 500 characters; anything else is UNSUPPORTED_TEXT before any key is sent. Tap the field first." + auto + errsDoc,
			args: reflect.TypeFor[api.TypeTextArgs](), result: reflect.TypeFor[api.TypeTextResult](),
			run: (*Handler).typeText, say: sayInput("Typed the text")},
		{name: "openlolo_key", title: "Press a key", scope: c, mutating: true, ann: inputAnn("Press a key"),
			desc: "Presses one named key with optional modifiers: a–z, 0–9, enter, escape, backspace, tab, space, up, down, left, right, delete, home, end, pageup, pagedown, f1–f12; modifiers ctrl, shift, alt, cmd (e.g. key=space modifiers=[cmd] opens search on iOS). UNSUPPORTED_KEY: not a known key." + auto + errsDoc,
			args: reflect.TypeFor[api.KeyArgs](), result: reflect.TypeFor[api.KeyResult](),
			run: (*Handler).key, say: sayInput("Pressed the key")},
		{name: "openlolo_button", title: "Press a button", scope: c, mutating: true, ann: inputAnn("Press a button"),
			desc: "Presses a hardware or system button: home, lock, volume_up, volume_down, mute; back and app_switch on Android only (UNSUPPORTED_BUTTON elsewhere)." + auto + errsDoc,
			args: reflect.TypeFor[api.ButtonArgs](), result: reflect.TypeFor[api.ButtonResult](),
			run: (*Handler).button, say: sayInput("Pressed the button")},
		{name: "openlolo_launch_app", title: "Launch an app", scope: c, mutating: true, ann: inputAnn("Launch an app"),
			desc: "Opens an app by bundle id or name (as openlolo_apps lists them) through the phone's search, without restarting it. APP_NOT_FOUND: not in the box's catalog." + auto + errsDoc,
			args: reflect.TypeFor[api.LaunchAppArgs](), result: reflect.TypeFor[api.LaunchAppResult](),
			run: (*Handler).launchApp, say: sayInput("Opened the app")},
		{name: "openlolo_open_url", title: "Open a URL", scope: c, mutating: true, ann: inputAnn("Open a URL"),
			desc: "Opens an http or https URL in Safari (typed into its address bar). Other schemes are UNSUPPORTED on this box." + auto + errsDoc,
			args: reflect.TypeFor[api.OpenURLArgs](), result: reflect.TypeFor[api.OpenURLResult](),
			run: (*Handler).openURL, say: sayInput("Opened the URL")},
		{name: "openlolo_control", title: "Control lease", scope: c, mutating: true, ann: controlAnn("Control lease"),
			desc: "Manages control of the phone: acquire (take it when free; CONTROL_BUSY when another client holds it), renew, release (free it when you are done), resume (continue after a pause; takes control if free). Control lapses after 90 s without a control call. Acquire does not resume a pause.",
			args: reflect.TypeFor[api.ControlArgs](), result: reflect.TypeFor[api.ControlResult](),
			run: (*Handler).control, say: sayControl},
		{name: "openlolo_cancel", title: "Cancel an operation", scope: c, mutating: true, ann: controlAnn("Cancel an operation"),
			desc: "Stops one of YOUR queued or running operations (target = its operation_id). A queued one is cancelled before it reaches the phone; a running one ends OUTCOME_UNKNOWN. OPERATION_NOT_FOUND: no such operation of yours.",
			args: reflect.TypeFor[api.CancelArgs](), result: reflect.TypeFor[api.CancelResult](),
			run: (*Handler).cancel, say: func(a control.Answer) string {
				return "Cancel requested; openlolo_operation_status shows the target's final state."
			}},
	}
}
