package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/openlolo/openlolo/api"
)

// Frame identifies the screenshot that touch coordinates refer to. Pass the
// Frame of your own latest Screenshot to Tap, LongPress and Swipe.
type Frame struct {
	ID     string // frame_id as the box sent it
	Epoch  string // geometry_epoch as the box sent it
	Width  int
	Height int
}

// Screenshot is one picture of the phone's screen.
type Screenshot struct {
	Frame
	Image        []byte // JPEG or PNG bytes
	MIMEType     string
	NativeWidth  int
	NativeHeight int
	AgeMS        int
	Result       *Result
}

// ScreenshotOptions: Format "jpeg" (default) or "png"; MaxSize 128..4096
// (0: the box's default, 1536).
type ScreenshotOptions struct {
	Format  string
	MaxSize int
}

// Screenshot takes a screenshot.
func (c *Client) Screenshot(ctx context.Context, o ScreenshotOptions) (*Screenshot, error) {
	args := api.ScreenshotArgs{Format: api.ImageFormat(o.Format)}
	if o.MaxSize != 0 {
		args.MaxSize = &o.MaxSize
	}
	res, err := c.call(ctx, api.ToolScreenshot, args)
	if err != nil {
		return nil, err
	}
	return screenshotFrom(res)
}

func screenshotFrom(res *Result) (*Screenshot, error) {
	f, err := Decode[api.ScreenshotResult](res)
	if err != nil {
		return nil, err
	}
	s := &Screenshot{
		Frame:       Frame{ID: f.FrameID, Epoch: f.GeometryEpoch, Width: f.Width, Height: f.Height},
		NativeWidth: f.NativeWidth, NativeHeight: f.NativeHeight, AgeMS: int(f.AgeMS), Result: res,
	}
	if len(res.Images) == 0 {
		return nil, &ProtocolError{Message: "openlolo_screenshot answered without an image"}
	}
	s.Image, s.MIMEType = res.Images[0].Data, res.Images[0].MIMEType
	if s.ID == "" {
		return nil, &ProtocolError{Message: "openlolo_screenshot answered without frame_id"}
	}
	return s, nil
}

// Input options shared by the input tools.
type InputOptions struct {
	// Observe asks for a fresh screenshot in the answer (the box's
	// default applies when nil).
	Observe *bool
	// Settle waits this many seconds (0–5) before that screenshot.
	Settle float64
	// OperationID makes the call idempotent; empty: a fresh UUID.
	OperationID string
}

// options is o as the tools' arguments carry it.
func (o *InputOptions) options() api.InputOptions {
	if o == nil {
		return api.InputOptions{}
	}
	a := api.InputOptions{Observe: o.Observe, OperationID: o.OperationID}
	if o.Settle > 0 {
		a.Settle = &o.Settle
	}
	return a
}

// call calls tool with typed arguments.
func (c *Client) call(ctx context.Context, tool api.Tool, args any) (*Result, error) {
	m, err := argMap(args)
	if err != nil {
		return nil, err
	}
	return c.CallTool(ctx, string(tool), m)
}

// mutate calls a mutating tool with typed arguments.
func (c *Client) mutate(ctx context.Context, tool api.Tool, args any) (*Result, error) {
	m, err := argMap(args)
	if err != nil {
		return nil, err
	}
	return c.Mutate(ctx, string(tool), m)
}

// argMap is typed arguments as the generic call path takes them.
func argMap(args any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("openlolo: encode arguments: %w", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("openlolo: encode arguments: %w", err)
	}
	return m, nil
}

// Mutate calls a mutating tool with an operation_id (a fresh UUID unless
// args has one). If the connection drops before the answer, it retries
// once with the same id, which the box answers from its journal without
// running the input again; if that fails too it asks
// openlolo_operation_status instead of replaying and returns what the box
// recorded. A box that cannot be reached at all (the connection refused
// or never made) gets no retry: the error says the call did not run.
func (c *Client) Mutate(ctx context.Context, tool string, args map[string]any) (*Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	id, _ := args["operation_id"].(string)
	if id == "" {
		id = uuid.NewString()
		args["operation_id"] = id
	}
	res, err := c.CallTool(ctx, tool, args)
	if err == nil || !isTransport(err) {
		return res, err
	}
	if notSent(err) {
		// No connection was made, so the box never saw the call: say
		// so, rather than retry and ask a box that is not there.
		return nil, fmt.Errorf("openlolo: %s (operation %s): the box at %s did not answer, so the call did not run: check that the box is on and reachable, then call again: %w", tool, id, c.url, err)
	}
	res, err = c.CallTool(ctx, tool, args)
	if err == nil || !isTransport(err) {
		return res, err
	}
	st, serr := c.OperationStatus(ctx, id)
	if serr != nil {
		return nil, fmt.Errorf("openlolo: %s (operation %s): the connection dropped twice and its status is unknown: %w", tool, id, errors.Join(err, serr))
	}
	// The record carries the answer the box gave the lost call, when it
	// finished; hand that back as if the call had been heard.
	if op, err := Decode[api.OperationStatusResult](st); err == nil && len(op.Operation.Answer) > 0 {
		rec := &Result{Raw: st.Raw, Text: st.Text}
		if err := rec.setStructured(op.Operation.Answer); err == nil {
			if rec.Outcome.Failed() {
				rec.IsError = true
				return rec, refusedFrom(tool, rec.Outcome)
			}
			return rec, nil
		}
	}
	return st, outcomeErr(tool, st)
}

