package sdk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ServiceType is the DNS-SD service type boxes advertise over mDNS.
const ServiceType = "_openlolo._tcp"

// Discovered is a box found on the LAN over mDNS, merged with what the
// token store knows about it.
type Discovered struct {
	// Name is the box's name (TXT name, else the service instance).
	Name string
	// Host is the advertised host name without the trailing dot
	// (openlolo-1a2b.local) and Port the LAN entry's port.
	Host string
	Port int
	// Addrs are the advertised addresses, IPv4 first.
	Addrs []net.IP
	// URL is https://<Host>[:Port], and AddrURL the same on the first
	// address (for machines that do not resolve .local names).
	URL, AddrURL string
	// Version, Fingerprint (leaf SHA-256 hex), Pin (sha256//… SPKI) and
	// Path come from the TXT record. They are what the box says about
	// itself over unauthenticated multicast: a hint for a person to
	// compare, never a reason to trust a certificate.
	Version, Fingerprint, Pin, Path string
	// Paired is the token store's entry for this box (matched by name or
	// pin), nil when it is not paired.
	Paired *Box
	// PinChanged is true when the box is paired but advertises another
	// pin than the one stored: the certificate was rotated, or another
	// device answers under the box's name.
	PinChanged bool
}

// DiscoverOptions configure DiscoverWith.
type DiscoverOptions struct {
	// Timeout is how long to listen for answers; 0 means 2 seconds.
	Timeout time.Duration
	// Interfaces limits browsing to these interfaces; nil means every up
	// interface with multicast.
	Interfaces []net.Interface
	// IPv4Only browses over IPv4 only (tests on loopback).
	IPv4Only bool
	// Store is the token store to merge with; nil means the per-user
	// default. A store that cannot be read is an error.
	Store *TokenStore
}

// Discover browses the LAN for boxes for timeout (0: 2 s) and merges what
// it finds with the per-user token store, sorted by name. Finding nothing
// is not an error.
func Discover(ctx context.Context, timeout time.Duration) ([]Discovered, error) {
	return DiscoverWith(ctx, DiscoverOptions{Timeout: timeout})
}

// DiscoverWith is Discover with options.
func DiscoverWith(ctx context.Context, opts DiscoverOptions) ([]Discovered, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	st := opts.Store
	if st == nil {
		p, err := DefaultStorePath()
		if err != nil {
			return nil, err
		}
		st = &TokenStore{Path: p}
	}
	paired, err := st.List()
	if err != nil {
		return nil, fmt.Errorf("sdk: discover: %w", err)
	}
	bctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	heard, berr := browse(bctx, ServiceType, opts.Interfaces, opts.IPv4Only)
	if berr != nil && !errors.Is(berr, context.DeadlineExceeded) && !errors.Is(berr, context.Canceled) {
		return nil, fmt.Errorf("sdk: discover: browse %s (is multicast allowed on this network?): %w", ServiceType, berr)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sdk: discover: %w", err)
	}
	found := map[string]Discovered{}
	for _, e := range heard {
		if d, ok := fromEntry(e); ok {
			found[e.Instance] = d
		}
	}
	out := make([]Discovered, 0, len(found))
	for _, d := range found {
		out = append(out, merge(d, paired))
	}
	slices.SortFunc(out, func(a, b Discovered) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// fromEntry reads one mDNS answer; answers without a port or address are
// skipped.
func fromEntry(e *serviceEntry) (Discovered, bool) {
	d := Discovered{
		Name: e.Instance,
		Host: strings.TrimSuffix(e.HostName, "."),
		Port: e.Port,
	}
	d.Addrs = append(append(d.Addrs, e.AddrIPv4...), e.AddrIPv6...)
	if d.Port <= 0 || len(d.Addrs) == 0 {
		return Discovered{}, false
	}
	for _, kv := range e.Text {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "v":
			d.Version = v
		case "fp":
			d.Fingerprint = v
		case "spki":
			d.Pin = v
		case "path":
			d.Path = v
		case "name":
			if v != "" {
				d.Name = v
			}
		}
	}
	if d.Host == "" {
		d.Host = d.Name + ".local"
	}
	d.URL = hostURL(d.Host, d.Port)
	d.AddrURL = hostURL(d.Addrs[0].String(), d.Port)
	return d, true
}

// hostURL is the store's form of a box URL: https://host, with the port
// unless it is 443 and IPv6 literals in brackets.
func hostURL(host string, port int) string {
	if port == 443 {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return "https://" + host
	}
	return "https://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// merge attaches the stored pairing: the same name, or the same pin.
func merge(d Discovered, paired []Box) Discovered {
	for i := range paired {
		b := paired[i]
		if b.Entry != "" && b.Entry != "lan" {
			continue
		}
		byName := b.Name != "" && strings.EqualFold(b.Name, d.Name)
		byPin := b.Pin != "" && b.Pin == d.Pin
		if byName || byPin {
			d.Paired = &b
			d.PinChanged = d.Pin != "" && b.Pin != "" && b.Pin != d.Pin
			return d
		}
	}
	return d
}
