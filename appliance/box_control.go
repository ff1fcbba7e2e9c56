package appliance

import (
	"context"
	"slices"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
)

// controller is the box page's view of the control service: of one
// phone, or with all of the whole box (its pause and resume are every
// phone's).
type controller struct {
	s   *control.Service
	all bool
}

var _ owner.Controller = controller{}

func (c controller) Pause(ctx context.Context, by string) error {
	if c.all {
		return c.s.OwnerPauseAll(ctx, by)
	}
	return c.s.OwnerPause(ctx, by)
}

func (c controller) Resume(ctx context.Context, by string) error {
	if c.all {
		return c.s.ResumeAll(ctx, by)
	}
	return c.s.Resume(ctx, by)
}

func (c controller) Lease() control.LeaseState { return c.s.Lease() }

func (c controller) Recent(ctx context.Context, n int) ([]owner.Activity, error) {
	ops, err := c.s.Recent(ctx, n)
	if err != nil {
		return nil, err
	}
	acts := make([]owner.Activity, len(ops))
	for i, op := range ops {
		client := op.ClientName
		if client == "" {
			client = op.ClientID
		}
		acts[i] = owner.Activity{Time: op.Created, Client: client, Tool: op.Tool, Outcome: op.State, Code: op.Code,
			Summary: op.Summary, RunID: op.RunID, RunTitle: op.RunTitle,
			OperationID: op.ID, ClientID: op.ClientID, ThumbWidth: op.ThumbWidth, ThumbHeight: op.ThumbHeight, Phone: op.Phone}
	}
	done, err := c.s.RecentActions(ctx, n)
	if err != nil {
		return nil, err
	}
	for _, a := range done {
		if a.Tool != "" { // a read or a refused call
			acts = append(acts, owner.Activity{Time: a.At, Client: a.Actor, Tool: a.Tool, Outcome: a.Outcome, Code: a.Code,
				Summary: a.Detail, RunID: a.RunID, RunTitle: a.RunTitle, Phone: a.Phone})
			continue
		}
		outcome := "done"
		if a.Action == "login_failed" || a.Action == "claim_failed" {
			outcome = "failed"
		}
		acts = append(acts, owner.Activity{Time: a.At, Client: a.Actor, Action: a.Action, Detail: a.Detail, Outcome: outcome, Phone: a.Phone})
	}
	slices.SortStableFunc(acts, func(a, b owner.Activity) int { return b.Time.Compare(a.Time) })
	return acts[:min(n, len(acts))], nil
}

// boxController is the box page's Config.Control: the one phone's, or on
// a box of several the whole box's.
func boxController(s *control.Service) controller {
	return controller{s: s, all: len(s.Views()) > 1}
}

// boxPhones are the box's phones for the box page: every phone's view
// when it has several, none when it has one (the page then shows the
// one phone as ever).
func boxPhones(s *control.Service) []owner.BoxPhone {
	views := s.Views()
	if len(views) < 2 {
		return nil
	}
	out := make([]owner.BoxPhone, len(views))
	for i, v := range views {
		out[i] = owner.BoxPhone{ID: v.ID(), Phone: v.Phone(), Screen: v, Control: controller{s: v}, Driver: controller{s: v}}
	}
	return out
}
