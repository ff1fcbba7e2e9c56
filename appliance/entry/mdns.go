package entry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"
)

// mDNS service types the box advertises.
const (
	// ServiceType is the DNS-SD type clients browse for (sdk.Discover).
	ServiceType = "_openlolo._tcp"
	// httpsServiceType makes the box page show up in browsers' and OSes'
	// lists of local web services.
	httpsServiceType = "_https._tcp"
	mdnsDomain       = "local."
	// defaultMDNSPoll is how often the advertiser looks for changed
	// addresses.
	defaultMDNSPoll = 30 * time.Second
)

// MDNSConfig describes the box's mDNS advertisement.
type MDNSConfig struct {
	// Name is the box name: the service instance, the host name
	// (<Name>.local) and the TXT name.
	Name string
	// Port is the LAN entry's HTTPS port.
	Port int
	// Version, Fingerprint (leaf SHA-256 hex) and Pin (sha256//… SPKI)
	// go into the TXT record as v, fp and spki.
	Version, Fingerprint, Pin string
	// Interfaces lists the interfaces to advertise on; nil means every up
	// interface with multicast that is not loopback, read again at every
	// poll. Loopback addresses are announced only for loopback interfaces
	// named here (tests).
	Interfaces func() ([]net.Interface, error)
	// Poll is how often addresses are checked for changes; 0 means 30 s.
	Poll time.Duration
	// Logger receives what the advertiser does; nil discards.
	Logger *slog.Logger
}

// TXT is the TXT record of the _openlolo._tcp service: v, fp, spki, path
// and name, each at most 255 bytes.
func (c MDNSConfig) TXT() []string {
	return []string{
		"v=" + c.Version,
		"fp=" + c.Fingerprint,
		"spki=" + c.Pin,
		"path=/mcp",
		"name=" + c.Name,
	}
}

func (c MDNSConfig) check() error {
	if err := checkLabel(c.Name); err != nil {
		return err
	}
	if c.Port <= 0 || c.Port > 65535 {
		return fmt.Errorf("entry: mdns: port %d is not a TCP port", c.Port)
	}
	for _, t := range c.TXT() {
		if len(t) > 255 {
			return fmt.Errorf("entry: mdns: TXT entry %.20q… is %d bytes, over mDNS's 255", t, len(t))
		}
	}
	return nil
}

// checkLabel accepts a DNS label: 1–63 letters, digits and inner hyphens.
func checkLabel(name string) error {
	ok := name != "" && len(name) <= 63 && name[0] != '-' && name[len(name)-1] != '-'
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
	}
	if !ok {
		return fmt.Errorf("entry: mdns: name %q is not a DNS label (letters, digits, inner hyphens, at most 63)", name)
	}
	return nil
}

// AdvertiseMDNS announces the box on the LAN until ctx ends: the
// _openlolo._tcp service with cfg's TXT record, _https._tcp for browsers,
// and A/AAAA answers for <name>.local. Every cfg.Poll it reads the
// interfaces' addresses again and re-announces when they changed (DHCP
// renumbering, Wi-Fi joined after boot); with no address yet it waits for
// one. When ctx ends it withdraws the services (goodbye packets with TTL
// 0) and returns nil. It returns an error only for a config that can never
// work.
func AdvertiseMDNS(ctx context.Context, cfg MDNSConfig) error {
	if err := cfg.check(); err != nil {
		return err
	}
	if cfg.Poll <= 0 {
		cfg.Poll = defaultMDNSPoll
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &advert{cfg: cfg, log: log}
	defer a.withdraw()
	t := time.NewTicker(cfg.Poll)
	defer t.Stop()
	for {
		a.refresh()
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// advert is the current registration: what was announced and the
// server announcing it.
type advert struct {
	cfg     MDNSConfig
	log     *slog.Logger
	key     string      // interfaces and addresses last announced
	server  *mdnsServer // nil while nothing is announced
	lastErr string
}

// refresh re-registers when the interfaces or addresses changed.
func (a *advert) refresh() {
	ifaces, ips, err := a.addresses()
	if err != nil {
		a.fail("read interfaces", err)
		return
	}
	key := addrKey(ifaces, ips)
	if key == a.key {
		return
	}
	a.withdraw()
	if len(ips) == 0 {
		a.fail("no address", errors.New("no interface with multicast has an address yet; waiting"))
		return
	}
	zone := mdnsZone{name: a.cfg.Name, port: uint16(a.cfg.Port), txt: a.cfg.TXT()}
	for _, ip := range ips {
		zone.ips = append(zone.ips, net.ParseIP(ip))
	}
	srv, err := startMDNSServer(zone, ifaces)
	if err != nil {
		a.fail("register "+ServiceType, err)
		return
	}
	a.server = srv
	a.key, a.lastErr = key, ""
	a.log.Info("mdns: advertising", "name", a.cfg.Name+".local", "port", a.cfg.Port, "ips", ips)
}

// fail logs an error once until it changes (a poll every 30 s must not
// flood the log with the same line).
func (a *advert) fail(op string, err error) {
	msg := op + ": " + err.Error()
	if msg != a.lastErr {
		a.log.Warn("mdns: "+op, "err", err)
		a.lastErr = msg
	}
	a.key = ""
}

// withdraw sends goodbyes for everything announced.
func (a *advert) withdraw() {
	if a.server != nil {
		a.server.shutdown()
		a.log.Info("mdns: withdrawn", "name", a.cfg.Name+".local")
	}
	a.server, a.key = nil, ""
}

// addresses lists the interfaces to announce on and their addresses.
func (a *advert) addresses() ([]net.Interface, []string, error) {
	explicit := a.cfg.Interfaces != nil
	var (
		ifaces []net.Interface
		err    error
	)
	if explicit {
		ifaces, err = a.cfg.Interfaces()
	} else {
		ifaces, err = net.Interfaces()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("entry: mdns: list interfaces: %w", err)
	}
	var use []net.Interface
	var ips []string
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagMulticast == 0 {
			continue
		}
		loop := ifc.Flags&net.FlagLoopback != 0
		if loop && !explicit {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			return nil, nil, fmt.Errorf("entry: mdns: addresses of %s: %w", ifc.Name, err)
		}
		found := false
		for _, ad := range addrs {
			ipn, ok := ad.(*net.IPNet)
			if !ok || !announceable(ipn.IP, loop) {
				continue
			}
			ips = append(ips, ipn.IP.String())
			found = true
		}
		if found {
			use = append(use, ifc)
		}
	}
	return use, ips, nil
}

// announceable reports whether ip belongs in <name>.local's answers:
// IPv6 link-local addresses need a zone a peer cannot use from an A/AAAA
// record, and loopback only makes sense on a loopback interface.
func announceable(ip net.IP, loopbackIface bool) bool {
	switch {
	case ip.IsLoopback():
		return loopbackIface
	case ip.To4() == nil && ip.IsLinkLocalUnicast():
		return false
	case ip.IsMulticast(), ip.IsUnspecified():
		return false
	}
	return true
}

// addrKey identifies a set of interfaces and addresses, order aside.
func addrKey(ifaces []net.Interface, ips []string) string {
	names := make([]string, len(ifaces))
	for i, ifc := range ifaces {
		names[i] = ifc.Name
	}
	slices.Sort(names)
	sorted := slices.Clone(ips)
	slices.Sort(sorted)
	return strings.Join(names, ",") + "|" + strings.Join(sorted, ",")
}
