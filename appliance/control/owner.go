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

// OwnerFrame returns the frame arguments of an owner's touch at (x, y),
// fractions of the screen, on the owner's own latest frame: the picture
// the box page shows ([Service.Screen]), so no screenshot is
// taken for the touch. Only when the owner has no frame a touch may name
// (no page showed the phone lately, or the screen changed shape since) is
// the phone's newest frame taken as the owner's. epoch, when not empty,
// is the geometry epoch the owner's page showed, and a screen that
// changed shape since (a rotation) is refused with FRAME_EXPIRED, as a
// client's stale frame is.
func (s *Service) OwnerFrame(ctx context.Context, epoch string, x, y float64) (api.FrameArgs, *Error) {
	ref, ok := s.ownerLatest()
	if !ok {
		shot, err := s.TakeFrame(ctx, Owner())
		if err != nil {
			return api.FrameArgs{}, PhoneError(err)
		}
		ref = FrameRef{ID: shot.ID, Epoch: shot.Epoch}
	}
	if epoch != "" && epoch != ref.Epoch {
		e := api.Errorf(api.CodeFrameExpired, "the phone's screen changed shape since the page showed it (geometry epoch %s, now %s); nothing was sent", api.Clip(epoch), ref.Epoch)
		e.NextSteps = []string{"reload the Status page and touch the phone's picture again"}
		return api.FrameArgs{}, e
	}
	return api.FrameArgs{FrameID: ref.ID, GeometryEpoch: api.Epoch(ref.Epoch), X: &x, Y: &y}, nil
}

// ownerLatest is the owner's latest frame while a touch may name it: of
// the geometry the phone has now and younger than the frame TTL.
func (s *Service) ownerLatest() (FrameRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.frames[OwnerID]
	if !ok || f.epoch != s.ph.State().Geometry.Epoch || s.now().Sub(f.at) > s.lim.FrameTTL {
		return FrameRef{}, false
	}
	return FrameRef{ID: s.frameID(f.seq), Epoch: api.FormatEpoch(f.epoch)}, true
}

// ownerTouch gives an owner's touch that names no frame (the box page's)
// the owner's own latest; the geometry epoch it names, if any, is the one
// the page showed. Other arguments are returned as they are.
func (s *Service) ownerTouch(ctx context.Context, args any) (any, *Error) {
	var e *Error
	switch a := args.(type) {
	case api.TapArgs:
		a.FrameArgs, e = s.ownerFrameArgs(ctx, a.FrameArgs)
		args = a
	case api.LongPressArgs:
		a.FrameArgs, e = s.ownerFrameArgs(ctx, a.FrameArgs)
		args = a
	case api.SwipeArgs:
		a.FrameArgs, e = s.ownerFrameArgs(ctx, a.FrameArgs)
		args = a
	}
	return args, e
}

// ownerFrameArgs fills fa's frame with the owner's latest unless fa names
// one.
func (s *Service) ownerFrameArgs(ctx context.Context, fa api.FrameArgs) (api.FrameArgs, *Error) {
	if fa.FrameID != "" || fa.X == nil || fa.Y == nil {
		return fa, nil
	}
	return s.OwnerFrame(ctx, string(fa.GeometryEpoch), *fa.X, *fa.Y)
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
