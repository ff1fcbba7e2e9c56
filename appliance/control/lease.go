package control

import (
	"context"
	"github.com/openlolo/openlolo/api"
	"time"
)

type lease struct {
	holder, name string
	expires      time.Time
}

// LeaseState is who holds control and whether input is paused.
type LeaseState struct {
	Holder   string // client id; "" when free
	Name     string // the holder's client name
	Expires  time.Time
	Paused   bool
	PausedBy string
}

// Lease returns the control lease now (lapsing it if its time is up).
func (s *Service) Lease() LeaseState {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lapseLocked()
	return LeaseState{Holder: s.lease.holder, Name: s.lease.name, Expires: s.lease.expires,
		Paused: s.paused, PausedBy: s.pausedBy}
}

// lapseLocked frees a lease whose time is up.
func (s *Service) lapseLocked() {
	if s.lease.holder != "" && !s.now().Before(s.lease.expires) {
		s.controlEventLocked("lapsed", s.lease.holder, s.lease.name)
		s.lease = lease{}
	}
}

// takeLocked gives c control when free or renews it when c holds it; it
// refuses with CONTROL_BUSY when another client holds it.
func (s *Service) takeLocked(c Client) *Error {
	s.lapseLocked()
	switch s.lease.holder {
	case "":
		s.lease = lease{holder: c.ID, name: c.Name, expires: s.now().Add(s.lim.Lease)}
		s.controlEventLocked("acquired", c.ID, c.Name)
	case c.ID:
		s.lease.expires = s.now().Add(s.lim.Lease)
		s.controlEventLocked("renewed", c.ID, c.Name)
	default:
		e := api.Errorf(api.CodeControlBusy, "%q holds control until %s", s.lease.name, s.lease.expires.UTC().Format(time.RFC3339))
		e.RetryAfterMS = max(1, s.lease.expires.Sub(s.now()).Milliseconds())
		return e
	}
	return nil
}

// CheckCommand tells, without changing anything, whether c's
// openlolo_control command would be refused now, and why.
func (s *Service) CheckCommand(c Client, command api.Command) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lapseLocked()
	other := s.lease.holder != "" && s.lease.holder != c.ID
	switch command {
	case api.CommandAcquire, api.CommandResume, api.CommandRenew, api.CommandRelease:
		if other {
			e := api.Errorf(api.CodeControlBusy, "%q holds control until %s", s.lease.name, s.lease.expires.UTC().Format(time.RFC3339))
			e.RetryAfterMS = max(1, s.lease.expires.Sub(s.now()).Milliseconds())
			return e
		}
		if command == api.CommandRenew && s.lease.holder == "" {
			return api.Errorf(api.CodeControlRequired, "you do not hold control, so there is nothing to renew")
		}
		return nil
	}
	return api.Errorf(api.CodeInvalidArguments, "command must be acquire, renew, release or resume, not %q", command)
}

// ControlCommand runs openlolo_control's command for c.
func (s *Service) ControlCommand(ctx context.Context, c Client, command api.Command) (*api.ControlResult, error) {
	s.mu.Lock()
	var err *Error
	switch command {
	case api.CommandAcquire:
		err = s.takeLocked(c)
	case api.CommandRenew:
		s.lapseLocked()
		switch s.lease.holder {
		case c.ID:
			err = s.takeLocked(c)
		case "":
			err = api.Errorf(api.CodeControlRequired, "you do not hold control, so there is nothing to renew")
		default:
			err = s.takeLocked(c)
		}
	case api.CommandRelease:
		s.lapseLocked()
		switch s.lease.holder {
		case c.ID:
			s.controlEventLocked("released", c.ID, c.Name)
			s.lease = lease{}
		case "":
		default:
			err = api.Errorf(api.CodeControlBusy, "%q holds control; only the holder can release it", s.lease.name)
		}
	case api.CommandResume:
		if err = s.takeLocked(c); err == nil && s.paused {
			s.paused, s.pausedBy = false, ""
			s.controlEventLocked("resumed", c.ID, c.Name)
		}
	default:
		err = api.Errorf(api.CodeInvalidArguments, "command must be acquire, renew, release or resume, not %q", command)
	}
	res := &api.ControlResult{Control: s.leaseLocked(c), Paused: s.paused}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// leaseLocked is the lease as c sees it.
func (s *Service) leaseLocked(c Client) api.Lease {
	return api.Lease{Held: s.lease.holder != "", YouHold: s.lease.holder == c.ID && c.ID != "",
		Holder: s.lease.name, ExpiresMS: msOrZero(s.lease.expires)}
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Pause stops all input at once: queued inputs are cancelled, the running
// one is interrupted (it ends outcome_unknown), everything the phone holds
// is released, and input stays blocked until Resume. by names who paused
// (a client name, or "owner").
func (s *Service) Pause(ctx context.Context, by string) error {
	s.mu.Lock()
	s.paused, s.pausedBy = true, by
	for _, p := range s.pending {
		if p.input {
			p.cancel(errPaused)
		}
	}
	s.controlEventLocked("paused", "", by)
	s.mu.Unlock()
	if err := s.ph.ReleaseAll(ctx); err != nil {
		return PhoneError(err)
	}
	return nil
}

// Resume lets input run again. The box page's owner may always resume;
// clients resume through openlolo_control, which needs control.
func (s *Service) Resume(ctx context.Context, by string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused {
		s.paused, s.pausedBy = false, ""
		s.controlEventLocked("resumed", "", by)
	}
	return nil
}
