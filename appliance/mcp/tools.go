package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/picture"
)

// call is one tool call as a tool sees it.
type call struct {
	caller *oauth.Caller
	client control.Client
	raw    json.RawMessage
	// refused, when set, is the endpoint's refusal (SCOPE_REQUIRED): the
	// call is answered and recorded, and nothing runs.
	refused *control.Error
}

// spec is what the catalog says about a tool besides its types: desc is
// its description on tools/list, short (every client pays for it in its
// context, see api.ToolsListBudget); more is the rest of what there is to
// know, which the generated reference (docs/tools.md) gives after desc.
// What every input tool shares (frames, automatic control, the codes an
// input may answer) is said once, in the instructions and the
// operate_phone prompt.
type spec struct {
	name              api.Tool
	title, desc, more string
	scope             api.Scope
	mutating          bool
	ann               *sdk.ToolAnnotations
}

// tool is one catalog entry: its spec, its argument and result types (the
// schemas are generated from them), and run, which decodes the arguments,
// calls the verb through control's one entry and renders the answer.
type tool struct {
	spec
	args, result reflect.Type
	run          func(h *Handler, ctx context.Context, c call) rendered
}

// define makes a tool of the verb control runs for s.name, answering R;
// say is the sentence of a successful answer, and finish, when set, adds
// what the endpoint knows to a successful result (openlolo_status: the
// box and the caller).
func define[R any](s spec, say func(api.Outcome, *R) string, finish ...func(h *Handler, c call, r *R)) *tool {
	t := &tool{spec: s, args: control.ArgsType(s.name), result: reflect.TypeFor[R]()}
	t.run = func(h *Handler, ctx context.Context, c call) rendered {
		req := control.Request{Client: c.client, Tool: s.name, Sent: c.raw, Refused: c.refused}
		if req.Sent == nil {
			req.Sent = json.RawMessage{} // recorded as sent: nothing
		}
		if c.refused == nil {
			a := reflect.New(t.args)
			if req.Unreadable = decodeArgs(c.raw, a.Interface()); req.Unreadable == nil {
				req.Args = a.Elem().Interface()
			}
		}
		var imgs []*picture.Picture
		req.Deliver = func(rep *control.Invoked) {
			typed := control.Typed[R](*rep)
			if typed.Result != nil {
				for _, f := range finish {
					f(h, c, typed.Result)
				}
			}
			imgs = pictures(h, &typed)
			*rep = control.Untyped(typed)
		}
		rep := control.Typed[R](h.ctl.Invoke(ctx, req))
		return renderAnswer(t, rep.Answer, imgs, say)
	}
	return t
}

// sdkTool is t as tools/list gives it. It has no title: a display name
// the model never needs, which took 600 bytes of every agent's context
// (the list is held to api.ToolsListBudget); clients show the name, as
// the specification says they do without one. The server card lists the
// same tools; docs/tools.md and llms.txt keep the titles.
func (t *tool) sdkTool() *sdk.Tool {
	return &sdk.Tool{Name: string(t.name), Description: t.desc, Annotations: t.ann,
		InputSchema: api.InputSchema(t.name, t.args), OutputSchema: api.OutputSchema(t.result, t.mutating)}
}

func ptr[T any](v T) *T { return &v }

// The annotations give no title either, and leave out the hints whose
// default is right.

func readAnn() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
}

// inputAnn: input changes the phone, may destroy what is on it, reaches
// whatever the phone shows (destructiveHint and openWorldHint default to
// true); an operation_id makes a retry safe.
func inputAnn() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{IdempotentHint: true}
}

func controlAnn() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

// The longer descriptions (spec.more) share these sentences.
const (
	auto     = " Control is automatic: the first input takes control when it is free; never acquire or release around each call."
	frameDoc = " Needs frame_id and geometry_epoch of YOUR latest screenshot; x and y are fractions of that image (0..1). FRAME_EXPIRED: take a new screenshot and use its frame."
	elemDoc  = " Or name element (an id from YOUR latest openlolo_elements answer) in place of x and y, with that answer's frame_id and geometry_epoch; an id of an older frame is FRAME_EXPIRED."
	errsDoc  = " CONTROL_BUSY: another client holds control. PAUSED: someone paused input. OUTCOME_UNKNOWN: look before acting again. dispatched=false means nothing reached the phone."
)

