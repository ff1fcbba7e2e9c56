package control

import (
	"context"
	"errors"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/store"
)

type lease struct {
	holder, name string
	expires      time.Time
}

// LeaseState is who holds control and whether input is paused: the one
// lease type of the box. The owner's pages show it as it is; a client
// sees its projection [LeaseState.For] (the contract's api.Lease).
type LeaseState struct {
	Holder   string    `json:"client_id"` // client id; "" when free
	Name     string    `json:"holder"`    // the holder's client name
	Expires  time.Time `json:"expires"`
	Paused   bool      `json:"paused"`
	PausedBy string    `json:"paused_by"` // who paused: a client's name, or the owner's "by"
	// PausedByOwner is set when the owner paused (OwnerPause): only the
	// owner lifts that pause.
	PausedByOwner bool      `json:"paused_by_owner"`
	PausedAt      time.Time `json:"paused_at"` // when input was paused; zero when not paused
}

// Owner reports whether the owner holds control (after Take over, or by
// its own input on the live view); Name then names the owner.
func (l LeaseState) Owner() bool { return l.Holder == OwnerID }

// For is the lease as the client c sees it on the wire.
func (l LeaseState) For(c Client) api.Lease {
	return api.Lease{Held: l.Holder != "", YouHold: l.Holder == c.ID && c.ID != "",
		Holder: l.Name, ExpiresMS: msOrZero(l.Expires)}
}

// Lease returns the control lease now (lapsing it if its time is up).
func (s *Service) Lease() LeaseState {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lapseLocked()
	return s.leaseStateLocked()
}

