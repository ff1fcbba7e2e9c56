package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/appliance/profiles"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// Defaults for Limits fields left zero: the contract's.
const (
	DefaultCallsPerMinute = api.CallsPerMinute
	DefaultQueue          = api.QueueLength
	DefaultLease          = api.LeaseTime
	DefaultFrameTTL       = api.FrameTTL
)

// Limits are the numbers the rules use. Zero fields take the defaults.
type Limits struct {
	// CallsPerMinute is the sliding-window tool-call limit per client;
	// negative turns the limit off (benchmarks).
	CallsPerMinute int
	// Queue is how many inputs may wait behind the running one.
	Queue int
	// Lease is how long control lasts without a control call.
	Lease time.Duration
	// FrameTTL is how old a frame a touch may name.
	FrameTTL time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.CallsPerMinute == 0 {
		l.CallsPerMinute = DefaultCallsPerMinute
	}
	if l.Queue <= 0 {
		l.Queue = DefaultQueue
	}
	if l.Lease <= 0 {
		l.Lease = DefaultLease
	}
	if l.FrameTTL <= 0 {
		l.FrameTTL = DefaultFrameTTL
	}
	return l
}

// Grants tells whether a grant is still active (the oauth server does);
// watch uses it to end a held watch soon after the owner revokes access.
type Grants interface {
	GrantActive(ctx context.Context, grantID string) (bool, error)
}

// Config configures a Service.
type Config struct {
	Store *store.Store
	// Phone is the box's phone when it has one; Phones, when set, are
	// all of them (Phone is then ignored).
	Phone  phone.Phone
	Phones []Attached
	// Now is the clock (nil: time.Now). Leases, frames, rate windows and
	// the journal use it.
	Now    func() time.Time
	Logger *slog.Logger
	Limits Limits
	// Grants, when set, lets a held watch notice a revoked grant.
	Grants Grants
	// OCR reads the screen's text for openlolo_find_text (nil: the tool
	// answers UNSUPPORTED).
	OCR ocr.Engine
	// Profiles are the app profiles (nil: the shipped ones alone).
	Profiles Profiles
	// AskChanged, when set, is called after an ask was created, decided
	// or expired (the box recomputes its LED).
	AskChanged func()
	// JPEG, when set, encodes the pictures' JPEGs (a hardware encoder);
	// a picture it fails is encoded in software, and after
	// picture.MaxJPEGFailures failures in a row it is no longer asked.
	JPEG picture.JPEGEncoder
}

// Client is who calls: the OAuth client and its grant.
type Client struct {
	ID, Name, GrantID string
	// GrantExpires is when the grant ends (zero: until removed).
	GrantExpires time.Time
	// Run is the run this call is a step of (the call's _meta
	// "openlolo.mcp".run); zero when none.
	Run Run
	// Issuer is the entry the client called through ("https://<host>"):
	// an ask's url is its box page there. "" gives the path alone.
	Issuer string
	// Phones are the ids of the phones the client's grant reaches (the
	// owner's choice at approval); nil reaches every phone of the box.
	Phones []string
}

// Reaches reports whether c may call the phone with id: the owner and a
// grant of every phone reach them all.
func (c Client) Reaches(id string) bool {
	return c.Phones == nil || c.IsOwner() || slices.Contains(c.Phones, id)
}

// Run names a run: a client's sequence of calls toward one goal, shown
// together on the box page's Activity.
type Run struct {
	ID    string // chosen by the client; "" when the call names no run
	Title string
}

// Service applies the rules. It is safe for concurrent use. A Service is
// one phone's view of the box: the box's state every phone shares (the
// journal, rate windows, asks, the event log) and the phone's own (frames,
// its lease, its pause, its input queue). [Service.On] gives another
// phone's view.
type Service struct {
	*core
	*phoneSlot
	// box marks the view of a box-wide call (a tool that is no phone's,
	// or openlolo_pause naming none): its events name no phone.
	box bool
}

// core is the state every phone of the box shares.
type core struct {
	st     *store.Store
	now    func() time.Time
	log    *slog.Logger
	lim    Limits
	grants Grants
	ocr    ocr.Engine
	// profiles are the app profiles
	profiles Profiles
	base     context.Context // lives as long as New's ctx
	key      []byte          // fingerprint key
	boot     string          // frame id prefix, new at every start

	phones []*phoneSlot // in the order Config gave them; never empty

	mu       sync.Mutex         // guards core's and every phoneSlot's mutable state
	pending  map[opKey]*pending // queued or running operations by client and id
	windows  map[string]*window
	expiring map[string]bool // grants told they are expiring

	ev    events
	calls chan call // recorded calls on their way to the store (calls.go)
	asks  asksState // marks and the expiry of asks (asks.go)

	verbs map[api.Tool]verb // Invoke's table (invoke.go)
}

// phoneSlot is one phone's state: its frames and geometry, its control
// lease, its pause and its input queue. core.mu guards it.
type phoneSlot struct {
	id string
	ph phone.Phone

	slot chan struct{} // one input runs at a time on this phone

	lease    lease
	paused   bool
	pausedBy string
	// pausedOwner is set when the owner paused from the box page: then
	// only the owner resumes, never a client's openlolo_control.
	pausedOwner bool
	pausedAt    time.Time
	// pausedBox is set when the pause was box-wide (every phone at once).
	pausedBox bool
	waiting   int
	frames    map[string]clientFrame

	pictures *picture.Cache // encoded pictures of recent frames (picture.go)
}

