package control

import (
	"context"
	"encoding/json"
	"github.com/openlolo/openlolo/api"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// Timings of the event log.
const (
	frameCoalesce  = api.FrameCoalesce
	keepEvents     = 10000                  // events kept for cursors
	watchPoll      = 250 * time.Millisecond // grant and lease checks while a watch is held
	expiringNotice = 15 * time.Minute       // access "expiring" this long before the grant ends
	releaseTimeout = 2 * time.Second
	journalTimeout = 10 * time.Second
	// MaxWatch is the longest a watch may be held.
	MaxWatch = api.MaxWaitMS * time.Millisecond
)

type outEvent struct {
	kind   api.EventKind
	client string
	phone  string // the phone it is about on a box of several
	at     time.Time
	body   any // the kind's api event type
}

// events is the ordered writer of the event log and the wake-up for
// held watches.
type events struct {
	out chan outEvent

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced after each write
	written int
}

func (e *events) init() {
	e.out = make(chan outEvent, 256)
	e.wake = make(chan struct{})
}

func (e *events) waiter() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.wake
}

// publish queues an event about s's phone for the log; events are
// written in the order they were published.
func (s *Service) publish(kind api.EventKind, client string, body any) {
	s.publishOn(kind, client, s.eventPhone(kind), body)
}

// publishOn queues an event about phone ("" for none) for the log.
func (s *Service) publishOn(kind api.EventKind, client, phone string, body any) {
	select {
	case s.ev.out <- outEvent{kind: kind, client: client, phone: phone, at: s.now(), body: body}:
	case <-s.base.Done():
	}
}

// eventPhone is the phone s's events of kind are about: its id, or ""
// for access events (a grant's, not a phone's) and a box-wide call's.
// The id is kept even on a box of one, so a grant limited to another
// phone never sees them; the wire leaves it out there (readEvents).
func (s *Service) eventPhone(kind api.EventKind) string {
	if s.box || kind == api.KindAccess {
		return ""
	}
	return s.id
}

func (s *Service) controlEventLocked(what, clientID, name string) {
	s.publish(api.KindControl, "", &api.ControlEvent{Event: what, Client: name})
}

func (s *Service) opEvent(c Client, id string, tool api.Tool, state string) {
	ev := &api.OperationEvent{OperationID: id, Tool: tool, State: state}
	if c.Run.ID != "" {
		ev.Run = &api.Run{ID: c.Run.ID, Title: c.Run.Title}
	}
	s.publish(api.KindOperation, c.ID, ev)
}

// writeEvents stores queued events one by one until ctx ends.
func (s *Service) writeEvents(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-s.ev.out:
			data, _ := json.Marshal(e.body)
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
			err := s.st.Update(wctx, func(tx *store.Tx) error {
				if _, err := tx.InsertEvent(store.Event{At: e.at, Kind: string(e.kind), ClientID: e.client, Data: string(data), Phone: e.phone}); err != nil {
					return err
				}
				s.ev.written++
				if s.ev.written%1000 == 0 {
					return tx.TrimEvents(keepEvents)
				}
				return nil
			})
			cancel()
			if err != nil {
				s.log.Error("control: write event", "kind", e.kind, "err", err)
			}
			s.ev.mu.Lock()
			close(s.ev.wake)
			s.ev.wake = make(chan struct{})
			s.ev.mu.Unlock()
		}
	}
}

// follow turns the phone's events (evs, from its Subscribe) into watch events (frames coalesced)
// and lapses the lease on time, until ctx ends.
func (s *Service) follow(ctx context.Context, evs <-chan phone.Event) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastFrame time.Time
	var held *phone.Event // a frame event waiting for the coalescing window
	var timer <-chan time.Time
	emitFrame := func(e phone.Event) {
		lastFrame = s.now()
		s.publish(api.KindFrame, "", &api.FrameEvent{Seq: e.Seq, FrameTimeMS: msOrZero(e.At)})
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.Lease()
		case <-timer:
			timer = nil
			if held != nil {
				emitFrame(*held)
				held = nil
			}
		case e, ok := <-evs:
			if !ok {
				evs = nil
				continue
			}
			switch e.Kind {
			case phone.NewFrame:
				if wait := frameCoalesce - s.now().Sub(lastFrame); wait > 0 && !lastFrame.IsZero() {
					if held == nil {
						timer = time.After(wait)
					}
					held = &e
					continue
				}
				emitFrame(e)
			default:
				s.publish(api.KindPhone, "", &api.PhoneEvent{Event: string(e.Kind), State: e.State.Code,
					Width: e.State.Geometry.Width, Height: e.State.Geometry.Height,
					GeometryEpoch: api.FormatEpoch(e.State.Geometry.Epoch)})
			}
		}
	}
}

// WatchRequest is openlolo_watch's arguments.
type WatchRequest struct {
	Cursor string          // "" for from now
	Wait   time.Duration   // how long to hold when nothing happened
	Kinds  []api.EventKind // empty for all
	// Phones, when set, keep the events of those phones and those of no
	// phone (the box's, the client's).
	Phones []string
}

