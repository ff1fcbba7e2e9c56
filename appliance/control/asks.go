package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// Asks: a call the owner marked (box-wide in Settings, or for one client
// on Access) waits for the owner. The gate runs inside [Do], so every
// mutating tool has it: the first call answers pending with an ask and
// reaches nothing; the client calls again with the same operation_id and
// arguments, which then runs once if the owner allowed, or fails with
// ASK_DENIED, or ASK_EXPIRED after [api.AskTTL].

// Mark is one thing the owner may want to be asked about: launching the
// app Subject (a bundle id) for kind app; opening URLs, typing, or every
// input for the other kinds (Subject "").
type Mark struct {
	Kind    api.AskKind
	Subject string
}

// DefaultAskApps are the apps a new box asks about before launching:
// Wallet, Phone, Messages, Mail, Settings and App Store, by their iOS
// bundle ids (the simulated phone's too) and their Android packages.
func DefaultAskApps() []string {
	return append(DefaultAskAppsOn(phone.IOS), DefaultAskAppsOn(phone.Android)...)
}

// DefaultAskAppsOn are the [DefaultAskApps] of one platform: what the
// owner's pages offer for the phone the box has (an iPhone has no
// Android packages); nil for a platform the box does not know.
func DefaultAskAppsOn(p phone.Platform) []string {
	switch p {
	case phone.IOS:
		return []string{"com.apple.Passbook", "com.apple.mobilephone", "com.apple.MobileSMS", "com.apple.mobilemail",
			"com.apple.Preferences", "com.apple.AppStore"}
	case phone.Android:
		return []string{"com.google.android.apps.walletnfcrel", "com.google.android.dialer", "com.google.android.apps.messaging",
			"com.google.android.gm", "com.android.settings", "com.android.vending"}
	}
	return nil
}

// DefaultMarks are a new box's box-wide marks: launching the
// [DefaultAskApps]. Opening URLs, typing and other input are not asked
// about until the owner marks them.
func DefaultMarks() []Mark {
	var out []Mark
	for _, id := range DefaultAskApps() {
		out = append(out, Mark{Kind: api.AskApp, Subject: id})
	}
	return out
}

// Marks are the marks in force: the box-wide ones and each client's
// exceptions (true: ask although the box does not; false: do not ask
// although the box does).
type Marks struct {
	Box     map[Mark]bool
	Clients map[string]map[Mark]bool
}

// Asks reports whether client's calls of mark m wait for the owner.
func (m Marks) Asks(client string, mk Mark) bool {
	if v, ok := m.Clients[client][mk]; ok {
		return v
	}
	return m.Box[mk]
}

func (m Marks) clone() Marks {
	out := Marks{Box: make(map[Mark]bool, len(m.Box)), Clients: make(map[string]map[Mark]bool, len(m.Clients))}
	for k, v := range m.Box {
		out.Box[k] = v
	}
	for c, ms := range m.Clients {
		cm := make(map[Mark]bool, len(ms))
		for k, v := range ms {
			cm[k] = v
		}
		out.Clients[c] = cm
	}
	return out
}

// asksState is the Service's part for asks.
type asksState struct {
	changed func()

	mu    sync.Mutex
	marks Marks
	next  time.Time // earliest expiry of a pending ask; zero when none
	kick  chan struct{}
}

// Errors DecideAsk returns; test them with errors.Is.
var (
	// ErrAskNotFound: no ask has that id.
	ErrAskNotFound = errors.New("control: no such ask")
	// ErrAskDecided: the ask was decided (or expired) already.
	ErrAskDecided = errors.New("control: the ask was decided already")
)