// The catalog: one line per tool (its spec, the verb, the sentence).
func catalog() []*tool {
	r, c := api.ScopePhoneRead, api.ScopePhoneControl
	return []*tool{
		define(spec{name: api.ToolStatus, title: "Status", scope: r, ann: readAnn(),
			desc: "Box, phone readiness, control, pause, your grant and calls left. Call it first and when refused.",
			more: "Who and what: the box, whether the phone is ready (and why not), who holds control and until when, whether input is paused, your client name, scopes, entry and grant expiry, and how many calls you have left this minute. Call it first, and when something is refused."},
			sayStatus, (*Handler).status),
		define(spec{name: api.ToolCapabilities, title: "Capabilities", scope: r, ann: readAnn(),
			desc: "What this phone can do: keys, buttons, shortcuts, text, gestures, images, clipboard.",
			more: "What the attached phone supports: keyboard, touch, screenshots, buttons, key names and modifiers, text limits, gesture ranges and screenshot formats. Use it before key or button calls on an unfamiliar phone."}, said[api.CapabilitiesResult]("Capabilities listed in the structured answer.")),
		define(spec{name: api.ToolScreenshot, title: "Screenshot", scope: r, ann: readAnn(),
			desc: "The screen as an image, with frame_id and geometry_epoch for touch tools (YOUR latest frame).",
			more: "A picture of the phone's screen now, as an image block, with the frame_id and geometry_epoch that touch tools need (this becomes YOUR latest frame; other clients' screenshots never change it). format jpeg (default) or png; max_size bounds the longer side (" + spanDefault(api.ToolScreenshot, "max_size") + "). CAPTURE_FAILED or PHONE_UNAVAILABLE: see openlolo_status."}, sayFrame),
		define(spec{name: api.ToolApps, title: "Known apps", scope: r, ann: readAnn(),
			desc: "The apps the box can launch (bundle id, name), filtered by query.",
			more: "The apps this box can launch (bundle id and name), filtered by query (a case-insensitive part of the name or bundle id). openlolo_launch_app takes either."}, said[api.AppsResult]("Apps listed in the structured answer.")),
		define(spec{name: api.ToolDeviceInfo, title: "Device info", scope: r, ann: readAnn(),
			desc: "The phone's model, platform, screen size, backend and readiness.",
			more: "The phone's model, platform, screen size and backend (" + words(api.Backends(), "or") + "), and whether it is ready."}, said[api.DeviceInfoResult]("Device info in the structured answer.")),
		define(spec{name: api.ToolOperationStatus, title: "Operation status", scope: r, ann: readAnn(),
			desc: "Journal record of YOUR operation: after OUTCOME_UNKNOWN or a lost answer, check it; never replay.",
			more: "The journal record of one of YOUR operations: tool, state (queued, dispatched, succeeded, failed, cancelled, outcome_unknown), error code and stored answer. Use it after a dropped connection or OUTCOME_UNKNOWN instead of replaying input. OPERATION_NOT_FOUND: no such operation of yours."}, sayOperation),
		define(spec{name: api.ToolWatch, title: "Watch events", scope: r, ann: readAnn(),
			desc: "Long poll for events after cursor; pass each answer's cursor to the next call.",
			more: "Long poll: returns what happened after cursor (without one: from now), holding up to wait_ms (default " + def(api.ToolWatch, "wait_ms") + ", max " + most(api.ToolWatch, "wait_ms") + ") until something does. Events: frame (the screen changed; at most one per " + secs(api.FrameCoalesce) + "), control (acquired, renewed, released, lapsed, paused, resumed), phone (attached, detached, geometry), operation (your own operations' states), access (your grant revoked or expiring). Pass the returned cursor to the next call to get each event exactly once. CURSOR_EXPIRED: call again without a cursor."}, sayWatch),
		define(spec{name: api.ToolPause, title: "Pause all input", scope: r, mutating: true, ann: controlAnn(),
			desc: "Stops all input now, for anyone, until the control holder resumes. Use it if anything looks wrong.",
			more: "Stops all input at once, for any client: queued inputs are cancelled, a running one is interrupted (OUTCOME_UNKNOWN), every key and touch is released, and input stays blocked until the control holder resumes (openlolo_control command=resume). Never rate-limited. Use it when anything looks wrong."}, said[api.PauseResult]("Input is paused; the control holder resumes it with openlolo_control command=resume.")),
		define(spec{name: api.ToolTap, title: "Tap", scope: c, mutating: true, ann: inputAnn(),
			desc: "Taps at (x, y), fractions of YOUR latest frame (frame_id, geometry_epoch), or at element.",
			more: "Taps the screen at (x, y)." + frameDoc + elemDoc + auto + errsDoc}, sayInput[api.TapResult]("Tapped")),
		define(spec{name: api.ToolLongPress, title: "Long press", scope: c, mutating: true, ann: inputAnn(),
			desc: "Presses and holds at (x, y) or element; frame as for openlolo_tap.",
			more: "Presses and holds at (x, y) for seconds (" + spanDefault(api.ToolLongPress, "seconds") + ")." + frameDoc + elemDoc + auto + errsDoc}, sayInput[api.LongPressResult]("Long-pressed")),
		define(spec{name: api.ToolSwipe, title: "Swipe", scope: c, mutating: true, ann: inputAnn(),
			desc: "Drags from (x, y) to (x2, y2), fractions of YOUR latest frame; hold>0 stops momentum.",
			more: "Drags from (x, y) to (x2, y2) in seconds (" + spanDefault(api.ToolSwipe, "seconds") + "), then holds hold seconds (" + span(api.ToolSwipe, "hold") + "; >0 stops scrolling momentum) before lifting." + frameDoc + auto + errsDoc}, sayInput[api.SwipeResult]("Swiped")),
		define(spec{name: api.ToolTypeText, title: "Type text", scope: c, mutating: true, ann: inputAnn(),
			desc: "Types printable ASCII into the focused field (else openlolo_send_text); element focuses it first.",
			more: "Types text on the phone's keyboard into the focused field: printable US ASCII only, up to " + most(api.ToolTypeText, "text") + " characters; anything else is UNSUPPORTED_TEXT before any key is sent. Tap the field first, or name it: element (a text field's id from YOUR latest openlolo_elements answer, with its frame_id and geometry_epoch) is tapped to focus it before typing." + auto + errsDoc}, sayInput[api.TypeTextResult]("Typed the text")),
		define(spec{name: api.ToolKey, title: "Press a key", scope: c, mutating: true, ann: inputAnn(),
			desc: "Presses a key (a-z, 0-9, f1-f" + strconv.Itoa(api.FunctionKeys) + ", " + words(api.WordKeys(), "") + ") with optional modifiers.",
			more: "Presses one named key with optional modifiers: a–z, 0–9, " + words(api.WordKeys(), "") + ", f1–f" + strconv.Itoa(api.FunctionKeys) + "; modifiers " + strings.Join(api.Modifier("").Enum(), ", ") + " (e.g. key=space modifiers=[cmd] opens search on iOS). UNSUPPORTED_KEY: not a known key." + auto + errsDoc}, sayInput[api.KeyResult]("Pressed the key")),
		define(spec{name: api.ToolButton, title: "Press a button", scope: c, mutating: true, ann: inputAnn(),
			desc: "Presses a hardware or system button (back and app_switch: Android only).",
			more: "Presses a hardware or system button: home, lock, volume_up, volume_down, mute; back and app_switch on Android only (UNSUPPORTED_BUTTON elsewhere)." + auto + errsDoc}, sayInput[api.ButtonResult]("Pressed the button")),
		define(spec{name: api.ToolLaunchApp, title: "Launch an app", scope: c, mutating: true, ann: inputAnn(),
			desc: "Opens an app by bundle id or name, as openlolo_apps lists them.",
			more: "Opens an app by bundle id or name (as openlolo_apps lists them) through the phone's search, without restarting it. APP_NOT_FOUND: not in the box's catalog." + auto + errsDoc}, sayInput[api.LaunchAppResult]("Opened the app")),
		define(spec{name: api.ToolOpenURL, title: "Open a URL", scope: c, mutating: true, ann: inputAnn(),
			desc: "Opens an http or https URL in the browser.",
			more: "Opens an http or https URL in Safari (typed into its address bar). Other schemes are UNSUPPORTED on this box." + auto + errsDoc}, sayInput[api.OpenURLResult]("Opened the URL")),
		define(spec{name: api.ToolControl, title: "Control lease", scope: c, mutating: true, ann: controlAnn(),
			desc: "acquire, renew, release (when done) or resume (after a pause) control; input takes it by itself.",
			more: "Manages control of the phone: acquire (take it when free; CONTROL_BUSY when another client holds it), renew, release (free it when you are done), resume (continue after a pause; takes control if free). Control lapses after " + secs(api.LeaseTime) + " without a control call. Acquire does not resume a pause."}, sayControl),
		define(spec{name: api.ToolCancel, title: "Cancel", scope: c, mutating: true, ann: controlAnn(),
			desc: "Stops one of YOUR queued or running operations (target: its operation_id).",
			more: "Stops one of YOUR queued or running operations (target = its operation_id). A queued one is cancelled before it reaches the phone; a running one ends OUTCOME_UNKNOWN. OPERATION_NOT_FOUND: no such operation of yours."}, said[api.CancelResult]("Cancel requested; openlolo_operation_status shows the target's final state.")),
		define(spec{name: api.ToolShortcut, title: "Shortcut", scope: c, mutating: true, ann: inputAnn(),
			desc: "Performs a named shortcut of the phone's platform (openlolo_capabilities lists them).",
			more: "Performs a named shortcut of the phone's platform: iOS " + words(api.Shortcuts(api.PlatformIOS), "") + "; Android " + words(api.Shortcuts(api.PlatformAndroid), "") + " (openlolo_capabilities lists this phone's). UNSUPPORTED: not a shortcut of this phone." + auto + errsDoc}, sayInput[api.ShortcutResult]("Performed the shortcut")),
		define(spec{name: api.ToolFindText, title: "Find text", scope: r, ann: readAnn(),
			desc: "OCR: the screen's text lines, or query's matches, with centres in the frame it names (YOUR latest).",
			more: "Reads the text on the phone's screen now (OCR): with query (case-insensitive), the pieces of text that contain it; without, every line top to bottom. Each has its text, confidence and box as fractions of the frame the answer names; that frame becomes YOUR latest, so tap center_x, center_y with its frame_id and geometry_epoch. Icons without words are not found: use openlolo_screenshot. UNSUPPORTED: this box has no OCR engine."}, sayFindText),
		define(spec{name: api.ToolElements, title: "Screen elements", scope: r, ann: readAnn(),
			desc: "The screen's elements; touch tools take an id as element with the frame it names (YOUR latest).",
			more: "The things on the phone's screen now, outermost first, nested ones that act included: each with an id, role (" + strings.Join(api.ElementRole("").Enum(), ", ") + "), text, label, identifier, bounds and centre as fractions of the frame the answer names, and its states (enabled, clickable, checked, selected, focused, scrollable, password). That frame becomes YOUR latest: pass an id as element to openlolo_tap, openlolo_long_press or openlolo_type_text with its frame_id and geometry_epoch. source says where they came from: " + strings.Join(api.ElementSource("").Enum(), ", ") + " (each text line one element of role text; note says why). Filters: query (a case-insensitive part of text, label or identifier), clickable_only; limit (" + spanDefault(api.ToolElements, "limit") + ") per answer, next_cursor pages on. Prefer it to find_text and coordinates. UNSUPPORTED: no tree and no OCR engine."}, sayElements),
		define(spec{name: api.ToolAppProfiles, title: "App profiles", scope: r, ann: readAnn(),
			desc: "Apps the box knows more about: URL schemes, deep links. Read one before working in it.",
			more: "The apps this box knows more about, for the phone's platform: bundle id, name, URL schemes, the names of their deep links, and whether openlolo_apps lists them (in_catalog), filtered by query (a case-insensitive part of the name or bundle id). Read an app's profile (openlolo_app_profile) before working in it."}, sayAppProfiles),
		define(spec{name: api.ToolAppProfile, title: "App profile", scope: r, ann: readAnn(),
			desc: "An app's URL schemes, deep links with their parameters (for openlolo_open_link) and quirks.",
			more: "One app's profile by bundle_id: its URL schemes, its deep links with their parameters (name, type, required, pattern or enum) for openlolo_open_link, and known quirks as sentences. Profiles hold no coordinates: find things on the screen with openlolo_find_text or a screenshot. PROFILE_NOT_FOUND: openlolo_app_profiles lists the profiles."}, sayAppProfile),
		define(spec{name: api.ToolOpenLink, title: "Open a deep link", scope: c, mutating: true, ann: inputAnn(),
			desc: "Opens a deep link of an app's profile by name, the box checking and encoding its params.",
			more: "Opens a deep link of an app's profile by name (link) with its parameters (params, by name): the box checks each value against its type, percent-encodes it and opens the URL as openlolo_open_url does (http and https through Safari; other schemes only where the phone opens any scheme, else UNSUPPORTED naming the app's web links). PROFILE_NOT_FOUND, LINK_NOT_FOUND, LINK_PARAMS: openlolo_app_profile lists the links and their parameters." + auto + errsDoc}, sayOpenLink),
		define(spec{name: api.ToolFullPage, title: "Full page", scope: c, mutating: true, ann: inputAnn(),
			desc: "Captures a page taller than the screen, dragging up to its end: page images, one stitched, or both.",
			more: "Captures a page taller than the screen: the screen as it is, then drag after drag up the middle without momentum, until the page stops moving (its bottom) or max_pages (" + spanDefault(api.ToolFullPage, "max_pages") + ") are taken. Each page's overlap with the one before is found in the pixels. output pages (default): one image block per page; stitched: one tall image of the whole page; both: the pages, then the stitched image. format jpeg or png; max_size bounds each page's longer side (" + spanDefault(api.ToolFullPage, "max_size") + "; the stitched image has a page's width); settle is the wait after each drag (" + span(api.ToolFullPage, "settle") + " s, default " + def(api.ToolFullPage, "settle") + "), after which the box captures until the picture holds still (up to 3 s); settle 0 captures at once. current is the frame on the screen now (YOUR latest): tap with its frame_id. Scroll to the top first (a tap on the status bar on iOS) to capture from the start." + auto + errsDoc}, sayFullPage),
		define(spec{name: api.ToolSendText, title: "Paste text", scope: c, mutating: true, ann: inputAnn(),
			desc: "Pastes any Unicode into the focused field through the clipboard, which it replaces.",
			more: "Pastes text into the focused field: any Unicode (accents, symbols, other scripts, emoji, newlines), " + num(float64(bound(api.ToolSendText, "text").MinLen)) + ".." + grouped(bound(api.ToolSendText, "text").MaxLen) + " characters, through the phone's clipboard and its paste key (cmd+V on iOS). It REPLACES what the clipboard held (clipboard_replaced). Tap the field first. Prefer it over openlolo_type_text for content; use type_text where each keystroke matters (search as you type). Only on phones whose backend can set the clipboard (openlolo_capabilities clipboard.available)." + auto + errsDoc}, sayInput[api.SendTextResult]("Pasted the text")),
		define(spec{name: api.ToolClipboard, title: "Clipboard", scope: r, ann: readAnn(),
			desc: "The text the phone's clipboard holds now.",
			more: "What the phone's clipboard holds now, as text (after openlolo_send_text, or a copy on the phone). Only on phones whose backend can read the clipboard (openlolo_capabilities clipboard.available)."}, sayClipboard),
		define(spec{name: api.ToolPhones, title: "Phones", scope: r, ann: readAnn(),
			desc: "The box's phones; an id is the phone argument of every phone tool.",
			more: "Every phone of the box: its id (the phone argument of every phone tool), name, platform, backend, state, problems, who holds its control and whether its input is paused. A box with one phone takes phone left out; with several, a call naming none is PHONE_REQUIRED."}, said[api.PhonesResult]("Phones listed in the structured answer.")),
	}
}
