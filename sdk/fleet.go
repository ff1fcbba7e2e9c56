package sdk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
)

// Fleet timings.
const (
	// fleetListTimeout bounds how long a listing waits for one box: a box
	// that does not answer within it is listed as unreachable and holds up
	// none of the others.
	fleetListTimeout = 5 * time.Second
	// fleetListTTL is how long a listing resolves a call that names no
	// phone before the boxes are asked again.
	fleetListTTL = 30 * time.Second
	// fleetSilentTTL is that time for a listing a box did not answer: a
	// box back on should take its calls within seconds, not after half
	// a minute of PHONE_REQUIRED.
	fleetSilentTTL = 5 * time.Second
)

// Fleet is every box a token store holds a grant for, reached together:
// Phones lists the phones of all of them under fleet ids "box/phone",
// and Phone returns a handle that sends each call to its phone's box with
// that box's grant and pinned certificate. A box that does not answer
// leaves the others alone. It is safe for concurrent use.
type Fleet struct {
	boxes []*FleetBox
	now   func() time.Time

	mu     sync.Mutex // guards listed and at
	listed *FleetPhones
	at     time.Time
}

// FleetBox is one paired box of a fleet.
type FleetBox struct {
	// ID is the box's part of its phones' fleet ids: its name
	// (openlolo-1a2b), or its URL's host when two stored boxes share a
	// name. It never holds a slash.
	ID string
	// Client calls the box.
	Client *Client
}

// FleetPhones is a listing of a fleet: the phones of every box that
// answered, and each box's state.
type FleetPhones struct {
	Phones []FleetPhone `json:"phones"`
	Boxes  []BoxState   `json:"boxes"`
}

// FleetPhone is one phone as a fleet lists it: the box's entry with ID
// replaced by the fleet id (box/phone).
type FleetPhone struct {
	api.PhoneEntry
	// Box is the FleetBox.ID of the phone's box.
	Box string `json:"box"`
}

// LocalID is the phone's id on its own box.
func (p FleetPhone) LocalID() string { return strings.TrimPrefix(p.ID, p.Box+"/") }

// BoxState is whether one box of a fleet answered its last listing.
type BoxState struct {
	ID        string     `json:"id"`
	URL       string     `json:"url"`
	Reachable bool       `json:"reachable"`
	Error     *api.Error `json:"error,omitempty"`
}

// OpenFleet opens every box in the token store (opts.Store, else the
// per-user default) that holds a grant. It asks no box anything: a box
// that is off is found out by the first call to it. A store with no
// usable grant is an error that says how to pair.
func OpenFleet(ctx context.Context, opts *Options) (*Fleet, error) {
	if opts == nil {
		opts = &Options{}
	}
	o := *opts
	if o.Store == nil {
		p, err := DefaultStorePath()
		if err != nil {
			return nil, err
		}
		o.Store = &TokenStore{Path: p}
	}
	stored, err := o.Store.List()
	if err != nil {
		return nil, fmt.Errorf("sdk: open fleet: %w", err)
	}
	f := &Fleet{now: o.Now}
	if f.now == nil {
		f.now = time.Now
	}
	for _, b := range stored {
		if b.RefreshToken == "" && b.AccessToken == "" {
			continue
		}
		c, err := Dial(ctx, b.URL, &o)
		if err != nil {
			return nil, fmt.Errorf("sdk: open fleet: box %s: %w", b.URL, err)
		}
		f.boxes = append(f.boxes, &FleetBox{ID: b.Name, Client: c})
	}
	if len(f.boxes) == 0 {
		return nil, fmt.Errorf("sdk: open fleet: %s holds no grant for any box; pair with one first: openlolo pair openlolo-1a2b.local", o.Store.Path)
	}
	nameBoxes(f.boxes)
	slices.SortFunc(f.boxes, func(a, b *FleetBox) int { return strings.Compare(a.ID, b.ID) })
	return f, nil
}

// nameBoxes gives every box a distinct id without a slash: its name, or
// its URL's host where the name is missing or shared.
func nameBoxes(boxes []*FleetBox) {
	seen := map[string]int{}
	for _, b := range boxes {
		seen[b.ID]++
	}
	for _, b := range boxes {
		if b.ID == "" || seen[b.ID] > 1 || strings.Contains(b.ID, "/") {
			b.ID = boxHost(b.Client.URL())
		}
	}
}