// initAsks loads the marks (seeding the defaults on a new box) and starts
// the expiry of pending asks.
func (s *Service) initAsks(ctx context.Context, cfg Config) error {
	s.asks.changed = cfg.AskChanged
	s.asks.kick = make(chan struct{}, 1)
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		if seeded, err := store.AsksSeeded.Get(tx); err != nil {
			return err
		} else if !seeded {
			if err := tx.SetBoxAskMarks(storeMarks("", DefaultMarks(), true)); err != nil {
				return err
			}
			if err := store.AsksSeeded.Set(tx, true); err != nil {
				return err
			}
		}
		return s.loadMarksTx(tx)
	})
	if err != nil {
		return fmt.Errorf("control: asks: %w", err)
	}
	go s.expireAsks(ctx)
	return nil
}

func storeMarks(client string, ms []Mark, ask bool) []store.AskMark {
	out := make([]store.AskMark, len(ms))
	for i, m := range ms {
		out[i] = store.AskMark{ClientID: client, Kind: string(m.Kind), Subject: m.Subject, Ask: ask}
	}
	return out
}

func (s *Service) loadMarksTx(tx *store.Tx) error {
	rows, err := tx.AskMarks()
	if err != nil {
		return err
	}
	m := Marks{Box: map[Mark]bool{}, Clients: map[string]map[Mark]bool{}}
	for _, r := range rows {
		mk := Mark{Kind: api.AskKind(r.Kind), Subject: r.Subject}
		if r.ClientID == "" {
			m.Box[mk] = true
			continue
		}
		if m.Clients[r.ClientID] == nil {
			m.Clients[r.ClientID] = map[Mark]bool{}
		}
		m.Clients[r.ClientID][mk] = r.Ask
	}
	s.asks.mu.Lock()
	s.asks.marks = m
	s.asks.mu.Unlock()
	return nil
}

// Marks returns a copy of the marks in force.
func (s *Service) Marks() Marks {
	s.asks.mu.Lock()
	defer s.asks.mu.Unlock()
	return s.asks.marks.clone()
}

func checkMarks(ms []Mark) error {
	for _, m := range ms {
		switch {
		case !m.Kind.Valid():
			return fmt.Errorf("control: mark: unknown kind %q", m.Kind)
		case m.Kind == api.AskApp && strings.TrimSpace(m.Subject) == "":
			return errors.New("control: mark: an app mark needs the app's bundle id")
		case m.Kind != api.AskApp && m.Subject != "":
			return fmt.Errorf("control: mark: a %s mark takes no subject", m.Kind)
		case len(m.Subject) > api.MaxAppRef:
			return fmt.Errorf("control: mark: bundle id longer than %d characters", api.MaxAppRef)
		}
	}
	return nil
}

// SetBoxMarks replaces the box-wide marks (Settings) and records the
// change as the owner's.
func (s *Service) SetBoxMarks(ctx context.Context, ms []Mark) error {
	if err := checkMarks(ms); err != nil {
		return err
	}
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SetBoxAskMarks(storeMarks("", ms, true)); err != nil {
			return err
		}
		if err := tx.InsertAction(store.Action{At: s.now(), Actor: "owner", Action: "asks_changed",
			Detail: "box-wide asks: " + describeMarks(ms)}); err != nil {
			return err
		}
		return s.loadMarksTx(tx)
	})
	if err != nil {
		return fmt.Errorf("control: set box marks: %w", err)
	}
	return nil
}