// outcomeErr turns an operation record into an error when it did not
// succeed.
func outcomeErr(tool string, st *Result) error {
	state := st.Outcome.State
	if state == "" {
		if op, err := Decode[api.OperationStatusResult](st); err == nil {
			state = op.Operation.State
		}
	}
	switch state {
	case "succeeded", "":
		return nil
	case "failed", "cancelled", "outcome_unknown":
		r := refusedFrom(tool, st.Outcome)
		if r.Code == string(api.CodeInternal) && state == "outcome_unknown" {
			r.Code, r.Message = string(api.CodeOutcomeUnknown), "the input may or may not have reached the phone; take a screenshot to see"
		}
		return r
	}
	return nil
}

// OperationStatus returns the box's record of an operation.
func (c *Client) OperationStatus(ctx context.Context, id string) (*Result, error) {
	return c.call(ctx, api.ToolOperationStatus, api.OperationStatusArgs{OperationID: id})
}

// Status returns openlolo_status; [Decode] reads it as an
// api.StatusResult.
func (c *Client) Status(ctx context.Context) (*Result, error) {
	return c.call(ctx, api.ToolStatus, api.StatusArgs{})
}

func (f Frame) args(x, y float64) api.FrameArgs {
	return api.FrameArgs{FrameID: f.ID, GeometryEpoch: api.Epoch(f.Epoch), X: &x, Y: &y}
}

func optional(v float64) *float64 {
	if v > 0 {
		return &v
	}
	return nil
}

// Tap taps at (x, y), fractions of frame f's image.
func (c *Client) Tap(ctx context.Context, f Frame, x, y float64, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolTap, api.TapArgs{FrameArgs: f.args(x, y), InputOptions: o.options()})
}

// LongPress presses at (x, y) for seconds (0.03–2; 0: the box's default).
func (c *Client) LongPress(ctx context.Context, f Frame, x, y, seconds float64, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolLongPress, api.LongPressArgs{FrameArgs: f.args(x, y), InputOptions: o.options(),
		Seconds: optional(seconds)})
}

// Swipe drags from (x, y) to (x2, y2) in seconds, holding hold seconds at
// the end (0: defaults).
func (c *Client) Swipe(ctx context.Context, f Frame, x, y, x2, y2, seconds, hold float64, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolSwipe, api.SwipeArgs{FrameArgs: f.args(x, y), InputOptions: o.options(),
		X2: &x2, Y2: &y2, Seconds: optional(seconds), Hold: optional(hold)})
}

// TypeText types printable US ASCII text.
func (c *Client) TypeText(ctx context.Context, text string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolTypeText, api.TypeTextArgs{InputOptions: o.options(), Text: &text})
}

// Key presses a named key with modifiers (ctrl, shift, alt, cmd).
func (c *Client) Key(ctx context.Context, key string, modifiers []string, o *InputOptions) (*Result, error) {
	a := api.KeyArgs{InputOptions: o.options(), Key: api.KeyName(key)}
	for _, m := range modifiers {
		a.Modifiers = append(a.Modifiers, api.Modifier(m))
	}
	return c.mutate(ctx, api.ToolKey, a)
}

// Button presses home, lock, volume_up, volume_down, mute (back and
// app_switch on Android).
func (c *Client) Button(ctx context.Context, button string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolButton, api.ButtonArgs{InputOptions: o.options(), Button: api.Button(button)})
}

// LaunchApp opens an app by bundle id or name.
func (c *Client) LaunchApp(ctx context.Context, app string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolLaunchApp, api.LaunchAppArgs{InputOptions: o.options(), BundleID: app})
}

