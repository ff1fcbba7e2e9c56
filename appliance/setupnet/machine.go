package setupnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"
)

// Radio is the box's single Wi-Fi radio as the setup policy needs it.
// hw/wifi (wpa_supplicant and hostapd), adapted by cmd/openlolo, is the
// real one. Its methods block; the context bounds them.
type Radio interface {
	// OpenAP starts the access point (stopping the client side).
	OpenAP(ctx context.Context, ap AP) error
	// CloseAP stops it and gives the radio back to the client side,
	// whose saved networks it tries again.
	CloseAP(ctx context.Context) error
	// Join adds the network and tries it alone; it returns once the radio
	// is associated, or a *JoinError saying why not. The id names the
	// added network for Keep and Forget.
	Join(ctx context.Context, n Network) (id string, err error)
	// Link reports the client side's address and whether its gateway
	// answers.
	Link(ctx context.Context) (Link, error)
	// Keep saves the joined network and lets the radio use every saved
	// network again.
	Keep(ctx context.Context, id string) error
	// Forget removes the added network (only that one) and lets the
	// radio use every other saved network again.
	Forget(ctx context.Context, id string) error
}

// AP is the setup network.
type AP struct {
	SSID       string
	Passphrase string
}

// Network is a network to join; an empty Passphrase is an open network.
type Network struct {
	SSID       string
	Passphrase string
}

// Link is the client side's state.
type Link struct {
	Addr           netip.Prefix // zero: no address
	Gateway        netip.Addr   // zero: no default route
	GatewayAnswers bool
}

// Reason is why a join failed. Extend, never rename.
type Reason string

// Join failures.
const (
	ReasonWrongPassword Reason = "wrong_password"
	ReasonNotFound      Reason = "not_found"
	ReasonNoAddress     Reason = "no_address"
	ReasonNoGateway     Reason = "gateway_silent"
	ReasonFailed        Reason = "failed"
)

// JoinError is a failed join with its reason.
type JoinError struct {
	Reason Reason
	Err    error
}

func (e *JoinError) Error() string { return fmt.Sprintf("setupnet: join: %s: %v", e.Reason, e.Err) }
func (e *JoinError) Unwrap() error { return e.Err }

// Sentence is what the box page tells the person about a failure.
func (r Reason) Sentence() string {
	switch r {
	case ReasonWrongPassword:
		return "The network refused the password. Check it and try again."
	case ReasonNotFound:
		return "The box cannot see that network. Check the name, and move the box closer to the router."
	case ReasonNoAddress:
		return "The box joined the network but got no address from it. Check the router's DHCP settings."
	case ReasonNoGateway:
		return "The box got an address but the router does not answer it. Restart the router and try again."
	}
	return "The box could not join the network. Try again."
}

// Trigger is why the setup network opened.
type Trigger string

// Triggers.
const (
	TriggerBoot     Trigger = "boot"     // no working link at boot
	TriggerOffline  Trigger = "offline"  // the link was lost for OfflineGrace
	TriggerButton   Trigger = "button"   // the button was held 5 to 10 s and let go
	TriggerSettings Trigger = "settings" // the owner opened it
	TriggerFailed   Trigger = "failed"   // a join failed
)

// State is the machine's state.
type State string

// States.
const (
	StateClosed  State = "closed"
	StateOpen    State = "open"
	StateJoining State = "joining"
)

// Status is what the machine shows (the box page, Settings, the log).
type Status struct {
	State     State
	Online    bool
	Trigger   Trigger   // why it opened (when open)
	ClosesAt  time.Time // when it closes by itself (when open)
	Joining   string    // the network being joined
	LastError *JoinError
	Joined    string // the last network joined from here
}

