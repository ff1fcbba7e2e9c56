package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/wifi"
)

// setupNetFlags are serve's setup Wi-Fi network flags (issue 18); off
// unless --wifi names the radio.
type setupNetFlags struct {
	iface, card, addr, wired, country, runDir, conf *string
}

func addSetupNetFlags(fs *flag.FlagSet) setupNetFlags {
	return setupNetFlags{
		iface:   fs.String("wifi", "", "open the setup Wi-Fi network on this radio (e.g. wlan0) when the box has no link; empty: off"),
		card:    fs.String("wifi-card", "/boot/openlolo", "with --wifi: the folder the setup card (setup-card.txt and its QR codes) is written to"),
		addr:    fs.String("wifi-addr", "192.168.4.1", "with --wifi: the box's address on the setup network, a /24 (its page, DNS and DHCP answer there)"),
		wired:   fs.String("wifi-wired", "eth0", "with --wifi: the wired interface whose working link keeps the setup network closed at boot; empty: none"),
		country: fs.String("wifi-country", "", "with --wifi: the setup network's regulatory domain (e.g. GB); empty: the kernel's"),
		runDir:  fs.String("wifi-run", "/run/openlolo", "with --wifi: where hostapd's and udhcpd's files and the control sockets' local ends go"),
		conf:    fs.String("wifi-conf", "/data/openlolo/wifi/wpa_supplicant.conf", "with --wifi: wpa_supplicant's configuration file (the saved networks), given back to it when the setup network closes"),
	}
}

// setupAt is where the setup page answers: its address, and whether it
// shares the box's plain-HTTP entry (a wildcard --http on port 80, where
// a listener of its own could not bind).
type setupAt struct {
	Addr   netip.Addr
	Shared bool
}

// check refuses setup-network flags that cannot work.
func (f setupNetFlags) check(httpAddr string) (setupAt, error) {
	if *f.iface == "" {
		return setupAt{}, nil
	}
	a, err := netip.ParseAddr(*f.addr)
	if err != nil || !a.Is4() {
		return setupAt{}, usagef("--wifi-addr %q: give the setup network's IPv4 address (e.g. 192.168.4.1)", *f.addr)
	}
	at := setupAt{Addr: a}
	if host, port, err := net.SplitHostPort(httpAddr); err == nil && port == "80" {
		if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
			at.Shared = true
		} else if err == nil && ip == a {
			return setupAt{}, usagef("--http %s is the setup network's address: give --http the LAN address or a wildcard (:80)", httpAddr)
		}
	}
	return at, nil
}

// setupFront sends the plain-HTTP entry's requests that arrived on the
// setup address to the setup network's handler (once it is set), the rest
// on to the box's redirects.
type setupFront struct {
	addr netip.Addr
	h    atomic.Pointer[http.Handler]
}

func (f *setupFront) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := f.h.Load(); h != nil && arrivedOn(r, f.addr) {
			(*h).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (f *setupFront) set(h http.Handler) { f.h.Store(&h) }

// arrivedOn reports whether r came in on the local address a.
func arrivedOn(r *http.Request, a netip.Addr) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(la.String())
	return err == nil && ap.Addr().Unmap() == a
}

// setupNet is what the setup network runs with: the radio, the box's
// owner, where it answers, and where the card goes.
type setupNet struct {
	Radio    setupnet.Radio
	Scanner  setupnet.Scanner
	Online   func(ctx context.Context) bool // a working Wi-Fi or wired link
	Saved    func(ctx context.Context) bool // the radio has saved networks; nil: none
	Owner    setupnet.Owner
	BoxID    string // the box name, for the SSID and the .local name
	LANURL   string
	StateDir string // the setup password is kept here
	CardDir  string
	Addr     netip.Addr
	HTTP     net.Listener   // on Addr:80; nil: Front
	Front    *setupFront    // the box's plain-HTTP entry, when HTTP is nil
	DNS      net.PacketConn // on Addr:53
	Out      io.Writer      // the console: the card is printed here
	Log      *slog.Logger
	Poll     time.Duration // how often the link is checked (10 s)
	Machine  setupnet.Config
	// Started, when set, gets the machine once it exists (the Settings
	// page's Wi-Fi section).
	Started func(*setupnet.Machine)
}

