package sdk

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// Frame identifies the screenshot that touch coordinates refer to. Pass the
// Frame of your own latest Screenshot to Tap, LongPress and Swipe.
type Frame struct {
	ID     any // frame_id as the box sent it, echoed back unchanged
	Epoch  any // geometry_epoch as the box sent it
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
	args := map[string]any{}
	if o.Format != "" {
		args["format"] = o.Format
	}
	if o.MaxSize != 0 {
		args["max_size"] = o.MaxSize
	}
	res, err := c.CallTool(ctx, "openlolo_screenshot", args)
	if err != nil {
		return nil, err
	}
	return screenshotFrom(res)
}

func screenshotFrom(res *Result) (*Screenshot, error) {
	sc := res.Structured
	s := &Screenshot{
		Frame: Frame{
			ID: sc["frame_id"], Epoch: sc["geometry_epoch"],
			Width: intOf(sc["width"]), Height: intOf(sc["height"]),
		},
		NativeWidth: intOf(sc["native_width"]), NativeHeight: intOf(sc["native_height"]),
		AgeMS: intOf(sc["age_ms"]), Result: res,
	}
	if len(res.Images) == 0 {
		return nil, &ProtocolError{Message: "openlolo_screenshot answered without an image"}
	}
	s.Image, s.MIMEType = res.Images[0].Data, res.Images[0].MIMEType
	if s.ID == nil {
		return nil, &ProtocolError{Message: "openlolo_screenshot answered without frame_id"}
	}
	return s, nil
}

func intOf(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return 0
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

func (o *InputOptions) apply(args map[string]any) {
	if o == nil {
		return
	}
	if o.Observe != nil {
		args["observe"] = *o.Observe
	}
	if o.Settle > 0 {
		args["settle"] = o.Settle
	}
	if o.OperationID != "" {
		args["operation_id"] = o.OperationID
	}
}

// Mutate calls a mutating tool with an operation_id (a fresh UUID unless
// args has one). If the connection drops before the answer, it retries
// once with the same id, which the box answers from its journal without
// running the input again; if that fails too it asks
// openlolo_operation_status instead of replaying and returns what the box
// recorded.
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
	if op, ok := st.Structured["operation"].(map[string]any); ok {
		if ans, ok := op["answer"].(map[string]any); ok {
			rec := &Result{Structured: ans, Raw: st.Raw, Text: st.Text}
			if s, _ := ans["status"].(string); s == "failed" {
				rec.IsError = true
				return rec, refusedFrom(tool, ans)
			}
			return rec, nil
		}
	}
	return st, outcomeErr(tool, st)
}

// outcomeErr turns an operation record into an error when it did not
// succeed.
func outcomeErr(tool string, st *Result) error {
	state, _ := st.Structured["state"].(string)
	if state == "" {
		if op, ok := st.Structured["operation"].(map[string]any); ok {
			state, _ = op["state"].(string)
		}
	}
	switch state {
	case "succeeded", "":
		return nil
	case "failed", "cancelled", "outcome_unknown":
		r := refusedFrom(tool, st.Structured)
		if r.Code == "INTERNAL" && state == "outcome_unknown" {
			r.Code, r.Message = "OUTCOME_UNKNOWN", "the input may or may not have reached the phone; take a screenshot to see"
		}
		return r
	}
	return nil
}

// OperationStatus returns the box's record of an operation.
func (c *Client) OperationStatus(ctx context.Context, id string) (*Result, error) {
	return c.CallTool(ctx, "openlolo_operation_status", map[string]any{"operation_id": id})
}

// Status returns openlolo_status.
func (c *Client) Status(ctx context.Context) (*Result, error) {
	return c.CallTool(ctx, "openlolo_status", nil)
}

// Tap taps at (x, y), fractions of frame f's image.
func (c *Client) Tap(ctx context.Context, f Frame, x, y float64, o *InputOptions) (*Result, error) {
	args := map[string]any{"frame_id": f.ID, "geometry_epoch": f.Epoch, "x": x, "y": y}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_tap", args)
}

