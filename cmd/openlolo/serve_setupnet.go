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
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/wifi"
)

// setupNetFlags are serve's setup Wi-Fi network flags (issue 18); off
// unless --wifi names the radio.
type setupNetFlags struct {
	iface, card, addr, wired, country, runDir *string
}

func addSetupNetFlags(fs *flag.FlagSet) setupNetFlags {
	return setupNetFlags{
		iface:   fs.String("wifi", "", "open the setup Wi-Fi network on this radio (e.g. wlan0) when the box has no link; empty: off"),
		card:    fs.String("wifi-card", "/boot/openlolo", "with --wifi: the folder the setup card (setup-card.txt and its QR codes) is written to"),
		addr:    fs.String("wifi-addr", "192.168.4.1", "with --wifi: the box's address on the setup network (its page, DNS and DHCP answer there)"),
		wired:   fs.String("wifi-wired", "eth0", "with --wifi: the wired interface whose working link keeps the setup network closed at boot; empty: none"),
		country: fs.String("wifi-country", "", "with --wifi: the setup network's regulatory domain (e.g. GB); empty: the kernel's"),
		runDir:  fs.String("wifi-run", "/run/openlolo", "with --wifi: where hostapd's files and the control sockets' local ends go"),
	}
}

// check refuses setup-network flags that cannot work.
func (f setupNetFlags) check(httpAddr string) (netip.Addr, error) {
	if *f.iface == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(*f.addr)
	if err != nil || !a.Is4() {
		return netip.Addr{}, usagef("--wifi-addr %q: give the setup network's IPv4 address (e.g. 192.168.4.1)", *f.addr)
	}
	if host, port, err := net.SplitHostPort(httpAddr); err == nil && port == "80" {
		if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
			return netip.Addr{}, usagef("--http %s takes port 80 on every address, where the setup page must answer on %s: give --http the LAN address (e.g. 192.168.1.5:80) or leave it out", httpAddr, a)
		}
	}
	return a, nil
}

// setupNet is what the setup network runs with: the radio, the box's
// owner, where it answers, and where the card goes.
type setupNet struct {
	Radio    setupnet.Radio
	Scanner  setupnet.Scanner
	Online   func(ctx context.Context) bool // a working Wi-Fi or wired link
	Owner    setupnet.Owner
	BoxID    string // the box name, for the SSID and the .local name
	LANURL   string
	StateDir string // the setup password is kept here
	CardDir  string
	Addr     netip.Addr
	HTTP     net.Listener   // on Addr:80
	DNS      net.PacketConn // on Addr:53
	Out      io.Writer      // the console: the card is printed here
	Log      *slog.Logger
	Poll     time.Duration // how often the link is checked (10 s)
	Machine  setupnet.Config
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
	go func() { errc <- ignoreClosed(srv.Serve(s.HTTP)) }()
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
	if err := m.Boot(ctx, online); err != nil {
		return fmt.Errorf("setup network: %w", err)
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

// Scan implements setupnet.Scanner.
func (r *wifiRadio) Scan(ctx context.Context) ([]setupnet.Seen, error) {
	nets, err := r.sup.Scan(ctx)
	out := make([]setupnet.Seen, 0, len(nets))
	for _, n := range nets {
		out = append(out, setupnet.Seen{SSID: n.SSID, Signal: n.Signal, Security: string(n.Security)})
	}
	return out, err
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
func runWithSetupNet(ctx context.Context, box *appliance.Box, f setupNetFlags, addr netip.Addr, stateDir string, out io.Writer, log *slog.Logger) error {
	ln, pc, err := listenSetup(ctx, addr.String())
	if err != nil {
		return fmt.Errorf("setup network: listen on %s: %w", addr, err)
	}
	radio := newWiFiRadio(*f.iface, *f.country, *f.runDir)
	sn := &setupNet{Radio: radio, Scanner: radio, Owner: box.SetupOwner(), BoxID: box.Name(), LANURL: box.LANURL(),
		StateDir: stateDir, CardDir: *f.card, Addr: addr, HTTP: ln, DNS: pc, Out: out, Log: log.With("service", "setupnet"),
		Online: func(ctx context.Context) bool { return linkWorks(ctx, *f.iface, *f.wired) }}
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