// leaseStateLocked is the lease now, without lapsing it.
func (s *Service) leaseStateLocked() LeaseState {
	return LeaseState{Holder: s.lease.holder, Name: s.lease.name, Expires: s.lease.expires,
		Paused: s.paused, PausedBy: s.pausedBy, PausedByOwner: s.pausedOwner, PausedAt: s.pausedAt}
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
		if command == api.CommandResume && s.paused && s.pausedOwner {
			return s.ownerPausedLocked()
		}
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
	resumed := false
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
		if s.paused && s.pausedOwner {
			err = s.ownerPausedLocked()
		} else if err = s.takeLocked(c); err == nil && s.paused {
			s.clearPauseLocked()
			s.controlEventLocked("resumed", c.ID, c.Name)
			resumed = true
		}
	default:
		err = api.Errorf(api.CodeInvalidArguments, "command must be acquire, renew, release or resume, not %q", command)
	}
	res := &api.ControlResult{Control: s.leaseLocked(c), Paused: s.paused}
	s.mu.Unlock()
	if resumed {
		s.recordAction(ctx, c.Name, c.ID, "resume", "resumed phone control")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// leaseLocked is the lease as c sees it.
func (s *Service) leaseLocked(c Client) api.Lease {
	return s.leaseStateLocked().For(c)
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// ownerPausedLocked is the refusal a client meets when it tries to
// resume (or send input) while the owner's pause holds.
func (s *Service) ownerPausedLocked() *Error {
	if len(s.phones) == 1 {
		e := api.Errorf(api.CodePaused, "the owner paused phone control on the box page at %s; only the owner can resume it",
			s.pausedAt.UTC().Format(time.RFC3339))
		e.NextSteps = []string{"the owner paused phone control: ask the owner to press Resume phone control on the box page (Status); openlolo_control command=resume cannot lift the owner's pause"}
		return e
	}
	e := api.Errorf(api.CodePaused, "the owner paused %s on the box page at %s; only the owner can resume it",
		s.pausedWhat(), s.pausedAt.UTC().Format(time.RFC3339))
	e.NextSteps = []string{"ask the owner to resume phone " + s.id + " on the box page (Status); openlolo_control command=resume cannot lift the owner's pause",
		"openlolo_phones says which phones are paused"}
	return e
}

// pausedLocked is the refusal of a client's input while a client's pause
// holds.
func (s *Service) pausedLocked() *Error {
	if len(s.phones) == 1 {
		return api.Errorf(api.CodePaused, "input is paused (by %s); nothing was sent", s.pausedBy)
	}
	e := api.Errorf(api.CodePaused, "%s (by %s); nothing was sent", s.pausedWhat(), s.pausedBy)
	e.NextSteps = []string{"the control holder's openlolo_control command=resume with phone " + s.id + " lifts it",
		"openlolo_phones says which phones are paused"}
	return e
}

// pausedWhat says which pause holds on a box of several phones: this
// phone's, or one that paused several at once (the box-wide pause).
func (s *Service) pausedWhat() string {
	if s.pausedBox {
		return "phone " + s.id + " is paused by a pause of several phones at once"
	}
	return "phone " + s.id + " is paused (the box's other phones are not paused by it)"
}

func (s *Service) clearPauseLocked() {
	s.paused, s.pausedBy, s.pausedOwner, s.pausedAt, s.pausedBox = false, "", false, time.Time{}, false
}

// Pause stops all input at once: queued inputs are cancelled, the running
// one is interrupted (it ends outcome_unknown), everything the phone holds
// is released, and input stays blocked until Resume. by names who paused
// (a client name). A client's pause is lifted by the control holder's
// openlolo_control command=resume or by the owner.
func (s *Service) Pause(ctx context.Context, by string) error {
	return s.pause(ctx, by, "", false)
}

// OwnerPause is the owner's pause from the box page: like Pause, but no
// client can lift it; only the owner's Resume does. by names the owner
// for Activity ("owner").
func (s *Service) OwnerPause(ctx context.Context, by string) error {
	return s.pause(ctx, by, "", true)
}

// OwnerPauseAll is [Service.OwnerPause] of every phone of the box at once.
func (s *Service) OwnerPauseAll(ctx context.Context, by string) error {
	return s.pauseAll(ctx, s.Views(), by, "", true)
}

// ResumeAll is [Service.Resume] of every phone of the box.
// On a box of several phones Activity gets one row for all of them, as
// for [Service.OwnerPauseAll].
func (s *Service) ResumeAll(ctx context.Context, by string) error {
	box := len(s.phones) > 1
	var resumed, released bool
	for _, v := range s.Views() {
		was, rel := v.resumeOne(ctx, by, box)
		resumed, released = resumed || was, released || rel
	}
	if box {
		if detail := resumeDetail(resumed, released); detail != "" {
			s.recordActionOn(ctx, "", by, "", resumeAction(resumed), "every phone: "+detail)
		}
	}
	return nil
}

// pauseAll pauses the phones of views (every phone of the box, or every
// one a client's grant reaches) and says so once in Activity.
func (s *Service) pauseAll(ctx context.Context, views []*Service, by, clientID string, owner bool) error {
	var errs []error
	for _, v := range views {
		errs = append(errs, v.pauseOne(ctx, by, clientID, owner, len(s.phones) > 1))
	}
	if len(s.phones) > 1 {
		detail := "paused every phone's control"
		if len(views) < len(s.phones) {
			detail = "paused the control of every phone its grant reaches"
		}
		if owner {
			detail += "; only the owner can resume"
		}
		s.recordActionOn(ctx, "", by, clientID, "pause", detail)
	}
	return errors.Join(errs...)
}

func (s *Service) pause(ctx context.Context, by, clientID string, owner bool) error {
	return s.pauseOne(ctx, by, clientID, owner, false)
}

// pauseOne pauses s's phone; box says it is one of a box-wide pause,
// which records itself.
func (s *Service) pauseOne(ctx context.Context, by, clientID string, owner, box bool) error {
	s.mu.Lock()
	detail := "paused phone control"
	if owner {
		detail = "paused phone control; only the owner can resume"
	}
	if !s.paused || owner {
		// The first pause sets when; the owner's pause on top of a
		// client's makes it the owner's.
		if !s.paused {
			s.pausedAt = s.now()
		}
		s.pausedBy = by
		s.pausedOwner = s.pausedOwner || owner
		s.pausedBox = box
	}
	s.paused = true
	for _, p := range s.pending {
		// A pause stops the agents; the owner's own input runs on, and
		// so do the inputs of the box's other phones.
		if p.input && p.client != OwnerID && p.phone == s.id {
			p.cancel(errPaused)
		}
	}
	s.controlEventLocked("paused", "", by)
	s.mu.Unlock()
	if !box {
		s.recordAction(ctx, by, clientID, "pause", detail)
	}
	if err := s.ph.ReleaseAll(ctx); err != nil {
		return PhoneError(err)
	}
	return nil
}

// Resume lets input run again; it is the owner's (the box page's), and
// lifts any pause, the owner's or a client's, and releases the control
// lease when the owner holds it (after [Service.TakeOver]). Clients resume through
// openlolo_control, which needs control and cannot lift the owner's pause.
func (s *Service) Resume(ctx context.Context, by string) error {
	s.resumeOne(ctx, by, false)
	return nil
}

// resumeOne resumes s's phone and reports whether it was paused and
// whether the owner's lease was released; with box set Activity is left
// to the caller (one row for every phone).
func (s *Service) resumeOne(ctx context.Context, by string, box bool) (was, released bool) {
	s.mu.Lock()
	was = s.paused
	if s.paused {
		s.clearPauseLocked()
		s.controlEventLocked("resumed", "", by)
	}
	// Resuming gives control back to the agents: the lease the owner
	// held (Take over, the owner's own input) is released with it.
	released = s.releaseOwnerLocked()
	s.mu.Unlock()
	if detail := resumeDetail(was, released); detail != "" && !box {
		s.recordAction(ctx, by, "", resumeAction(was), detail)
	}
	return was, released
}

// resumeAction is the Activity action of a resume: "resume", or
// "release" when only the owner's lease was given back.
func resumeAction(was bool) string {
	if was {
		return "resume"
	}
	return "release"
}

// resumeDetail says in Activity what a resume did ("" for nothing).
func resumeDetail(was, released bool) string {
	switch {
	case was && released:
		return "resumed phone control and gave control back to the agents"
	case was:
		return "resumed phone control"
	case released:
		return "gave control back to the agents"
	}
	return ""
}

// recordAction writes a pause or resume to the actions log for the box
// page's Activity. A failed write is logged, never the caller's failure:
// the pause itself has happened.
func (s *Service) recordAction(ctx context.Context, actor, clientID, action, detail string) {
	s.recordActionOn(ctx, s.id, actor, clientID, action, detail)
}

// recordActionOn is recordAction of an action on phone ("" every phone).
func (s *Service) recordActionOn(ctx context.Context, phone, actor, clientID, action, detail string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	err := s.st.Update(wctx, func(tx *store.Tx) error {
		return tx.InsertAction(store.Action{At: s.now(), Actor: actor, ClientID: clientID, Action: action, Detail: detail, Phone: phone})
	})
	if err != nil {
		s.log.Warn("control: record action", "action", action, "actor", actor, "err", err)
	}
}