// run writes and prints the card, serves the page and DNS on the setup
// address, and runs the machine until ctx ends.
func (s *setupNet) run(ctx context.Context) error {
	pass, err := setupnet.LoadPassword(s.StateDir)
	if err != nil {
		return err
	}
	cfg := s.Machine
	cfg.AP = setupnet.AP{SSID: setupnet.SSID(s.BoxID), Passphrase: pass}
	cfg.Log = s.Log
	m, err := setupnet.New(s.Radio, cfg)
	if err != nil {
		return err
	}
	if s.Started != nil {
		s.Started(m)
	}
	pageURL := "http://" + s.Addr.String() + "/"
	card := setupnet.Card{SSID: cfg.AP.SSID, Password: pass, PageURL: pageURL}
	if err := card.WriteFiles(s.CardDir); err != nil {
		s.Log.Warn("setup card not written; it is on the console", "dir", s.CardDir, "err", err)
	}
	fmt.Fprintf(s.Out, "%s\n", card.Text())

	page := &setupnet.Page{Machine: m, Scanner: s.Scanner, Owner: s.Owner, Addr: s.Addr,
		BoxName: s.BoxID + ".local", LANURL: s.LANURL, Log: s.Log}
	srv := &http.Server{
		Handler:           &setupnet.Captive{Hosts: []string{s.Addr.String(), s.BoxID + ".local"}, Page: pageURL, Box: page.Handler()},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 3)
	if s.HTTP != nil {
		go func() { errc <- ignoreClosed(srv.Serve(s.HTTP)) }()
	} else {
		s.Front.set(srv.Handler)
		errc <- nil
	}
	go func() { errc <- (&setupnet.DNS{Box: s.Addr, Log: s.Log}).Serve(ctx, s.DNS) }()
	go func() { errc <- m.Run(ctx) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	err = s.watch(ctx, m)
	cancel()
	for range 3 {
		if e := <-errc; e != nil && !errors.Is(e, context.Canceled) && err == nil {
			err = e
		}
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// watch tells the machine about the link: at boot, then every Poll.
func (s *setupNet) watch(ctx context.Context, m *setupnet.Machine) error {
	poll := s.Poll
	if poll <= 0 {
		poll = 10 * time.Second
	}
	online := s.Online(ctx)
	boot := m.Boot
	if s.Saved != nil && s.Saved(ctx) {
		boot = m.BootWithSaved
	}
	if err := boot(ctx, online); err != nil {
		// the radio could not be taken (the error says why); the button
		// and Settings can try again, and the box serves the LAN meanwhile
		s.Log.Error("the setup network did not open at boot", "err", err)
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if st := m.Status(); st.State != setupnet.StateClosed {
			continue // the radio is the setup network's; its own link says nothing
		}
		if now := s.Online(ctx); now != online {
			online = now
			if err := m.SetOnline(ctx, online); err != nil {
				return fmt.Errorf("setup network: %w", err)
			}
		}
	}
}

func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// linkWorks reports whether any of ifaces has an address and a gateway
// that answers.
func linkWorks(ctx context.Context, ifaces ...string) bool {
	for _, i := range ifaces {
		if i == "" {
			continue
		}
		if l, err := wifi.LinkOf(ctx, i); err == nil && l.Addr.IsValid() && l.GatewayAnswers {
			return true
		}
	}
	return false
}

// runWithSetupNet runs the box and, beside it, the setup network on the
// radio f names; either ending ends both.
func runWithSetupNet(ctx context.Context, box *appliance.Box, f setupNetFlags, at setupAt, front *setupFront, ws *wifiSettings, stateDir string, out io.Writer, log *slog.Logger) error {
	ln, pc, err := listenSetup(ctx, at.Addr.String(), !at.Shared)
	if err != nil {
		return fmt.Errorf("setup network: listen on %s: %w", at.Addr, err)
	}
	slog := log.With("service", "setupnet")
	paths := defaultRadioPaths(*f.iface)
	paths.conf = *f.conf
	radio := newWiFiRadio(*f.iface, *f.country, *f.runDir, netip.PrefixFrom(at.Addr, 24), paths, slog)
	sn := &setupNet{Radio: radio, Scanner: radio, Owner: box.SetupOwner(), BoxID: box.Name(), LANURL: box.LANURL(),
		StateDir: stateDir, CardDir: *f.card, Addr: at.Addr, HTTP: ln, Front: front, DNS: pc, Out: out, Log: slog,
		Online: func(ctx context.Context) bool { return linkWorks(ctx, *f.iface, *f.wired) },
		Saved:  radio.hasSaved, Started: func(m *setupnet.Machine) { ws.machine.Store(m) }}
	ws.radio = radio
	return runBeside(ctx, box.Run, func(ctx context.Context) error {
		// The box keeps serving the LAN without its setup network.
		if err := sn.run(ctx); err != nil {
			sn.Log.Error("the setup network stopped", "err", err)
		}
		return nil
	})
}

// runBeside runs main and side until main returns (side is then
// stopped) or side fails (main is then stopped); main's error wins.
func runBeside(ctx context.Context, main, side func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sideErr := make(chan error, 1)
	go func() {
		err := side(ctx)
		if err != nil && ctx.Err() == nil {
			cancel()
		}
		sideErr <- err
	}()
	err := main(ctx)
	cancel()
	serr := <-sideErr
	if err == nil && serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	return err
}
