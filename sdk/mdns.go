package sdk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// serviceEntry is one DNS-SD instance heard over mDNS: its instance label,
// the SRV target and port, the TXT record and the target's addresses.
type serviceEntry struct {
	Instance           string
	HostName           string // with the trailing dot
	Port               int
	Text               []string
	AddrIPv4, AddrIPv6 []net.IP
}

// mdnsGroup4 is the IPv4 mDNS group and port (RFC 6762 §3), new at each
// call (the appliance's responder keeps its own: sdk imports nothing of
// the appliance).
func mdnsGroup4() *net.UDPAddr { return &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353} }

// mdnsGroup6 is the IPv6 mDNS group (link-local scope) and port.
func mdnsGroup6() *net.UDPAddr { return &net.UDPAddr{IP: net.ParseIP("ff02::fb"), Port: 5353} }

// queryEvery is how often a browse asks again while it listens.
const queryEvery = time.Second

// browse asks for service (e.g. _openlolo._tcp) on the link until ctx
// ends and returns the instances heard, keyed by their full name. An
// instance that said goodbye (TTL 0) is left out.
func browse(ctx context.Context, service string, ifaces []net.Interface, v4only bool) (map[string]*serviceEntry, error) {
	if ifaces == nil {
		all, err := net.Interfaces()
		if err != nil {
			return nil, fmt.Errorf("list interfaces: %w", err)
		}
		for _, ifc := range all {
			if ifc.Flags&net.FlagUp != 0 && ifc.Flags&net.FlagMulticast != 0 {
				ifaces = append(ifaces, ifc)
			}
		}
	}
	query, err := ptrQuery(service + ".local.")
	if err != nil {
		return nil, err
	}
	var conns []browseConn
	c4, err4 := join4(ifaces)
	if c4 != nil {
		conns = append(conns, c4)
	}
	var err6 error
	if !v4only {
		c6, err := join6(ifaces)
		if c6 != nil {
			conns = append(conns, c6)
		}
		err6 = err
	}
	if len(conns) == 0 {
		return nil, fmt.Errorf("join multicast on no interface: %w", errors.Join(err4, err6))
	}
	heard := make(chan []byte, 16)
	done := make(chan struct{})
	defer close(done)
	for _, c := range conns {
		defer c.Close()
		go func() {
			buf := make([]byte, 9000)
			for {
				n, err := c.read(buf)
				if err != nil {
					return
				}
				select {
				case heard <- append([]byte(nil), buf[:n]...):
				case <-done:
					return
				}
			}
		}()
	}
	ask := func() {
		for _, c := range conns {
			for _, ifc := range ifaces {
				c.send(query, ifc.Index)
			}
		}
	}
	ask()
	tick := time.NewTicker(queryEvery)
	defer tick.Stop()
	z := newHeard(service + ".local.")
	for {
		select {
		case <-ctx.Done():
			return z.entries(), ctx.Err()
		case <-tick.C:
			ask()
		case b := <-heard:
			z.add(b)
		}
	}
}

// ptrQuery is a multicast question for the PTR records of name.
func ptrQuery(name string) ([]byte, error) {
	n, err := dnsmessage.NewName(name)
	if err != nil {
		return nil, fmt.Errorf("service name %q: %w", name, err)
	}
	m := dnsmessage.Message{Questions: []dnsmessage.Question{{Name: n, Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET}}}
	return m.Pack()
}

// browseConn is one family's multicast socket.
type browseConn interface {
	read(buf []byte) (int, error)
	send(b []byte, ifIndex int)
	Close() error
}

type conn4 struct{ *ipv4.PacketConn }

func (c conn4) read(buf []byte) (int, error) { n, _, _, err := c.ReadFrom(buf); return n, err }
func (c conn4) send(b []byte, ifIndex int) {
	c.WriteTo(b, &ipv4.ControlMessage{IfIndex: ifIndex}, mdnsGroup4())
}

type conn6 struct{ *ipv6.PacketConn }

func (c conn6) read(buf []byte) (int, error) { n, _, _, err := c.ReadFrom(buf); return n, err }
func (c conn6) send(b []byte, ifIndex int) {
	c.WriteTo(b, &ipv6.ControlMessage{IfIndex: ifIndex}, mdnsGroup6())
}