// LongPress presses at (x, y) for seconds (0.03–2; 0: the box's default).
func (c *Client) LongPress(ctx context.Context, f Frame, x, y, seconds float64, o *InputOptions) (*Result, error) {
	args := map[string]any{"frame_id": f.ID, "geometry_epoch": f.Epoch, "x": x, "y": y}
	if seconds > 0 {
		args["seconds"] = seconds
	}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_long_press", args)
}

// Swipe drags from (x, y) to (x2, y2) in seconds, holding hold seconds at
// the end (0: defaults).
func (c *Client) Swipe(ctx context.Context, f Frame, x, y, x2, y2, seconds, hold float64, o *InputOptions) (*Result, error) {
	args := map[string]any{"frame_id": f.ID, "geometry_epoch": f.Epoch, "x": x, "y": y, "x2": x2, "y2": y2}
	if seconds > 0 {
		args["seconds"] = seconds
	}
	if hold > 0 {
		args["hold"] = hold
	}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_swipe", args)
}

// TypeText types printable US ASCII text.
func (c *Client) TypeText(ctx context.Context, text string, o *InputOptions) (*Result, error) {
	args := map[string]any{"text": text}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_type_text", args)
}

// Key presses a named key with modifiers (ctrl, shift, alt, cmd).
func (c *Client) Key(ctx context.Context, key string, modifiers []string, o *InputOptions) (*Result, error) {
	args := map[string]any{"key": key}
	if len(modifiers) > 0 {
		args["modifiers"] = modifiers
	}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_key", args)
}

// Button presses home, lock, volume_up, volume_down, mute (back and
// app_switch on Android).
func (c *Client) Button(ctx context.Context, button string, o *InputOptions) (*Result, error) {
	args := map[string]any{"button": button}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_button", args)
}

// LaunchApp opens an app by bundle id or name.
func (c *Client) LaunchApp(ctx context.Context, app string, o *InputOptions) (*Result, error) {
	args := map[string]any{"bundle_id": app}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_launch_app", args)
}

// OpenURL opens a URL on the phone.
func (c *Client) OpenURL(ctx context.Context, u string, o *InputOptions) (*Result, error) {
	args := map[string]any{"url": u}
	o.apply(args)
	return c.Mutate(ctx, "openlolo_open_url", args)
}

// Control sends acquire, renew, release or resume.
func (c *Client) Control(ctx context.Context, command string) (*Result, error) {
	return c.Mutate(ctx, "openlolo_control", map[string]any{"command": command})
}

// Pause stops all input on the box at once (any client may).
func (c *Client) Pause(ctx context.Context) (*Result, error) {
	return c.Mutate(ctx, "openlolo_pause", nil)
}

// Cancel stops a queued or running operation.
func (c *Client) Cancel(ctx context.Context, target string) (*Result, error) {
	return c.Mutate(ctx, "openlolo_cancel", map[string]any{"target": target})
}

// Apps lists the apps the box knows, filtered by query.
func (c *Client) Apps(ctx context.Context, query string) (*Result, error) {
	args := map[string]any{}
	if query != "" {
		args["query"] = query
	}
	return c.CallTool(ctx, "openlolo_apps", args)
}

// Watch long-polls for events after cursor ("" for the start), waiting up
// to waitMS milliseconds (0: the box's default), for the given kinds (all
// when empty). The result carries the events and the next cursor.
func (c *Client) Watch(ctx context.Context, cursor string, waitMS int, kinds []string) (*Result, error) {
	args := map[string]any{}
	if cursor != "" {
		args["cursor"] = cursor
	}
	if waitMS > 0 {
		args["wait_ms"] = waitMS
	}
	if len(kinds) > 0 {
		args["kinds"] = kinds
	}
	return c.CallTool(ctx, "openlolo_watch", args)
}