// boxHost is a box URL's host[:port], the fallback box id.
func boxHost(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return strings.TrimPrefix(u, "https://")
}

// Boxes returns the fleet's boxes, sorted by id.
func (f *Fleet) Boxes() []*FleetBox { return slices.Clone(f.boxes) }

// Box returns the box with fleet id id.
func (f *Fleet) Box(id string) (*FleetBox, bool) {
	for _, b := range f.boxes {
		if b.ID == id {
			return b, true
		}
	}
	return nil, false
}

// Phones asks every box for its phones at once (openlolo_phones) and
// returns them under fleet ids, in box order. A box that does not answer
// within a few seconds, or refuses, is listed in Boxes with the error and
// contributes no phones; it is not an error of the listing.
func (f *Fleet) Phones(ctx context.Context) (*FleetPhones, error) {
	per := eachBox(f.boxes, func(b *FleetBox) FleetPhones { return b.phones(ctx) })
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sdk: list the fleet's phones: %w", err)
	}
	out := &FleetPhones{Phones: []FleetPhone{}}
	for _, p := range per {
		out.Phones = append(out.Phones, p.Phones...)
		out.Boxes = append(out.Boxes, p.Boxes...)
	}
	f.mu.Lock()
	f.listed, f.at = out, f.now()
	f.mu.Unlock()
	return out, nil
}

// eachBox runs fn on every box at once and returns its answers in box
// order.
func eachBox[T any](boxes []*FleetBox, fn func(*FleetBox) T) []T {
	out := make([]T, len(boxes))
	var wg sync.WaitGroup
	for i, b := range boxes {
		wg.Go(func() { out[i] = fn(b) })
	}
	wg.Wait()
	return out
}

// firstAnswer asks every box at once, each for at most fleetListTimeout,
// and returns the first good answer without waiting for the others (their
// requests are cancelled). When none answers, errs says why, box by box.
func firstAnswer[T any](ctx context.Context, boxes []*FleetBox, ask func(context.Context, *FleetBox) (T, error)) (v T, errs []string) {
	ctx, cancel := context.WithTimeout(ctx, fleetListTimeout)
	defer cancel()
	type answer struct {
		v   T
		err error
		box string
	}
	ch := make(chan answer, len(boxes)) // the losers never block
	for _, b := range boxes {
		go func() {
			v, err := ask(ctx, b)
			ch <- answer{v, err, b.ID}
		}()
	}
	for range boxes {
		a := <-ch
		if a.err == nil {
			return a.v, nil
		}
		errs = append(errs, a.box+": "+a.err.Error())
	}
	return v, errs
}

// phones is one box's part of a listing.
func (b *FleetBox) phones(ctx context.Context) FleetPhones {
	ctx, cancel := context.WithTimeout(ctx, fleetListTimeout)
	defer cancel()
	st := BoxState{ID: b.ID, URL: b.Client.URL()}
	res, err := b.Client.CallTool(ctx, string(api.ToolPhones), nil)
	var list *api.PhonesResult
	if err == nil {
		list, err = Decode[api.PhonesResult](res)
	}
	if err != nil {
		st.Error = b.unavailable(err)
		return FleetPhones{Boxes: []BoxState{st}}
	}
	st.Reachable = true
	out := FleetPhones{Boxes: []BoxState{st}}
	for _, p := range list.Phones {
		p.ID = b.ID + "/" + p.ID
		out.Phones = append(out.Phones, FleetPhone{PhoneEntry: p, Box: b.ID})
	}
	return out
}

// unavailable is the PHONE_UNAVAILABLE error of a call to b that got no
// answer (err), with next steps for the person and the agent.
func (b *FleetBox) unavailable(err error) *api.Error {
	var ref *Refused
	if errors.As(err, &ref) {
		return &api.Error{Code: api.Code(ref.Code), Message: fmt.Sprintf("box %s: %s", b.ID, ref.Message),
			Retryable: ref.Retryable, NextSteps: ref.NextSteps}
	}
	e := api.Errorf(api.CodePhoneUnavailable, "box %s (%s) does not answer: %v", b.ID, b.Client.URL(), err)
	var pm *PinMismatch
	switch {
	case errors.As(err, &pm), errors.Is(err, ErrGrantRevoked), errors.Is(err, ErrWrongEntry):
		e.Retryable = false
		e.NextSteps = []string{"the person running this fleet pairs with the box again: openlolo pair " + b.Client.URL()}
	default:
		e.NextSteps = []string{"check that box " + b.ID + " is on and reachable at " + b.Client.URL() + ", then retry",
			"the other boxes' phones answer as before: openlolo_phones lists them"}
	}
	return e
}

