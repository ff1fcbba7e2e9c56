package sdk

import (
	"context"

	"github.com/openlolo/openlolo/api"
)

// ElementsOptions filter openlolo_elements: Query (a case-insensitive part
// of an element's text, label or identifier), ClickableOnly, Limit (0: the
// box's default) and Cursor (a NextCursor, for the next page).
type ElementsOptions struct {
	Query         string
	ClickableOnly bool
	Limit         int
	Cursor        string
}

// Elements is openlolo_elements' answer: the elements and the Frame their
// ids belong to (now the caller's latest), to pass to [Client.TapElement],
// [Client.LongPressElement] and [Client.TypeTextInto].
type Elements struct {
	Frame
	api.ElementsResult
	Result *Result
}

// Elements lists the elements of the phone's screen now.
func (c *Client) Elements(ctx context.Context, o ElementsOptions) (*Elements, error) {
	args := api.ElementsArgs{Query: o.Query, Cursor: o.Cursor}
	if o.ClickableOnly {
		args.ClickableOnly = &o.ClickableOnly
	}
	if o.Limit != 0 {
		args.Limit = &o.Limit
	}
	res, err := c.call(ctx, api.ToolElements, args)
	if err != nil {
		return nil, err
	}
	r, err := Decode[api.ElementsResult](res)
	if err != nil {
		return nil, err
	}
	if r.FrameID == "" {
		return nil, &ProtocolError{Message: "openlolo_elements answered without frame_id"}
	}
	return &Elements{Frame: Frame{ID: r.FrameID, Epoch: r.GeometryEpoch}, ElementsResult: *r, Result: res}, nil
}

func (f Frame) element() api.FrameArgs {
	return api.FrameArgs{FrameID: f.ID, GeometryEpoch: api.Epoch(f.Epoch)}
}

// TapElement taps the centre of element (an id of f's list).
func (c *Client) TapElement(ctx context.Context, f Frame, element string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolTap, api.TapArgs{FrameArgs: f.element(), Element: element, InputOptions: o.options()})
}

// LongPressElement presses the centre of element for seconds (0: the
// box's default).
func (c *Client) LongPressElement(ctx context.Context, f Frame, element string, seconds float64, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolLongPress, api.LongPressArgs{FrameArgs: f.element(), Element: element,
		InputOptions: o.options(), Seconds: optional(seconds)})
}

// TypeTextInto taps element (a text field of f's list) to focus it, then
// types printable US ASCII text.
func (c *Client) TypeTextInto(ctx context.Context, f Frame, element, text string, o *InputOptions) (*Result, error) {
	return c.mutate(ctx, api.ToolTypeText, api.TypeTextArgs{InputOptions: o.options(), Text: &text,
		FrameID: f.ID, GeometryEpoch: api.Epoch(f.Epoch), Element: element})
}