// Attached is one phone of the box as [Config] names it.
type Attached struct {
	// ID is the phone's stable id (its serial or UDID; sim-1, sim-2 ...
	// for simulated phones).
	ID    string
	Phone phone.Phone
}

// New starts a Service: it marks operations that were dispatched when the
// box last stopped as outcome_unknown, loads (or creates) the journal's
// fingerprint key, releases everything the phone may hold and follows the
// phone's events until ctx ends.
func New(ctx context.Context, cfg Config) (*Service, error) {
	attached := cfg.Phones
	if len(attached) == 0 && cfg.Phone != nil {
		attached = []Attached{{ID: soleID, Phone: cfg.Phone}}
	}
	if cfg.Store == nil || len(attached) == 0 {
		return nil, errors.New("control: new: Store and Phone are required")
	}
	c := &core{
		st: cfg.Store, now: cfg.Now, log: cfg.Logger,
		lim: cfg.Limits.withDefaults(), grants: cfg.Grants, ocr: cfg.OCR, base: ctx,
		pending:  map[opKey]*pending{},
		windows:  map[string]*window{},
		expiring: map[string]bool{},
		verbs:    verbs(),
	}
	for _, a := range attached {
		if a.Phone == nil || a.ID == "" || slices.ContainsFunc(c.phones, func(p *phoneSlot) bool { return p.id == a.ID }) {
			return nil, fmt.Errorf("control: new: phone %q: every phone needs a phone and its own id", a.ID)
		}
		slot := &phoneSlot{id: a.ID, ph: a.Phone, slot: make(chan struct{}, 1),
			frames: map[string]clientFrame{}, pictures: picture.NewCache(pictureCache)}
		if cfg.JPEG != nil {
			id := a.ID
			slot.pictures.UseJPEGEncoder(cfg.JPEG, func(err error, dropped bool) {
				log := c.log.With("phone", id) // c.log is set by the time pictures are taken
				if dropped {
					log.Warn("control: the hardware JPEG encoder failed again: this phone's pictures are encoded in software from now on", "err", err)
					return
				}
				log.Warn("control: the hardware JPEG encoder failed; this picture is encoded in software", "err", err)
			})
		}
		c.phones = append(c.phones, slot)
	}
	s := &Service{core: c, phoneSlot: c.phones[0]}
	if s.now == nil {
		s.now = time.Now
	}
	if s.profiles = cfg.Profiles; s.profiles == nil {
		shipped, err := profiles.Shipped()
		if err != nil {
			return nil, fmt.Errorf("control: new: %w", err)
		}
		s.profiles = shippedOnly{profiles.Merge(shipped, nil)}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("control: new: %w", err)
	}
	s.boot = hex.EncodeToString(b[:])
	s.ev.init()
	s.calls = make(chan call, 4*callBatch)
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		n, err := tx.InterruptOperations(s.now())
		if err != nil {
			return err
		}
		if n > 0 {
			s.log.Warn("control: operations interrupted by the last stop", "count", n)
		}
		k, set, err := store.JournalKey.Lookup(tx)
		if err == nil && !set {
			var raw [32]byte
			if _, err := rand.Read(raw[:]); err != nil {
				return fmt.Errorf("control: journal key: %w", err)
			}
			k = hex.EncodeToString(raw[:])
			err = store.JournalKey.Set(tx, k)
		}
		if err != nil {
			return err
		}
		s.key, err = hex.DecodeString(k)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("control: new: %w", err)
	}
	if err := s.initAsks(ctx, cfg); err != nil {
		return nil, err
	}
	go s.writeEvents(ctx)
	for _, p := range s.phones {
		v := s.on(p)
		// Release what the phone may still hold from before the box
		// started (a stop mid-press). On a HID gadget that is each
		// kind's release report, repeated with gaps: about 90 ms that
		// held up the box's listener. It runs after New returns, holding
		// the input slot, so no input reaches the phone before it.
		v.slot <- struct{}{}
		go func() {
			defer func() { <-v.slot }()
			if err := v.ph.ReleaseAll(ctx); err != nil {
				s.log.Warn("control: release all at start", "phone", v.id, "err", err)
			}
		}()
		// Subscribe before New returns, so that no phone event from the
		// caller's first inputs is lost to a goroutine not yet started.
		go v.follow(ctx, v.ph.Subscribe(ctx))
	}
	go s.pruneEvery(ctx, pruneInterval)
	go s.writeCalls(ctx)
	return s, nil
}

// Now is the Service's clock.
func (s *Service) Now() time.Time { return s.now() }

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return s.lim }

// soleID is the id of a box's only phone when [Config] names none.
const soleID = "phone-1"

// on is p's view of the box.
func (s *Service) on(p *phoneSlot) *Service { return &Service{core: s.core, phoneSlot: p} }

// boxWide is s as the view of a box-wide call.
func (s *Service) boxWide() *Service {
	return &Service{core: s.core, phoneSlot: s.phoneSlot, box: true}
}

// ID is the id of the phone this view drives.
func (s *Service) ID() string { return s.id }

// On is the view of the phone with id, false when the box has none.
func (s *Service) On(id string) (*Service, bool) {
	for _, p := range s.phones {
		if p.id == id {
			return s.on(p), true
		}
	}
	return nil, false
}

// Views are every phone's view, in the order [Config] gave the phones.
func (s *Service) Views() []*Service {
	out := make([]*Service, len(s.phones))
	for i, p := range s.phones {
		out[i] = s.on(p)
	}
	return out
}

// Phone is the phone the service drives.
func (s *Service) Phone() phone.Phone { return s.ph }