// notSent reports whether err means the request never left this machine
// (the connection was refused or could not be made), so nothing ran.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// cachedPhones is the last listing while it is fresh (30 s, or 5 s when
// a box did not answer it), else a new one.
func (f *Fleet) cachedPhones(ctx context.Context) (*FleetPhones, error) {
	f.mu.Lock()
	l, at := f.listed, f.at
	f.mu.Unlock()
	ttl := fleetListTTL
	if l != nil && len(silent(l.Boxes)) > 0 {
		ttl = fleetSilentTTL
	}
	if l != nil && f.now().Sub(at) < ttl {
		return l, nil
	}
	return f.Phones(ctx)
}

// route finds the box of fleet phone id and the phone's id on it. An id
// left out names the fleet's only phone, when every box answered the
// listing (a box that did not may hold others: a call naming no phone
// must not land on whichever phone happens to answer); anything else that
// is not a box/phone id of a known box is PHONE_REQUIRED naming the
// phones.
func (f *Fleet) route(ctx context.Context, id string) (*FleetBox, string, *api.Error) {
	if boxID, local, ok := strings.Cut(id, "/"); ok && local != "" {
		if b, ok := f.Box(boxID); ok {
			return b, local, nil
		}
	}
	l, err := f.cachedPhones(ctx)
	if err != nil {
		return nil, "", api.Errorf(api.CodeCancelled, "%v", err)
	}
	if id == "" && len(l.Phones) == 1 && len(silent(l.Boxes)) == 0 {
		p := l.Phones[0]
		b, _ := f.Box(p.Box)
		return b, p.LocalID(), nil
	}
	return nil, "", phoneRequired(l, id)
}

// phoneRequired is PHONE_REQUIRED for a call naming id ("" none), with
// next steps naming the phones of listing l.
func phoneRequired(l *FleetPhones, id string) *api.Error {
	var e *api.Error
	switch {
	case id != "":
		e = api.Errorf(api.CodePhoneRequired, "the fleet has no phone %q; phone ids are box/phone, as openlolo_phones lists them", api.Clip(id))
	case len(silent(l.Boxes)) > 0:
		e = api.Errorf(api.CodePhoneRequired, "box %s did not answer the listing, so a call naming no phone cannot tell which phone it means (%s); name one as phone",
			strings.Join(silent(l.Boxes), ", "), boxSummary(l.Boxes))
	case len(l.Phones) == 0:
		e = api.Errorf(api.CodePhoneRequired, "no box of the fleet listed a phone (%s)", boxSummary(l.Boxes))
	default:
		e = api.Errorf(api.CodePhoneRequired, "the fleet has %d phones on %d boxes; name one as phone", len(l.Phones), len(l.Boxes))
	}
	ids := make([]string, len(l.Phones))
	for i, p := range l.Phones {
		ids[i] = p.ID
	}
	if len(ids) > 0 {
		e.NextSteps = append([]string{"call again with phone set to one of: " + strings.Join(ids, ", ")}, e.NextSteps...)
	}
	return e
}

// unknownPhone is PHONE_REQUIRED for a box/phone id whose box has no
// such phone (the box said so), naming the fleet's phones.
func (f *Fleet) unknownPhone(ctx context.Context, id string) *api.Error {
	l, err := f.Phones(ctx)
	if err != nil {
		return api.Errorf(api.CodeCancelled, "%v", err)
	}
	return phoneRequired(l, id)
}