// join4 listens on the IPv4 group (a multicast address makes net bind
// the wildcard with SO_REUSEADDR, beside the machine's own responder).
func join4(ifaces []net.Interface) (browseConn, error) {
	u, err := net.ListenUDP("udp4", mdnsGroup4())
	if err != nil {
		return nil, fmt.Errorf("listen udp4 :5353: %w", err)
	}
	p := ipv4.NewPacketConn(u)
	joined := 0
	for i := range ifaces {
		if p.JoinGroup(&ifaces[i], mdnsGroup4()) == nil {
			joined++
		}
	}
	if joined == 0 {
		u.Close()
		return nil, errors.New("no interface joined 224.0.0.251")
	}
	p.SetMulticastTTL(255)
	p.SetMulticastLoopback(true)
	return conn4{p}, nil
}

func join6(ifaces []net.Interface) (browseConn, error) {
	u, err := net.ListenUDP("udp6", mdnsGroup6())
	if err != nil {
		return nil, fmt.Errorf("listen udp6 :5353: %w", err)
	}
	p := ipv6.NewPacketConn(u)
	joined := 0
	for i := range ifaces {
		if p.JoinGroup(&ifaces[i], mdnsGroup6()) == nil {
			joined++
		}
	}
	if joined == 0 {
		u.Close()
		return nil, errors.New("no interface joined ff02::fb")
	}
	p.SetMulticastHopLimit(255)
	p.SetMulticastLoopback(true)
	return conn6{p}, nil
}

// heardRecords gathers the records of every response heard.
type heardRecords struct {
	service string                   // _openlolo._tcp.local.
	ptr     map[string]bool          // instance name → alive (false: goodbye)
	srv     map[string]*serviceEntry // instance name → its entry
	addrs   map[string][]net.IP      // host name → addresses
}

func newHeard(service string) *heardRecords {
	return &heardRecords{service: strings.ToLower(service), ptr: map[string]bool{},
		srv: map[string]*serviceEntry{}, addrs: map[string][]net.IP{}}
}

func (h *heardRecords) entry(name string) *serviceEntry {
	key := strings.ToLower(name)
	e := h.srv[key]
	if e == nil {
		label, _, _ := strings.Cut(name, ".")
		e = &serviceEntry{Instance: label}
		h.srv[key] = e
	}
	return e
}

// add reads one response; anything else is ignored.
func (h *heardRecords) add(b []byte) {
	var m dnsmessage.Message
	if m.Unpack(b) != nil || !m.Header.Response {
		return
	}
	for _, r := range append(m.Answers, m.Additionals...) {
		name := r.Header.Name.String()
		switch body := r.Body.(type) {
		case *dnsmessage.PTRResource:
			if strings.ToLower(name) == h.service {
				h.ptr[strings.ToLower(body.PTR.String())] = r.Header.TTL > 0
			}
		case *dnsmessage.SRVResource:
			e := h.entry(name)
			e.HostName, e.Port = body.Target.String(), int(body.Port)
		case *dnsmessage.TXTResource:
			h.entry(name).Text = body.TXT
		case *dnsmessage.AResource:
			h.addAddr(name, net.IP(body.A[:]))
		case *dnsmessage.AAAAResource:
			h.addAddr(name, net.IP(body.AAAA[:]))
		}
	}
}

func (h *heardRecords) addAddr(host string, ip net.IP) {
	key := strings.ToLower(host)
	for _, have := range h.addrs[key] {
		if have.Equal(ip) {
			return
		}
	}
	h.addrs[key] = append(h.addrs[key], ip)
}

// entries are the instances a PTR named and no goodbye withdrew, with
// their host's addresses.
func (h *heardRecords) entries() map[string]*serviceEntry {
	out := map[string]*serviceEntry{}
	for name, alive := range h.ptr {
		e, ok := h.srv[name]
		if !alive || !ok {
			continue
		}
		e.AddrIPv4, e.AddrIPv6 = nil, nil
		for _, ip := range h.addrs[strings.ToLower(e.HostName)] {
			if v4 := ip.To4(); v4 != nil {
				e.AddrIPv4 = append(e.AddrIPv4, v4)
			} else {
				e.AddrIPv6 = append(e.AddrIPv6, ip)
			}
		}
		out[name] = e
	}
	return out
}