// WatchResult is what a watch returns: the events in order and the
// cursor to continue from.
type WatchResult struct {
	Events  []api.Event
	Cursor  string
	Revoked bool // the caller's grant was revoked; the watch ended
}

func cursorString(id int64) string { return "c" + strconv.FormatInt(id, 10) }

// Events returns the events c may see after req.Cursor, holding up to
// req.Wait until there is one. Each event reaches a client once per
// cursor chain; an unknown or trimmed cursor is CURSOR_EXPIRED.
func (s *Service) Events(ctx context.Context, c Client, req WatchRequest) (WatchResult, *Error) {
	var after int64
	err := s.st.View(ctx, func(tx *store.Tx) error {
		first, last, err := tx.EventBounds()
		if err != nil {
			return err
		}
		if req.Cursor == "" {
			after = last
			return nil
		}
		n, perr := strconv.ParseInt(strings.TrimPrefix(req.Cursor, "c"), 10, 64)
		switch {
		case perr != nil || !strings.HasPrefix(req.Cursor, "c") || n < 0 || n > last:
			return api.Errorf(api.CodeCursorExpired, "cursor %q is not one this box gave", req.Cursor)
		case (first > 0 && n < first-1) || (first == 0 && n < last):
			return api.Errorf(api.CodeCursorExpired, "cursor %q is too old: the events after it were dropped", req.Cursor)
		}
		after = n
		return nil
	})
	if err != nil {
		if e, ok := err.(*Error); ok {
			return WatchResult{}, e
		}
		return WatchResult{}, api.Errorf(api.CodeInternal, "the event log could not be read: %v", err)
	}
	deadline := time.NewTimer(min(max(req.Wait, 0), MaxWatch))
	defer deadline.Stop()
	poll := time.NewTicker(watchPoll)
	defer poll.Stop()
	for {
		wake := s.ev.waiter()
		if s.grants != nil && c.GrantID != "" {
			active, err := s.grants.GrantActive(ctx, c.GrantID)
			if err == nil && !active {
				return WatchResult{Cursor: cursorString(after), Revoked: true, Events: []api.Event{{
					Kind: api.KindAccess, TimeMS: s.now().UnixMilli(), Access: &api.AccessEvent{Event: "revoked"}}}}, nil
			}
		}
		s.noticeExpiring(c)
		s.Lease() // lapses on time, which publishes the event
		res, err := s.readEvents(ctx, c, after, req)
		if err != nil {
			return WatchResult{}, api.Errorf(api.CodeInternal, "the event log could not be read: %v", err)
		}
		if len(res.Events) > 0 {
			return res, nil
		}
		n, _ := strconv.ParseInt(strings.TrimPrefix(res.Cursor, "c"), 10, 64)
		after = n
		select {
		case <-ctx.Done():
			return res, nil
		case <-deadline.C:
			return res, nil
		case <-wake:
		case <-poll.C:
		}
	}
}

// readEvents reads the events after after that c may see (none of a
// phone its grant does not reach) and req keeps.
func (s *Service) readEvents(ctx context.Context, c Client, after int64, req WatchRequest) (WatchResult, error) {
	const page = 100
	res := WatchResult{Cursor: cursorString(after)}
	err := s.st.View(ctx, func(tx *store.Tx) error {
		_, last, err := tx.EventBounds()
		if err != nil {
			return err
		}
		evs, err := tx.EventsAfter(after, c.ID, page)
		if err != nil {
			return err
		}
		next := last
		if len(evs) == page {
			next = evs[len(evs)-1].ID
		}
		for _, e := range evs {
			kept := len(req.Kinds) == 0 || slices.Contains(req.Kinds, api.EventKind(e.Kind))
			if e.Phone != "" {
				kept = kept && c.Reaches(e.Phone) && (len(req.Phones) == 0 || slices.Contains(req.Phones, e.Phone))
			}
			if !kept {
				continue
			}
			ev := api.Event{Kind: api.EventKind(e.Kind), TimeMS: e.At.UnixMilli(), Cursor: cursorString(e.ID)}
			if len(s.phones) > 1 {
				ev.PhoneID = e.Phone // a box of one names no phone, as before
			}
			if err := ev.SetBody([]byte(e.Data)); err != nil {
				s.log.Warn("control: an unreadable event in the log", "id", e.ID, "err", err)
			}
			res.Events = append(res.Events, ev)
		}
		res.Cursor = cursorString(max(next, after))
		return nil
	})
	return res, err
}

// noticeExpiring publishes, once per grant, an access event to c when its
// grant ends soon.
func (s *Service) noticeExpiring(c Client) {
	if c.GrantExpires.IsZero() || c.GrantID == "" || c.GrantExpires.Sub(s.now()) > expiringNotice {
		return
	}
	s.mu.Lock()
	told := s.expiring[c.GrantID]
	s.expiring[c.GrantID] = true
	s.mu.Unlock()
	if !told {
		s.publish(api.KindAccess, c.ID, &api.AccessEvent{Event: "expiring", ExpiresMS: c.GrantExpires.UnixMilli()})
	}
}
