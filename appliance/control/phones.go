package control

import (
	"cmp"
	"context"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/store"
)

// Phones is openlolo_phones: every phone of the box, with its state and
// who holds its control.
func (s *Service) Phones(ctx context.Context, c Client, _ api.PhonesArgs) Reply[api.PhonesResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.PhonesResult](e))
	}
	res := &api.PhonesResult{Phones: make([]api.PhoneEntry, 0, len(s.phones))}
	names := s.PhoneNames(ctx)
	for _, v := range s.reachable(c) {
		info, st := v.ph.Info(), v.ph.State()
		p := api.PhoneEntry{ID: v.id, Name: cmp.Or(names[v.id], info.Model), Platform: info.Platform, Backend: info.Backend,
			State: st.Code, Problems: []api.Problem{}}
		for _, pr := range st.Problems.List() {
			p.Problems = append(p.Problems, pr.Code())
		}
		s.mu.Lock()
		v.lapseLocked()
		p.Control, p.Paused = v.leaseLocked(c), v.paused
		s.mu.Unlock()
		res.Phones = append(res.Phones, p)
	}
	return reply(OK(res))
}

// PhoneNames are the names the owner gave the box's phones, by id (the
// store's); none when the store cannot be read (logged: the phones are
// then named as their backends report them).
func (s *Service) PhoneNames(ctx context.Context) map[string]string {
	var names map[string]string
	if err := s.st.View(ctx, func(tx *store.Tx) (err error) { names, err = tx.PhoneNames(); return err }); err != nil {
		s.log.Warn("control: read the phones' names", "err", err)
	}
	return names
}

// phoneArgs are the arguments of a phone tool: they name the phone.
type phoneArgs interface{ PhoneID() string }

// view is the view of the phone c's call's args name: the only phone when
// they name none (for the owner, s's own phone: the phone whose live view
// the box page shows), or the box itself for a tool that is not a phone's
// (openlolo_phones, openlolo_watch ...) and for openlolo_pause naming
// none (it pauses every phone). PHONE_REQUIRED when the box has several
// phones and args name none of them.
func (s *Service) view(c Client, tool api.Tool, args any) (*Service, *Error) {
	pa, ok := args.(phoneArgs)
	if !ok {
		return s.boxWide(), nil
	}
	id := pa.PhoneID()
	if reach := s.reachable(c); id == "" && c.Phones != nil && len(reach) == 1 && len(s.phones) > 1 {
		id = reach[0].id // a grant of one phone of several needs it not named
	}
	switch {
	case id == "" && (len(s.phones) == 1 || c.IsOwner()):
		if !c.Reaches(s.id) {
			return nil, s.notGranted(c, s.id)
		}
		return s, nil
	case id == "" && tool == api.ToolPause:
		return s.boxWide(), nil
	case id == "":
		return nil, s.phoneRequired(c, "the box has %d phones; name one as phone", len(s.phones))
	}
	v, ok := s.On(id)
	switch {
	case !ok:
		return nil, s.phoneRequired(c, "the box has no phone %q; name one of its phones as phone", api.Clip(id))
	case !c.Reaches(id):
		return nil, s.notGranted(c, id)
	}
	return v, nil
}

// reachable are the views of the phones c's grant reaches, in the box's
// order.
func (s *Service) reachable(c Client) []*Service {
	var out []*Service
	for _, v := range s.Views() {
		if c.Reaches(v.id) {
			out = append(out, v)
		}
	}
	return out
}

// reachableIDs are the ids of the phones c's grant reaches.
func (s *Service) reachableIDs(c Client) []string {
	var ids []string
	for _, v := range s.reachable(c) {
		ids = append(ids, v.id)
	}
	return ids
}

// phoneRequired is PHONE_REQUIRED with next steps naming the phones c may
// call.
func (s *Service) phoneRequired(c Client, format string, args ...any) *Error {
	e := api.Errorf(api.CodePhoneRequired, format, args...)
	e.NextSteps = append([]string{"call again with phone set to one of: " + strings.Join(s.reachableIDs(c), ", ")}, e.NextSteps...)
	return e
}

// noneReachable is PHONE_NOT_GRANTED for a grant that reaches none of
// the box's phones (it was limited to phones no longer attached).
func (s *Service) noneReachable(c Client) *Error {
	e := api.Errorf(api.CodePhoneNotGranted, "none of the phones this client's grant reaches (%s) is attached to the box", strings.Join(c.Phones, ", "))
	e.NextSteps = append([]string{"attach one of those phones, or ask the owner to approve this client again for the box's phones (the box page's Access)"}, e.NextSteps...)
	return e
}

// notGranted is PHONE_NOT_GRANTED: c's grant does not reach phone id.
func (s *Service) notGranted(c Client, id string) *Error {
	e := api.Errorf(api.CodePhoneNotGranted, "this client's grant does not reach phone %s; the owner limited it to other phones of the box", id)
	steps := []string{"ask the owner to approve this client again with phone " + id + " among its phones (the box page's Access)"}
	if ids := s.reachableIDs(c); len(ids) > 0 {
		steps = append([]string{"call again with phone set to one of: " + strings.Join(ids, ", ")}, steps...)
	}
	e.NextSteps = append(steps, e.NextSteps...)
	return e
}

// phoneOf is the id of the phone a call with args is for: the one they
// name, or the box's only phone; "" for a tool that is not a phone's and
// for a call naming none on a box of several.
func (s *Service) phoneOf(args any) string {
	pa, ok := args.(phoneArgs)
	switch {
	case !ok:
		return ""
	case pa.PhoneID() != "":
		return pa.PhoneID()
	case len(s.phones) == 1:
		return s.phones[0].id
	}
	return ""
}

// checkWatchPhones checks the phones a watch keeps the events of (none:
// every phone): each one of the box's, and one c's grant reaches.
func (s *Service) checkWatchPhones(c Client, ids []string) *Error {
	for _, id := range ids {
		if _, ok := s.On(id); !ok {
			return s.phoneRequired(c, "the box has no phone %q; name its phones in phones, or none for every phone", api.Clip(id))
		}
		if !c.Reaches(id) {
			return s.notGranted(c, id)
		}
	}
	return nil
}