// silent are the ids of the boxes that did not answer a listing.
func silent(boxes []BoxState) []string {
	var ids []string
	for _, b := range boxes {
		if !b.Reachable {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

// boxSummary says which boxes answered a listing.
func boxSummary(boxes []BoxState) string {
	parts := make([]string, len(boxes))
	for i, b := range boxes {
		parts[i] = b.ID + ": answered"
		if !b.Reachable {
			parts[i] = b.ID + ": " + string(b.Error.Code)
		}
	}
	return strings.Join(parts, "; ")
}

// BoxPause is one box's part of a pause of the whole fleet: paused, or
// the error of a box that did not answer, refused, or answered without
// pausing.
type BoxPause struct {
	ID     string     `json:"id"`
	Paused bool       `json:"paused"`
	Error  *api.Error `json:"error,omitempty"`
}

// Pause is the fleet's emergency stop: openlolo_pause naming no phone on
// every box at once, which pauses every phone each box's grant reaches.
// It returns each box's answer in box order. A box that does not answer
// within a few seconds, or refuses, is listed with its error and holds up
// none of the others, which are paused all the same.
func (f *Fleet) Pause(ctx context.Context) []BoxPause { return f.pause(ctx, nil) }

// pause is Pause with the caller's arguments (an operation_id goes to
// every box, each of which runs it at most once; phone is left out).
func (f *Fleet) pause(ctx context.Context, args map[string]any) []BoxPause {
	return eachBox(f.boxes, func(b *FleetBox) BoxPause {
		ctx, cancel := context.WithTimeout(ctx, fleetListTimeout)
		defer cancel()
		a := maps.Clone(args)
		delete(a, "phone")
		res, err := b.Client.Mutate(ctx, string(api.ToolPause), a)
		var p *api.PauseResult
		if err == nil {
			p, err = Decode[api.PauseResult](res)
		}
		switch {
		case err != nil:
			return BoxPause{ID: b.ID, Error: b.unavailable(err)}
		case !p.Paused:
			return BoxPause{ID: b.ID, Error: api.Errorf(api.CodeOutcomeUnknown, "box %s answered %s without saying it paused", b.ID, res.Outcome.Status)}
		}
		return BoxPause{ID: b.ID, Paused: true}
	})
}

// Phone is one phone of a fleet: calls through it go to its box, naming
// it.
type Phone struct {
	// ID is the fleet id (box/phone); Local the id on its box.
	ID, Local string
	// Box is the phone's box.
	Box *FleetBox
}

// Phone returns the handle of the phone with fleet id id ("" for the
// fleet's only phone). An id of a known box is taken without asking the
// box; otherwise the error is a *Refused PHONE_REQUIRED naming the
// phones.
func (f *Fleet) Phone(ctx context.Context, id string) (*Phone, error) {
	b, local, e := f.route(ctx, id)
	if e != nil {
		return nil, refusedFrom("openlolo_phones", api.Outcome{Status: api.StatusFailed, Error: e})
	}
	return &Phone{ID: b.ID + "/" + local, Local: local, Box: b}, nil
}

// CallTool calls tool on the phone (args' phone is set to it). A box that
// does not answer is a *Refused PHONE_UNAVAILABLE.
func (p *Phone) CallTool(ctx context.Context, tool string, args map[string]any) (*Result, error) {
	res, err := p.Box.Client.CallTool(ctx, tool, p.args(args))
	return res, p.refuse(tool, err)
}

// Mutate is Client.Mutate on the phone: an operation_id, one retry with
// it when the connection drops.
func (p *Phone) Mutate(ctx context.Context, tool string, args map[string]any) (*Result, error) {
	res, err := p.Box.Client.Mutate(ctx, tool, p.args(args))
	return res, p.refuse(tool, err)
}

// args is a copy of args naming the phone.
func (p *Phone) args(args map[string]any) map[string]any {
	out := make(map[string]any, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	out["phone"] = p.Local
	return out
}

// refuse turns a call's failure to reach the box into PHONE_UNAVAILABLE;
// the box's own answers and protocol errors pass unchanged.
func (p *Phone) refuse(tool string, err error) error {
	var (
		ref *Refused
		pe  *ProtocolError
	)
	if err == nil || errors.As(err, &ref) || errors.As(err, &pe) {
		return err
	}
	if _, ok := IsAskPending(err); ok {
		return err
	}
	r := refusedFrom(tool, api.Outcome{Status: api.StatusFailed, Error: p.Box.unavailable(err)})
	r.Dispatched = !notSent(err) && isTransport(err)
	return r
}
