package appliance

import (
	"context"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
)

// The box page's live view drives the phone as the owner, a client of its
// own (control.Owner): every input enters control through the same
// dispatcher as a client's tool call (control.Service.Invoke), under the
// same rules and journal, never a side door to the phone.

var _ owner.Driver = controller{}

// Input runs the owner's input as the tool call it is; a touch takes the
// owner's own latest frame, the picture the live view shows.
func (c controller) Input(ctx context.Context, in owner.Input) error {
	tool, args, err := in.Call()
	if err != nil {
		return err
	}
	out := c.s.Invoke(ctx, control.Request{Client: control.Owner(), Tool: tool, Args: args}).Outcome
	switch {
	case out.Status == api.StatusOK:
		return nil
	case out.Error != nil:
		return out.Error
	}
	return api.Errorf(api.CodeInternal, "the input answered %s", out.Status)
}

// TakeOver pauses the agents and gives the owner control.
func (c controller) TakeOver(ctx context.Context) error { return c.s.TakeOver(ctx) }

// GiveBack gives control back to the agents.
func (c controller) GiveBack(ctx context.Context) error { return c.s.GiveBack(ctx) }
