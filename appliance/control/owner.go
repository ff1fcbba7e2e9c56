package control

import (
	"context"

	"github.com/openlolo/openlolo/api"
)

// OwnerID is the client id the box's owner carries when it drives the
// phone from the box page. It holds a space, which no OAuth client_id may
// (the oauth package accepts printable ASCII without spaces, RFC 6749
// appendix A.1), so no client can pose as the owner.
const OwnerID = "owner (box page)"

// OwnerName is the owner's name in the journal, Activity and the lease.
const OwnerName = "owner"

// Owner is the box's owner as a client of its own: its inputs go through
// the same verbs, rules and journal as any client's, with its own control
// lease, and they run while the agents are paused (see [Service.TakeOver]).
func Owner() Client { return Client{ID: OwnerID, Name: OwnerName} }

// IsOwner reports whether c is the box's owner ([Owner]).
func (c Client) IsOwner() bool { return c.ID == OwnerID }

// OwnerFrame takes the phone's newest frame as the owner's latest and
// returns the frame arguments of an owner's touch at (x, y), fractions of
// the screen. The owner touches the live picture, which is always the
// newest; epoch, when not empty, is the geometry epoch the owner's page
// showed, and a screen that changed shape since (a rotation) is refused
// with FRAME_EXPIRED, as a client's stale frame is.
func (s *Service) OwnerFrame(ctx context.Context, epoch string, x, y float64) (api.FrameArgs, *Error) {
	shot, err := s.TakeFrame(ctx, Owner())
	if err != nil {
		return api.FrameArgs{}, PhoneError(err)
	}
	if epoch != "" && epoch != shot.Epoch {
		e := api.Errorf(api.CodeFrameExpired, "the phone's screen changed shape since the page showed it (geometry epoch %s, now %s); nothing was sent", api.Clip(epoch), shot.Epoch)
		e.NextSteps = []string{"reload the Status page and touch the phone's picture again"}
		return api.FrameArgs{}, e
	}
	return api.FrameArgs{FrameID: shot.ID, GeometryEpoch: api.Epoch(shot.Epoch), X: &x, Y: &y}, nil
}

// TakeOver is the owner's Take over: it pauses the agents with the
// owner's pause (their queued and running inputs stop and no client can
// resume; see [Service.OwnerPause]) and gives the owner the control lease,
// whoever held it. The owner's own inputs keep running while the agents
// are paused. [Service.Resume] (or [Service.GiveBack]) hands control back.
func (s *Service) TakeOver(ctx context.Context) error {
	err := s.pause(ctx, OwnerName, "", true)
	s.mu.Lock()
	s.lapseLocked()
	from := ""
	if s.lease.holder != "" && s.lease.holder != OwnerID {
		from = s.lease.name
		s.controlEventLocked("taken_over", s.lease.holder, s.lease.name)
	}
	s.lease = lease{holder: OwnerID, name: OwnerName, expires: s.now().Add(s.lim.Lease)}
	s.controlEventLocked("acquired", OwnerID, OwnerName)
	s.mu.Unlock()
	detail := "took over phone control; the agents are paused until the owner resumes"
	if from != "" {
		detail = "took over phone control from " + from + "; the agents are paused until the owner resumes"
	}
	s.recordAction(ctx, OwnerName, "", "take_over", detail)
	return err
}

// GiveBack ends the owner's Take over: it releases the owner's control
// lease and lifts the pause, so the agents may take control again. It is
// [Service.Resume] under the name the box page's button has.
func (s *Service) GiveBack(ctx context.Context) error { return s.Resume(ctx, OwnerName) }

// releaseOwnerLocked frees the lease when the owner holds it.
func (s *Service) releaseOwnerLocked() bool {
	if s.lease.holder != OwnerID {
		return false
	}
	s.controlEventLocked("released", OwnerID, OwnerName)
	s.lease = lease{}
	return true
}
