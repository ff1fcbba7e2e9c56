package control

import (
	"context"
	"strings"

	"github.com/openlolo/openlolo/api"
)

// Phones is openlolo_phones: every phone of the box, with its state and
// who holds its control.
func (s *Service) Phones(ctx context.Context, c Client, _ api.PhonesArgs) Reply[api.PhonesResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.PhonesResult](e))
	}
	res := &api.PhonesResult{Phones: make([]api.PhoneEntry, 0, len(s.phones))}
	for _, v := range s.Views() {
		info, st := v.ph.Info(), v.ph.State()
		p := api.PhoneEntry{ID: v.id, Name: info.Model, Platform: info.Platform, Backend: info.Backend,
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

// phoneArgs are the arguments of a phone tool: they name the phone.
type phoneArgs interface{ PhoneID() string }

// view is the view of the phone c's call's args name: the only phone when
// they name none (the first for the owner: the box page's live view
// shows it), or the box itself for a tool that is not a phone's
// (openlolo_phones, openlolo_watch ...) and for openlolo_pause naming
// none (it pauses every phone). PHONE_REQUIRED when the box has several
// phones and args name none of them.
func (s *Service) view(c Client, tool api.Tool, args any) (*Service, *Error) {
	pa, ok := args.(phoneArgs)
	if !ok {
		return s, nil
	}
	id := pa.PhoneID()
	switch {
	case id == "" && (len(s.phones) == 1 || c.IsOwner()):
		return s.on(s.phones[0]), nil
	case id == "" && tool == api.ToolPause:
		return s, nil
	case id == "":
		return nil, s.phoneRequired("the box has %d phones; name one as phone", len(s.phones))
	}
	if v, ok := s.On(id); ok {
		return v, nil
	}
	return nil, s.phoneRequired("the box has no phone %q; name one of its phones as phone", api.Clip(id))
}

// phoneRequired is PHONE_REQUIRED with next steps naming the phones.
func (s *Service) phoneRequired(format string, args ...any) *Error {
	e := api.Errorf(api.CodePhoneRequired, format, args...)
	ids := make([]string, len(s.phones))
	for i, p := range s.phones {
		ids[i] = p.id
	}
	e.NextSteps = append([]string{"call again with phone set to one of: " + strings.Join(ids, ", ")}, e.NextSteps...)
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
