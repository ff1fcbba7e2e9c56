package appliance

import (
	"context"
	"encoding/json"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
)

// The box page's live view drives the phone as the owner, a client of its
// own (control.Owner): every input is a control verb under the same
// rules and journal as a client's tool call, never a side door to the
// phone.

var _ owner.Driver = controller{}

// Input runs the owner's input through the verb of the matching tool and
// records it for Activity as a client's tool call is (refused ones too).
func (c controller) Input(ctx context.Context, in owner.Input) error {
	o := control.Owner()
	var secs *float64
	if in.Seconds > 0 {
		secs = &in.Seconds
	}
	var (
		tool api.Tool
		args any
		out  api.Outcome
	)
	switch in.Kind {
	case owner.InputTap, owner.InputLongPress, owner.InputSwipe:
		fa, e := c.s.OwnerFrame(ctx, in.Epoch, in.X, in.Y)
		switch in.Kind {
		case owner.InputTap:
			a := api.TapArgs{FrameArgs: fa}
			tool, args = api.ToolTap, a
			if e == nil {
				out = c.s.Tap(ctx, o, a).Outcome
			}
		case owner.InputLongPress:
			a := api.LongPressArgs{FrameArgs: fa, Seconds: secs}
			tool, args = api.ToolLongPress, a
			if e == nil {
				out = c.s.LongPress(ctx, o, a).Outcome
			}
		default:
			a := api.SwipeArgs{FrameArgs: fa, X2: &in.X2, Y2: &in.Y2, Seconds: secs}
			tool, args = api.ToolSwipe, a
			if e == nil {
				out = c.s.Swipe(ctx, o, a).Outcome
			}
		}
		if e != nil {
			out = control.Refuse[struct{}](e).Outcome
		}
	case owner.InputText:
		a := api.TypeTextArgs{Text: &in.Text}
		tool, args = api.ToolTypeText, a
		out = c.s.TypeText(ctx, o, a).Outcome
	case owner.InputKey:
		a := api.KeyArgs{Key: api.KeyName(in.Key)}
		tool, args = api.ToolKey, a
		out = c.s.Key(ctx, o, a).Outcome
	case owner.InputButton:
		a := api.ButtonArgs{Button: api.Button(in.Button)}
		tool, args = api.ToolButton, a
		out = c.s.Button(ctx, o, a).Outcome
	default:
		return api.Errorf(api.CodeInvalidArguments, "the box page has no input %q", in.Kind)
	}
	raw, _ := json.Marshal(args)
	c.s.RecordCall(ctx, o, tool, out, raw)
	if out.Status != api.StatusOK {
		if out.Error != nil {
			return out.Error
		}
		return api.Errorf(api.CodeInternal, "the input answered %s", out.Status)
	}
	return nil
}

// TakeOver pauses the agents and gives the owner control.
func (c controller) TakeOver(ctx context.Context) error { return c.s.TakeOver(ctx) }

// GiveBack gives control back to the agents.
func (c controller) GiveBack(ctx context.Context) error { return c.s.GiveBack(ctx) }