// Config are the machine's settings; zero durations take the defaults.
type Config struct {
	AP           AP
	Window       time.Duration // how long the setup network stays open (10 min)
	OfflineGrace time.Duration // how long the link may be lost before it opens (120 s)
	Handoff      time.Duration // from the join request to the radio leaving AP mode (6 s), so the page can say where to go
	JoinTimeout  time.Duration // to associate (45 s)
	LinkTimeout  time.Duration // to get an address and an answering gateway (15 s)
	Log          *slog.Logger
	Now          func() time.Time
}

// Defaults.
const (
	DefaultWindow       = 10 * time.Minute
	DefaultOfflineGrace = 120 * time.Second
	DefaultHandoff      = 6 * time.Second
	DefaultJoinTimeout  = 45 * time.Second
	DefaultLinkTimeout  = 15 * time.Second
	linkPoll            = 500 * time.Millisecond
)

// Machine opens and closes the setup network and joins networks from it.
// Its methods are safe for concurrent use; Run does the work.
type Machine struct {
	radio Radio
	cfg   Config
	cmds  chan command

	mu sync.Mutex
	st Status
}

type command struct {
	kind   string // start, online, offline, open, close, join
	online bool
	saved  bool // start: the radio has saved networks
	trig   Trigger
	net    Network
	reply  chan error
}

// New returns a machine for radio; Run starts it.
func New(radio Radio, cfg Config) (*Machine, error) {
	if err := CheckSSID(cfg.AP.SSID); err != nil {
		return nil, fmt.Errorf("setupnet: setup network name: %w", err)
	}
	if err := CheckPassphrase(cfg.AP.Passphrase); err != nil || cfg.AP.Passphrase == "" {
		return nil, fmt.Errorf("setupnet: setup network password (WPA2 needs one): %v", err)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.Window, DefaultWindow)
	def(&cfg.OfflineGrace, DefaultOfflineGrace)
	def(&cfg.Handoff, DefaultHandoff)
	def(&cfg.JoinTimeout, DefaultJoinTimeout)
	def(&cfg.LinkTimeout, DefaultLinkTimeout)
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Machine{radio: radio, cfg: cfg, cmds: make(chan command), st: Status{State: StateClosed}}, nil
}

// Status returns the machine's state.
func (m *Machine) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