// SetClientMarks sets what client (named name) is asked about: each of
// want's marks asks when true. Only the marks that differ from the
// box-wide ones are stored, so the client follows later box-wide changes
// of the others. Marks not in want keep following the box.
func (s *Service) SetClientMarks(ctx context.Context, client, name string, want map[Mark]bool) error {
	var ms []Mark
	for m := range want {
		ms = append(ms, m)
	}
	if err := checkMarks(ms); err != nil {
		return err
	}
	if client == "" {
		return errors.New("control: set client marks: no client")
	}
	box := s.Marks().Box
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var keep []store.AskMark
		for m, v := range s.Marks().Clients[client] {
			if _, ok := want[m]; !ok {
				keep = append(keep, store.AskMark{Kind: string(m.Kind), Subject: m.Subject, Ask: v})
			}
		}
		var on []Mark
		for m, v := range want {
			if v {
				on = append(on, m)
			}
			if v != box[m] {
				keep = append(keep, store.AskMark{Kind: string(m.Kind), Subject: m.Subject, Ask: v})
			}
		}
		if err := tx.SetClientAskMarks(client, keep); err != nil {
			return err
		}
		detail := "asks for " + name + ": " + describeMarks(on)
		if err := tx.InsertAction(store.Action{At: s.now(), Actor: "owner", ClientID: client, Action: "asks_changed", Detail: detail}); err != nil {
			return err
		}
		return s.loadMarksTx(tx)
	})
	if err != nil {
		return fmt.Errorf("control: set client marks: %w", err)
	}
	return nil
}

// describeMarks says marks in words for Activity.
func describeMarks(ms []Mark) string {
	var words []string
	var apps []string
	for _, m := range ms {
		switch m.Kind {
		case api.AskApp:
			apps = append(apps, m.Subject)
		case api.AskURL:
			words = append(words, "opening URLs")
		case api.AskText:
			words = append(words, "typing")
		case api.AskInput:
			words = append(words, "every input")
		}
	}
	sort.Strings(words)
	sort.Strings(apps)
	if len(apps) > 0 {
		words = append(words, "launching "+strings.Join(apps, ", "))
	}
	if len(words) == 0 {
		return "nothing"
	}
	return strings.Join(words, "; ")
}

// askFor decides whether c's call of tool with args waits for the owner:
// the mark that asks and the question in words, or ok false.
func (s *Service) askFor(c Client, tool api.Tool, args any, input bool) (mk Mark, what string, ok bool) {
	if c.IsOwner() {
		// The owner's own input on the box page (control.Owner) is the
		// owner's decision already: box-wide marks never ask it.
		return Mark{}, "", false
	}
	s.asks.mu.Lock()
	marks := s.asks.marks
	defer s.asks.mu.Unlock()
	if input && marks.Asks(c.ID, Mark{Kind: api.AskInput}) {
		return Mark{Kind: api.AskInput}, describeCall(tool, args), true
	}
	switch a := args.(type) {
	case api.LaunchAppArgs:
		ref := a.BundleID
		if ref == "" {
			ref = a.Name
		}
		app, e := findApp(s.ph.Info().Apps, ref)
		if e != nil {
			return Mark{}, "", false // refused later with APP_NOT_FOUND
		}
		mk := Mark{Kind: api.AskApp, Subject: app.ID}
		return mk, fmt.Sprintf("launch %s (%s)", app.Name, app.ID), marks.Asks(c.ID, mk)
	case api.OpenLinkArgs:
		// A deep link opens its app: asked as launching the app when that
		// is marked, else as opening a URL.
		what := fmt.Sprintf("open the %q link of %s", api.Clip(a.Link), api.Clip(a.BundleID))
		if mk := (Mark{Kind: api.AskApp, Subject: a.BundleID}); marks.Asks(c.ID, mk) {
			for _, app := range s.ph.Info().Apps {
				if app.ID == a.BundleID {
					what = fmt.Sprintf("open the %q link of %s (%s)", api.Clip(a.Link), app.Name, app.ID)
				}
			}
			return mk, what, true
		}
		mk := Mark{Kind: api.AskURL}
		return mk, what, marks.Asks(c.ID, mk)
	case api.OpenURLArgs:
		mk := Mark{Kind: api.AskURL}
		return mk, "open " + safeURL(a.URL), marks.Asks(c.ID, mk)
	case api.TypeTextArgs:
		mk := Mark{Kind: api.AskText}
		n := 0
		if a.Text != nil {
			n = len([]rune(*a.Text))
		}
		return mk, fmt.Sprintf("type %d characters", n), marks.Asks(c.ID, mk)
	}
	return Mark{}, "", false
}

