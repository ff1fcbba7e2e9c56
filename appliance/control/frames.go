package control

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// clientFrame is the latest frame one client was given.
type clientFrame struct {
	seq, epoch uint64
	at         time.Time // when the client got it (service clock)
	// listed is the elements listed for it (openlolo_elements); nil
	// until then.
	listed *listed
}

// Shot is a screenshot as one client received it.
type Shot struct {
	Frame *phone.Frame
	// ID and Epoch are what a touch must name; ID is stable for one
	// picture within one run of the box.
	ID, Epoch string
	// At is when the client received it (service clock).
	At time.Time
	// Format and MaxSize are how the picture is to be sent.
	Format  api.ImageFormat
	MaxSize int
}

// Age is how old the picture was when the client received it.
func (s Shot) Age() time.Duration {
	if s.Frame == nil || s.Frame.Captured.IsZero() || s.At.Before(s.Frame.Captured) {
		return 0
	}
	return s.At.Sub(s.Frame.Captured)
}

// Result is the screenshot's answer for an image of w×h pixels.
func (s Shot) Result(w, h int) *api.Frame {
	b := s.Frame.Image.Bounds()
	return &api.Frame{FrameID: s.ID, GeometryEpoch: s.Epoch, Width: w, Height: h,
		NativeWidth: b.Dx(), NativeHeight: b.Dy(), AgeMS: s.Age().Milliseconds(), Format: s.Format}
}

// FrameRef is the frame a touch names.
type FrameRef struct{ ID, Epoch string }

// TakeFrame takes the phone's newest frame and records it as c's latest:
// from now on c's touches must name it. One client's screenshot never
// changes another client's frame.
func (s *Service) TakeFrame(ctx context.Context, c Client) (Shot, error) {
	f, err := s.ph.Screenshot(ctx)
	if err != nil {
		return Shot{}, PhoneError(err)
	}
	now := s.recordFrame(c, f)
	return Shot{Frame: f, ID: s.frameID(f.Seq), Epoch: api.FormatEpoch(f.Geometry.Epoch), At: now,
		Format: api.FormatJPEG, MaxSize: api.DefaultMaxSize}, nil
}

// recordFrame makes f c's latest frame, the one c's touches are to name,
// and returns the time it was taken at on the box's clock.
func (s *Service) recordFrame(c Client, f *phone.Frame) time.Time {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	cf := clientFrame{seq: f.Seq, epoch: f.Geometry.Epoch, at: now}
	if prev := s.frames[c.ID]; prev.seq == cf.seq && prev.epoch == cf.epoch {
		cf.listed = prev.listed // the same picture: its elements still hold
	}
	s.frames[c.ID] = cf
	return now
}

func (s *Service) frameID(seq uint64) string { return fmt.Sprintf("%s-%d", s.boot, seq) }

// checkFrameLocked refuses a touch whose frame is not c's latest, whose
// geometry changed, or that is older than the frame TTL.
func (s *Service) checkFrameLocked(c Client, ref FrameRef) *Error {
	latest, ok := s.frames[c.ID]
	if !ok {
		return api.Errorf(api.CodeFrameExpired, "take a screenshot first: touches need the frame_id of your own latest screenshot")
	}
	seqStr, found := strings.CutPrefix(ref.ID, s.boot+"-")
	seq, err := strconv.ParseUint(seqStr, 10, 64)
	if !found || err != nil {
		return api.Errorf(api.CodeFrameExpired, "frame_id %q is not one this box gave you since it started", ref.ID)
	}
	// The owner touches the live picture, which moves on by itself: its
	// touch may name an older frame of the same geometry.
	if seq != latest.seq && !(c.IsOwner() && seq < latest.seq) {
		return api.Errorf(api.CodeFrameExpired, "frame_id %q is not your latest screenshot; you have taken a newer one", ref.ID)
	}
	want := strconv.FormatUint(latest.epoch, 10)
	if ref.Epoch != want {
		return api.Errorf(api.CodeFrameExpired, "geometry_epoch %q does not match your frame's (%s)", ref.Epoch, want)
	}
	if g := s.ph.State().Geometry; g.Epoch != latest.epoch {
		return api.Errorf(api.CodeFrameExpired, "the phone's screen geometry changed since that frame (rotation or size)")
	}
	if age := s.now().Sub(latest.at); age > s.lim.FrameTTL {
		return api.Errorf(api.CodeFrameExpired, "the frame is %s old; touches accept frames up to %s old", age.Round(time.Second), s.lim.FrameTTL)
	}
	return nil
}

// CheckFrame reports whether c may touch using ref now.
func (s *Service) CheckFrame(c Client, ref FrameRef) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkFrameLocked(c, ref)
}