func (m *Machine) send(ctx context.Context, c command) error {
	c.reply = make(chan error, 1)
	select {
	case m.cmds <- c:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-c.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Boot tells the machine whether a Wi-Fi or wired link works at boot, on
// a radio with no saved network; with none, the setup network opens.
func (m *Machine) Boot(ctx context.Context, online bool) error {
	return m.send(ctx, command{kind: "start", online: online})
}

// BootWithSaved is Boot on a radio with saved networks: without a link,
// the setup network opens only if none comes within Config.OfflineGrace
// (after a power cut the router may come up later than the box; opening at
// once would keep the box off its network for the setup window).
func (m *Machine) BootWithSaved(ctx context.Context, online bool) error {
	return m.send(ctx, command{kind: "start", online: online, saved: true})
}

// SetOnline tells the machine the link came back or was lost; lost for
// Config.OfflineGrace, the setup network opens.
func (m *Machine) SetOnline(ctx context.Context, online bool) error {
	return m.send(ctx, command{kind: "online", online: online})
}

// Open opens the setup network (the button held 5 to 10 s, or Settings); open
// already, its window starts again.
func (m *Machine) Open(ctx context.Context, why Trigger) error {
	return m.send(ctx, command{kind: "open", trig: why})
}

// Close closes the setup network (Settings).
func (m *Machine) Close(ctx context.Context) error { return m.send(ctx, command{kind: "close"}) }

// Join checks n and, if the setup network is open, starts joining it
// after the handoff delay; the outcome shows in Status. A refused entry
// is an *Error and changes nothing.
func (m *Machine) Join(ctx context.Context, n Network) error {
	if err := CheckSSID(n.SSID); err != nil {
		return err
	}
	if err := CheckPassphrase(n.Passphrase); err != nil {
		return err
	}
	return m.send(ctx, command{kind: "join", net: n})
}

// Switch joins n from Settings: like Join, but it also works with the
// setup network closed (the box on another network), and a failure does
// not open the setup network: n is forgotten, the radio goes back to the
// saved networks (the one it was on), and the reason shows in Status.
func (m *Machine) Switch(ctx context.Context, n Network) error {
	if err := CheckSSID(n.SSID); err != nil {
		return err
	}
	if err := CheckPassphrase(n.Passphrase); err != nil {
		return err
	}
	return m.send(ctx, command{kind: "switch", net: n})
}

// Run does the machine's work until ctx ends; the setup network is closed
// on the way out.
func (m *Machine) Run(ctx context.Context) error {
	var (
		grace, window <-chan time.Time
		graceT        *time.Timer
		windowT       *time.Timer
		joinDone      chan *JoinError
		reopen        bool // a failed join opens the setup network
		online        bool
	)
	stopTimer := func(t **time.Timer, c *<-chan time.Time) {
		if *t != nil {
			(*t).Stop()
		}
		*t, *c = nil, nil
	}
	open := func(why Trigger) error {
		if m.Status().State == StateClosed {
			if err := m.radio.OpenAP(ctx, m.cfg.AP); err != nil {
				m.cfg.Log.Error("setupnet: open the setup network", "err", err)
				return fmt.Errorf("setupnet: open: %w", err)
			}
			m.cfg.Log.Info("setupnet: setup network open", "ssid", m.cfg.AP.SSID, "why", why)
		}
		stopTimer(&windowT, &window)
		windowT = time.NewTimer(m.cfg.Window)
		window = windowT.C
		m.update(func(s *Status) {
			s.State, s.Trigger, s.ClosesAt = StateOpen, why, m.cfg.Now().Add(m.cfg.Window)
		})
		return nil
	}
	closeAP := func(why string) error {
		stopTimer(&windowT, &window)
		if m.Status().State != StateOpen {
			return nil
		}
		m.update(func(s *Status) { s.State, s.Trigger, s.ClosesAt = StateClosed, "", time.Time{} })
		m.cfg.Log.Info("setupnet: setup network closed", "why", why)
		if err := m.radio.CloseAP(ctx); err != nil {
			return fmt.Errorf("setupnet: close: %w", err)
		}
		return nil
	}
	defer func() {
		if m.Status().State == StateOpen {
			_ = m.radio.CloseAP(context.WithoutCancel(ctx))
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-grace:
			stopTimer(&graceT, &grace)
			if !online && m.Status().State == StateClosed {
				_ = open(TriggerOffline)
			}
		case <-window:
			stopTimer(&windowT, &window)
			_ = closeAP("window over")
		case jerr := <-joinDone:
			joinDone = nil
			if jerr == nil {
				online = true
				stopTimer(&graceT, &grace)
				m.update(func(s *Status) {
					s.State, s.Online, s.LastError, s.Joined, s.Joining = StateClosed, true, nil, s.Joining, ""
				})
				m.cfg.Log.Info("setupnet: joined", "ssid", m.Status().Joined)
				continue
			}
			m.update(func(s *Status) { s.State, s.LastError, s.Joining = StateClosed, jerr, "" })
			if !reopen {
				m.cfg.Log.Warn("setupnet: join from Settings failed; back on the saved networks", "reason", jerr.Reason, "err", jerr.Err)
				continue
			}
			m.cfg.Log.Warn("setupnet: join failed; reopening the setup network", "reason", jerr.Reason, "err", jerr.Err)
			_ = open(TriggerFailed)
		case c := <-m.cmds:
			var err error
			joining := m.Status().State == StateJoining
			switch c.kind {
			case "start", "online":
				online = c.online
				m.update(func(s *Status) { s.Online = c.online })
				switch {
				case joining:
				case c.kind == "start" && !online && !c.saved:
					err = open(TriggerBoot)
				case !online && graceT == nil:
					graceT = time.NewTimer(m.cfg.OfflineGrace)
					grace = graceT.C
				case online:
					stopTimer(&graceT, &grace)
				}
			case "open":
				if joining {
					err = &Error{Code: CodeBusy, Message: "The box is joining a network; wait for it to finish."}
				} else {
					err = open(c.trig)
				}
			case "close":
				if joining {
					err = &Error{Code: CodeBusy, Message: "The box is joining a network; wait for it to finish."}
				} else {
					err = closeAP("settings")
				}
			case "join", "switch":
				switch st := m.Status().State; {
				case st == StateJoining:
					err = &Error{Code: CodeBusy, Message: "The box is already joining a network; wait for it to finish."}
				case st == StateClosed && c.kind == "join":
					err = &Error{Code: CodeClosed, Message: "The setup network is closed; open it again (hold the button 5 to 10 seconds, or Settings)."}
				default:
					reopen = st == StateOpen
					stopTimer(&windowT, &window)
					m.update(func(s *Status) { s.State, s.Joining, s.ClosesAt = StateJoining, c.net.SSID, time.Time{} })
					joinDone = make(chan *JoinError, 1)
					go func(n Network, done chan<- *JoinError) { done <- m.join(ctx, n) }(c.net, joinDone)
				}
			}
			c.reply <- err
		}
	}
}

func (m *Machine) update(f func(*Status)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(&m.st)
}

// join hands the radio over from the setup network to n and checks the
// link; a failure forgets n (and only n).
func (m *Machine) join(ctx context.Context, n Network) *JoinError {
	select {
	case <-time.After(m.cfg.Handoff):
	case <-ctx.Done():
		return &JoinError{Reason: ReasonFailed, Err: ctx.Err()}
	}
	if err := m.radio.CloseAP(ctx); err != nil {
		return &JoinError{Reason: ReasonFailed, Err: fmt.Errorf("close the setup network: %w", err)}
	}
	jctx, cancel := context.WithTimeout(ctx, m.cfg.JoinTimeout)
	id, err := m.radio.Join(jctx, n)
	cancel()
	if err != nil {
		var je *JoinError
		if !errors.As(err, &je) {
			je = &JoinError{Reason: ReasonFailed, Err: err}
		}
		if id != "" {
			if ferr := m.radio.Forget(context.WithoutCancel(ctx), id); ferr != nil {
				m.cfg.Log.Error("setupnet: forget the failed network", "err", ferr)
			}
		}
		return je
	}
	if jerr := m.verify(ctx); jerr != nil {
		if ferr := m.radio.Forget(context.WithoutCancel(ctx), id); ferr != nil {
			m.cfg.Log.Error("setupnet: forget the failed network", "err", ferr)
		}
		return jerr
	}
	if err := m.radio.Keep(ctx, id); err != nil {
		return &JoinError{Reason: ReasonFailed, Err: fmt.Errorf("save the network: %w", err)}
	}
	return nil
}

// verify waits for an address and a gateway that answers.
func (m *Machine) verify(ctx context.Context) *JoinError {
	deadline := time.After(m.cfg.LinkTimeout)
	var last Link
	for {
		l, err := m.radio.Link(ctx)
		if err == nil {
			last = l
			if l.Addr.IsValid() && l.Gateway.IsValid() && l.GatewayAnswers {
				return nil
			}
		}
		select {
		case <-deadline:
			if !last.Addr.IsValid() {
				return &JoinError{Reason: ReasonNoAddress, Err: errors.New("no address in time")}
			}
			return &JoinError{Reason: ReasonNoGateway, Err: fmt.Errorf("address %v, gateway %v does not answer", last.Addr, last.Gateway)}
		case <-ctx.Done():
			return &JoinError{Reason: ReasonFailed, Err: ctx.Err()}
		case <-time.After(linkPoll):
		}
	}
}