// describeCall says a call in words for an "every input" ask.
func describeCall(tool api.Tool, args any) string {
	w := strings.TrimPrefix(string(tool), "openlolo_")
	if sum := Summarize(args); sum != "" {
		w += ": " + sum
	}
	return w
}

func (s *Service) wireAsk(a store.Ask) *api.Ask {
	return &api.Ask{ID: a.ID, URL: a.URL, What: a.What, State: api.AskState(a.State), ExpiresMS: a.Expires.UnixMilli()}
}

// gate is the ask check of [Do] for c's call of tool under operation id
// (fp its fingerprint; fresh when the box generated the id): nil lets the call go on; otherwise it is the
// answer (pending, ASK_DENIED, ASK_EXPIRED, or OPERATION_CONFLICT when
// the id waits for another call).
func (s *Service) gate(ctx context.Context, c Client, id string, fresh bool, tool api.Tool, args any, input bool, fp string) *api.Outcome {
	mk, what, need := s.askFor(c, tool, args, input)
	if need && input {
		s.mu.Lock()
		paused := s.paused
		s.mu.Unlock()
		if paused { // refused with PAUSED by Do: no need to bother the owner
			need = false
		}
	}
	if !need {
		// Only an id sent back can have an ask; look without a write.
		if fresh {
			return nil
		}
		err := s.st.View(ctx, func(tx *store.Tx) error { _, err := tx.AskByOperation(c.ID, id); return err })
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
	}
	now := s.now()
	var a store.Ask
	var created, expired bool
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		a, err = tx.AskByOperation(c.ID, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if !need {
				return nil
			}
			var b [16]byte
			if _, err := rand.Read(b[:]); err != nil {
				return err
			}
			askID := hex.EncodeToString(b[:])
			a = store.Ask{ID: askID, URL: strings.TrimSuffix(c.Issuer, "/") + "/asks/" + askID, OperationID: id, ClientID: c.ID, ClientName: c.Name,
				Tool: string(tool), Fingerprint: fp, Kind: string(mk.Kind), Subject: mk.Subject, What: what,
				State: store.AskPending, Created: now, Expires: now.Add(api.AskTTL), Phone: s.id}
			if err := tx.InsertAsk(a); err != nil {
				return err
			}
			created = true
			return tx.InsertAction(store.Action{At: now, Actor: "owner", ClientID: c.ID, Action: "ask_created",
				Detail: clientName(c) + " asks to " + what, RunID: c.Run.ID, RunTitle: c.Run.Title, Phone: s.id})
		case err != nil:
			return err
		}
		if a.ClientID != c.ID || a.Fingerprint != fp || a.State != store.AskPending || now.Before(a.Expires) {
			return nil
		}
		if _, err := tx.DecideAsk(a.ID, store.AskExpired, false, now, a.Expires); err != nil {
			return err
		}
		a.State, a.Decided, expired = store.AskExpired, now, true
		return expiredAction(tx, a, now)
	})
	if err != nil {
		out := Refuse[struct{}](api.Errorf(api.CodeInternal, "the box could not read or record the owner's ask: %v", err)).Outcome
		out.OperationID = id
		return &out
	}
	if a.ID == "" {
		return nil
	}
	switch {
	case created:
		s.askCreated(a)
	case expired:
		s.askDecided(a)
	}
	refuse := func(e *Error) *api.Outcome {
		out := Refuse[struct{}](e).Outcome
		out.OperationID, out.Ask = id, s.wireAsk(a)
		return &out
	}
	if a.ClientID != c.ID || a.Fingerprint != fp {
		e := api.Errorf(api.CodeOperationConflict, "operation_id %s waits for the owner's answer about another call (%s); send exactly that call again, or a fresh operation_id for this one", id, a.What)
		out := Refuse[struct{}](e).Outcome
		out.OperationID = id
		return &out
	}
	switch a.State {
	case store.AskPending:
		return &api.Outcome{Status: api.StatusPending, OperationID: id, Dispatched: boolp(false), Tool: tool, Ask: s.wireAsk(a)}
	case store.AskDenied:
		return refuse(api.Errorf(api.CodeAskDenied, "the owner denied this call (%s); nothing was sent", a.What))
	case store.AskExpired:
		return refuse(api.Errorf(api.CodeAskExpired, "nobody decided the owner's ask (%s) within %d minutes; nothing was sent", a.What, int(api.AskTTL/time.Minute)))
	case store.AskAllowed:
		if now.Before(a.Expires) {
			return nil
		}
		return refuse(api.Errorf(api.CodeAskExpired, "the owner allowed this call (%s), but it was not sent again within %d minutes of that; nothing was sent", a.What, int(api.AskTTL/time.Minute)))
	}
	return refuse(api.Errorf(api.CodeInternal, "the ask is in an unknown state %q", a.State))
}