// OpenURL opens a URL on the phone.
func (c *Client) OpenURL(ctx context.Context, u string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolOpenURL, api.OpenURLArgs{InputOptions: o.options(), URL: u})
}

// Control sends acquire, renew, release or resume.
func (c *Client) Control(ctx context.Context, command string) (*Result, error) {
	return c.mutate(ctx, api.ToolControl, api.ControlArgs{Command: api.Command(command)})
}

// Pause stops all input on the box at once (any client may).
func (c *Client) Pause(ctx context.Context) (*Result, error) {
	return c.mutate(ctx, api.ToolPause, api.PauseArgs{})
}

// Cancel stops a queued or running operation.
func (c *Client) Cancel(ctx context.Context, target string) (*Result, error) {
	return c.mutate(ctx, api.ToolCancel, api.CancelArgs{Target: target})
}

// Apps lists the apps the box knows, filtered by query; [Decode] reads
// the result as an api.AppsResult.
func (c *Client) Apps(ctx context.Context, query string) (*Result, error) {
	return c.call(ctx, api.ToolApps, api.AppsArgs{Query: query})
}

// FindText reads the text on the phone's screen: the matches of query
// (case-insensitive), or every line when query is empty, with boxes as
// fractions of the frame the answer names (now the caller's latest, to tap
// a match's centre on). [Decode] reads the result as an api.FindTextResult.
func (c *Client) FindText(ctx context.Context, query string) (*Result, error) {
	return c.call(ctx, api.ToolFindText, api.FindTextArgs{Query: query})
}

// Watch long-polls for events after cursor ("" for the start), waiting up
// to waitMS milliseconds (0: the box's default), for the given kinds (all
// when empty). [Decode] reads the result as an api.WatchResult.
func (c *Client) Watch(ctx context.Context, cursor string, waitMS int, kinds []string) (*Result, error) {
	a := api.WatchArgs{Cursor: cursor}
	if waitMS > 0 {
		a.WaitMS = &waitMS
	}
	for _, k := range kinds {
		a.Kinds = append(a.Kinds, api.EventKind(k))
	}
	return c.call(ctx, api.ToolWatch, a)
}

// AppProfiles lists the app profiles of the phone's platform, filtered by
// query; [Decode] reads the result as an api.AppProfilesResult.
func (c *Client) AppProfiles(ctx context.Context, query string) (*Result, error) {
	return c.call(ctx, api.ToolAppProfiles, api.AppProfilesArgs{Query: query})
}

// AppProfile reads one app's profile (its deep links with their
// parameters, and its quirks); [Decode] reads the result as an
// api.AppProfileResult.
func (c *Client) AppProfile(ctx context.Context, bundleID string) (*Result, error) {
	return c.call(ctx, api.ToolAppProfile, api.AppProfileArgs{BundleID: bundleID})
}

// OpenLink opens the deep link named link of bundleID's profile with
// params (each value a string, number or boolean, as the parameter's type
// says); the box checks and percent-encodes them. [Decode] reads the
// result as an api.OpenLinkResult, whose URL is the one opened.
func (c *Client) OpenLink(ctx context.Context, bundleID, link string, params map[string]any, o *InputOptions) (*Result, error) {
	a := api.OpenLinkArgs{InputOptions: o.options(), BundleID: bundleID, Link: link}
	if len(params) > 0 {
		a.Params = map[string]json.RawMessage{}
		for k, v := range params {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("openlolo: open_link: parameter %q: %w", k, err)
			}
			a.Params[k] = b
		}
	}
	return c.mutate(ctx, api.ToolOpenLink, a)
}

// SendText pastes text (any Unicode, up to 10,000 characters) into the
// focused field through the phone's clipboard, replacing what it held; on
// phones without a clipboard the box answers UNSUPPORTED. [Decode] reads
// the result as an api.SendTextResult.
func (c *Client) SendText(ctx context.Context, text string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolSendText, api.SendTextArgs{InputOptions: o.options(), Text: &text})
}

// Clipboard reads the phone's clipboard; [Decode] reads the result as an
// api.ClipboardResult.
func (c *Client) Clipboard(ctx context.Context) (*Result, error) {
	return c.call(ctx, api.ToolClipboard, api.ClipboardArgs{})
}

// FullPage captures a page taller than the screen, dragging it up page by
// page; the Result's Images are the pages and then the stitched page, as
// args.Output asks. [Decode] reads the result as an api.FullPageResult.
func (c *Client) FullPage(ctx context.Context, args api.FullPageArgs) (*Result, error) {
	return c.mutate(ctx, api.ToolFullPage, args)
}