func clientName(c Client) string {
	if c.Name != "" {
		return c.Name
	}
	return c.ID
}

func askClientName(a store.Ask) string {
	if a.ClientName != "" {
		return a.ClientName
	}
	return a.ClientID
}

func expiredAction(tx *store.Tx, a store.Ask, now time.Time) error {
	return tx.InsertAction(store.Action{At: now, Actor: "owner", ClientID: a.ClientID, Action: "ask_expired",
		Detail: askClientName(a) + "'s ask to " + a.What + " expired unanswered", Phone: a.Phone})
}

// askCreated tells the client (a watch event), the box (its LED) and the
// expiry loop about a new ask.
func (s *Service) askCreated(a store.Ask) {
	s.asks.mu.Lock()
	if s.asks.next.IsZero() || a.Expires.Before(s.asks.next) {
		s.asks.next = a.Expires
	}
	s.asks.mu.Unlock()
	select {
	case s.asks.kick <- struct{}{}:
	default:
	}
	s.askEvent("created", a)
}

// askDecided tells the client and the box that a was decided or expired.
func (s *Service) askDecided(a store.Ask) { s.askEvent(a.State, a) }

func (s *Service) askEvent(what string, a store.Ask) {
	// The ask's own phone: the owner decides, and the clock expires, on
	// the box's first view whatever phone the ask is for.
	phone := a.Phone
	if phone == "" {
		phone = s.eventPhone(api.KindAsk)
	}
	s.publishOn(api.KindAsk, a.ClientID, phone, &api.AskEvent{Event: what, AskID: a.ID, OperationID: a.OperationID,
		Tool: api.Tool(a.Tool), State: api.AskState(a.State), URL: a.URL})
	if s.asks.changed != nil {
		s.asks.changed()
	}
}

// PendingAsks returns the asks waiting for the owner, oldest first.
func (s *Service) PendingAsks(ctx context.Context) ([]store.Ask, error) {
	var out []store.Ask
	err := s.st.View(ctx, func(tx *store.Tx) (err error) { out, err = tx.PendingAsks(s.now()); return err })
	if err != nil {
		return nil, fmt.Errorf("control: pending asks: %w", err)
	}
	return out, nil
}

// Ask returns the ask with id (ErrAskNotFound when none); a pending ask
// whose time is up is answered as expired.
func (s *Service) Ask(ctx context.Context, id string) (store.Ask, error) {
	var a store.Ask
	err := s.st.View(ctx, func(tx *store.Tx) (err error) { a, err = tx.AskByID(id); return err })
	if errors.Is(err, store.ErrNotFound) {
		return store.Ask{}, ErrAskNotFound
	}
	if err != nil {
		return store.Ask{}, fmt.Errorf("control: ask: %w", err)
	}
	if a.State == store.AskPending && !s.now().Before(a.Expires) {
		a.State = store.AskExpired
	}
	return a, nil
}

// DecideAsk is the owner's answer to the pending ask id: allow or deny;
// always (with allow) turns the ask's mark off for that client from now
// on. It returns the decided ask, ErrAskNotFound, or ErrAskDecided
// (decided or expired already; the ask returned says how).
func (s *Service) DecideAsk(ctx context.Context, id string, allow, always bool) (store.Ask, error) {
	now := s.now()
	var a store.Ask
	var expired bool
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		if a, err = tx.AskByID(id); err != nil {
			return err
		}
		if a.State != store.AskPending {
			return ErrAskDecided
		}
		if !now.Before(a.Expires) {
			if _, err := tx.DecideAsk(a.ID, store.AskExpired, false, now, a.Expires); err != nil {
				return err
			}
			a.State, a.Decided, expired = store.AskExpired, now, true
			return expiredAction(tx, a, now)
		}
		state, verb, until := store.AskDenied, "denied ", now
		if allow {
			state, verb, until = store.AskAllowed, "allowed ", now.Add(api.AskTTL)
		} else {
			always = false
		}
		if _, err := tx.DecideAsk(a.ID, state, always, now, until); err != nil {
			return err
		}
		a.State, a.Always, a.Decided, a.Expires = state, always, now, until
		detail := verb + askClientName(a) + " to " + a.What
		if always {
			if err := tx.SetClientAskMark(store.AskMark{ClientID: a.ClientID, Kind: a.Kind, Subject: a.Subject, Ask: false}); err != nil {
				return err
			}
			detail += ", and always for this client from now on"
		}
		if err := tx.InsertAction(store.Action{At: now, Actor: "owner", ClientID: a.ClientID, Action: "ask_" + state, Detail: detail, Phone: a.Phone}); err != nil {
			return err
		}
		if always {
			return s.loadMarksTx(tx)
		}
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Ask{}, ErrAskNotFound
	case errors.Is(err, ErrAskDecided):
		return a, ErrAskDecided
	case err != nil:
		return store.Ask{}, fmt.Errorf("control: decide ask: %w", err)
	}
	s.askDecided(a)
	if expired {
		return a, ErrAskDecided
	}
	return a, nil
}

// askSweep is how often the expiry loop looks when it knows of no ask;
// it also wakes at the earliest known expiry and on every new ask.
const askSweep = time.Minute

// expireAsks marks pending asks expired when their time is up (so the
// LED stops blinking, Activity records it and the client's watch hears
// it even if the client never calls again), until ctx ends.
func (s *Service) expireAsks(ctx context.Context) {
	for {
		s.asks.mu.Lock()
		next := s.asks.next
		s.asks.mu.Unlock()
		wait := askSweep
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.now()), 0))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.asks.kick:
			t.Stop()
			continue
		case <-t.C:
		}
		s.sweepAsks(ctx)
	}
}

// sweepAsks expires the pending asks whose time is up and sets the next
// wake-up to the earliest expiry left.
func (s *Service) sweepAsks(ctx context.Context) {
	now := s.now()
	var gone []store.Ask
	var left []store.Ask
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		due, err := tx.ExpirableAsks(now)
		if err != nil {
			return err
		}
		for _, a := range due {
			ok, err := tx.DecideAsk(a.ID, store.AskExpired, false, now, a.Expires)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := expiredAction(tx, a, now); err != nil {
				return err
			}
			a.State, a.Decided = store.AskExpired, now
			gone = append(gone, a)
		}
		left, err = tx.PendingAsks(now)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("control: expire asks", "err", err)
		}
		return
	}
	var next time.Time
	for _, a := range left {
		if next.IsZero() || a.Expires.Before(next) {
			next = a.Expires
		}
	}
	s.asks.mu.Lock()
	s.asks.next = next
	s.asks.mu.Unlock()
	for _, a := range gone {
		s.askDecided(a)
	}
}
