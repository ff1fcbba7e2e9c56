package entry

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// mdnsPort is the mDNS port (RFC 6762 §3).
const mdnsPort = 5353

// mdnsGroup4 is the IPv4 mDNS group and port (RFC 6762 §3).
func mdnsGroup4() netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{224, 0, 0, 251}), mdnsPort)
}

// mdnsGroup6 is the IPv6 mDNS group (link-local scope) and port.
func mdnsGroup6() netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom16([16]byte{0: 0xff, 1: 0x02, 15: 0xfb}), mdnsPort)
}

const (
	// mdnsTTL is the TTL of every record the box announces (RFC 6762
	// §10 suggests 120 s for host and SRV records; one TTL keeps it simple).
	mdnsTTL = 120
	// legacyTTL caps the TTLs in a reply to a legacy resolver (RFC 6762
	// §6.7: it does not see goodbyes, so its cache must not outlive them
	// by much).
	legacyTTL = 10
	// classTop is the top bit of a class: in a question it asks for a
	// unicast reply (QU, RFC 6762 §5.4), in a record it is the
	// cache-flush bit (§10.2).
	classTop = dnsmessage.Class(1 << 15)
	// maxQuestions is how many questions of one query are read; the
	// zone answers fewer distinct ones, the rest of a bigger packet is
	// ignored.
	maxQuestions = 32
	// maxReply bounds a reply's size: additional records, then answers,
	// are left out until it fits one Ethernet frame with IP and UDP
	// headers.
	maxReply = 1400
	// servicesName lists the service types on the link (RFC 6763 §9).
	servicesName = "_services._dns-sd._udp.local."
	// announceCount and announceGap: unsolicited announcements at start
	// (RFC 6762 §8.3: at least two, one second apart).
	announceCount = 3
	announceGap   = time.Second
)

// mdnsZone is what one registration answers for: the _openlolo._tcp and
// _https._tcp instances named name on host <name>.local.
type mdnsZone struct {
	name string
	port uint16
	ips  []net.IP
	txt  []string // the _openlolo._tcp TXT record
}

// instance is the DNS-SD instance name of service (e.g. _openlolo._tcp).
func (z mdnsZone) instance(service string) string {
	return z.name + "." + service + "." + mdnsDomain
}

func (z mdnsZone) host() string { return z.name + "." + mdnsDomain }

// service is one of the two advertised services and its TXT record.
type service struct {
	typ string // _openlolo._tcp.local.
	txt []string
}

func (z mdnsZone) services() []service {
	return []service{
		{ServiceType + "." + mdnsDomain, z.txt},
		{httpsServiceType + "." + mdnsDomain, []string{"path=/"}},
	}
}

// answer is the reply to one question: answers and additional records,
// with ttl (0 for goodbyes). ok is false when the question is not ours.
func (z mdnsZone) answer(q dnsmessage.Question, ttl uint32) (ans, extra []dnsmessage.Resource, ok bool) {
	name := strings.ToLower(q.Name.String())
	every := q.Type == dnsmessage.TypeALL
	if name == strings.ToLower(servicesName) && (every || q.Type == dnsmessage.TypePTR) {
		for _, s := range z.services() {
			ans = append(ans, z.ptr(servicesName, s.typ, ttl))
		}
		return ans, nil, true
	}
	for _, s := range z.services() {
		inst := z.instance(strings.TrimSuffix(s.typ, "."+mdnsDomain))
		switch name {
		case strings.ToLower(s.typ):
			if every || q.Type == dnsmessage.TypePTR {
				ans = append(ans, z.ptr(s.typ, inst, ttl))
				extra = append(extra, z.srv(inst, ttl), z.text(inst, s.txt, ttl))
				return ans, append(extra, z.addrs(ttl)...), true
			}
		case strings.ToLower(inst):
			if every || q.Type == dnsmessage.TypeSRV {
				ans = append(ans, z.srv(inst, ttl))
			}
			if every || q.Type == dnsmessage.TypeTXT {
				ans = append(ans, z.text(inst, s.txt, ttl))
			}
			return ans, z.addrs(ttl), len(ans) > 0
		}
	}
	if name == strings.ToLower(z.host()) {
		for _, r := range z.addrs(ttl) {
			if every || r.Header.Type == q.Type {
				ans = append(ans, r)
			}
		}
		return ans, nil, len(ans) > 0
	}
	return nil, nil, false
}

// all is every record, for announcements and goodbyes.
func (z mdnsZone) all(ttl uint32) []dnsmessage.Resource {
	var rs []dnsmessage.Resource
	for _, s := range z.services() {
		inst := z.instance(strings.TrimSuffix(s.typ, "."+mdnsDomain))
		rs = append(rs, z.ptr(s.typ, inst, ttl), z.srv(inst, ttl), z.text(inst, s.txt, ttl))
	}
	return append(rs, z.addrs(ttl)...)
}

func header(name string, typ dnsmessage.Type, ttl uint32, flush bool) dnsmessage.ResourceHeader {
	class := dnsmessage.ClassINET
	if flush {
		class |= classTop // cache-flush: the box owns this record (RFC 6762 §10.2)
	}
	return dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(name), Type: typ, Class: class, TTL: ttl}
}

func (z mdnsZone) ptr(name, target string, ttl uint32) dnsmessage.Resource {
	return dnsmessage.Resource{Header: header(name, dnsmessage.TypePTR, ttl, false),
		Body: &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(target)}}
}

func (z mdnsZone) srv(inst string, ttl uint32) dnsmessage.Resource {
	return dnsmessage.Resource{Header: header(inst, dnsmessage.TypeSRV, ttl, true),
		Body: &dnsmessage.SRVResource{Port: z.port, Target: dnsmessage.MustNewName(z.host())}}
}

func (z mdnsZone) text(inst string, txt []string, ttl uint32) dnsmessage.Resource {
	return dnsmessage.Resource{Header: header(inst, dnsmessage.TypeTXT, ttl, true),
		Body: &dnsmessage.TXTResource{TXT: txt}}
}

func (z mdnsZone) addrs(ttl uint32) []dnsmessage.Resource {
	var rs []dnsmessage.Resource
	for _, ip := range z.ips {
		if v4 := ip.To4(); v4 != nil {
			rs = append(rs, dnsmessage.Resource{Header: header(z.host(), dnsmessage.TypeA, ttl, true),
				Body: &dnsmessage.AResource{A: [4]byte(v4)}})
		} else if v6 := ip.To16(); v6 != nil {
			rs = append(rs, dnsmessage.Resource{Header: header(z.host(), dnsmessage.TypeAAAA, ttl, true),
				Body: &dnsmessage.AAAAResource{AAAA: [16]byte(v6)}})
		}
	}
	return rs
}

// check refuses names dnsmessage cannot carry before anything is sent.
func (z mdnsZone) check() error {
	for _, n := range []string{z.host(), z.instance(ServiceType), z.instance(httpsServiceType)} {
		if _, err := dnsmessage.NewName(n); err != nil {
			return fmt.Errorf("entry: mdns: name %q: %w", n, err)
		}
	}
	return nil
}

// pack makes a response message; h carries the ID and TC bit of a legacy
// unicast reply (RFC 6762 §6.7) and is zero for multicast.
func pack(h dnsmessage.Header, qs []dnsmessage.Question, ans, extra []dnsmessage.Resource) ([]byte, error) {
	h.Response, h.Authoritative = true, true
	m := dnsmessage.Message{Header: h, Questions: qs, Answers: ans, Additionals: extra}
	return m.Pack()
}

// recordKey identifies a record: its name, type and data.
type recordKey struct {
	name string
	typ  dnsmessage.Type
	data string
}

func keyOf(r dnsmessage.Resource) recordKey {
	return recordKey{strings.ToLower(r.Header.Name.String()), r.Header.Type, r.Body.GoString()}
}

// response is a reply being built: each record at most once, and none
// in additional that is already an answer.
type response struct {
	ans, extra   []dnsmessage.Resource
	inAns, inAll map[recordKey]bool
	legacy       bool // for a legacy resolver: may be truncated (TC)
}

func (r *response) add(ans, extra []dnsmessage.Resource) {
	if r.inAns == nil {
		r.inAns, r.inAll = map[recordKey]bool{}, map[recordKey]bool{}
	}
	for _, a := range ans {
		if k := keyOf(a); !r.inAns[k] {
			r.inAns[k], r.inAll[k] = true, true
			r.ans = append(r.ans, a)
		}
	}
	for _, x := range extra {
		if k := keyOf(x); !r.inAll[k] {
			r.inAll[k] = true
			r.extra = append(r.extra, x)
		}
	}
}

// forLegacy rewrites the records for a legacy resolver (RFC 6762 §6.7):
// no cache-flush bit, TTLs of at most legacyTTL.
func (r *response) forLegacy() {
	r.legacy = true
	for _, rs := range [][]dnsmessage.Resource{r.ans, r.extra} {
		for i := range rs {
			rs[i].Header.Class &^= classTop
			rs[i].Header.TTL = min(rs[i].Header.TTL, legacyTTL)
		}
	}
}

// pack packs the response in at most maxReply bytes: it leaves out
// additional records from the end, then answers (setting TC for a legacy
// resolver; a multicast reply must not carry it, §18.5). It fails when
// not even one answer fits.
func (r *response) pack(h dnsmessage.Header, qs []dnsmessage.Question) ([]byte, error) {
	ans := r.ans
	// An answer a later question added may have come in earlier as additional.
	extra := slices.DeleteFunc(slices.Clone(r.extra), func(x dnsmessage.Resource) bool { return r.inAns[keyOf(x)] })
	for {
		b, err := pack(h, qs, ans, extra)
		if err != nil || len(b) <= maxReply {
			return b, err
		}
		switch {
		case len(extra) > 0:
			extra = extra[:len(extra)-1]
		case len(ans) > 1:
			ans = ans[:len(ans)-1]
			h.Truncated = r.legacy
		default:
			return nil, fmt.Errorf("entry: mdns: reply of %d bytes is over %d with one answer", len(b), maxReply)
		}
	}
}

// mdnsServer answers mDNS queries for a zone on a set of interfaces, over
// IPv4 and (where the host has it) IPv6. The package doc says which
// queries it answers, how, and what of RFC 6762 it leaves out.
type mdnsServer struct {
	zone    mdnsZone
	ifaces  []net.Interface
	subnets map[int][]netip.Prefix // interface index → its addresses' subnets
	v4, v6  mdnsConn               // nil when the family could not join
	stop    chan struct{}
	wg      sync.WaitGroup
}

// mdnsConn is one family's socket on the mDNS port.
type mdnsConn interface {
	read(buf []byte) (packet, error)
	write(b []byte, to netip.AddrPort, ifIndex int) error
	SetReadDeadline(t time.Time) error
	Close() error
}

// startMDNSServer joins the mDNS groups on ifaces, starts answering and
// announces the zone. It fails when neither IPv4 nor IPv6 multicast could
// be joined on any interface.
func startMDNSServer(z mdnsZone, ifaces []net.Interface) (*mdnsServer, error) {
	if err := z.check(); err != nil {
		return nil, err
	}
	s := &mdnsServer{zone: z, ifaces: ifaces, subnets: linkSubnets(ifaces), stop: make(chan struct{})}
	c4, err4 := join4(ifaces)
	c6, err6 := join6(ifaces)
	if c4 == nil && c6 == nil {
		return nil, fmt.Errorf("entry: mdns: join the mDNS groups: %w", errors.Join(err4, err6))
	}
	s.v4, s.v6 = c4, c6
	s.start()
	return s, nil
}

// start runs the readers and the announcements.
func (s *mdnsServer) start() {
	for _, c := range []mdnsConn{s.v4, s.v6} {
		if c != nil {
			s.wg.Go(func() { s.serve(c) })
		}
	}
	s.wg.Go(s.announce)
}

// linkSubnets lists the subnets of each interface's addresses (an
// interface whose addresses cannot be read has none: only queries sent to
// the group are answered there).
func linkSubnets(ifaces []net.Interface) map[int][]netip.Prefix {
	subnets := map[int][]netip.Prefix{}
	for _, ifc := range ifaces {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(ipn.IP)
			ones, bits := ipn.Mask.Size()
			if !ok || bits == 0 {
				continue
			}
			if ip.Is4In6() && bits == 128 {
				ones -= 96
			}
			subnets[ifc.Index] = append(subnets[ifc.Index], netip.PrefixFrom(ip.Unmap(), ones).Masked())
		}
	}
	return subnets
}

type conn4 struct{ *ipv4.PacketConn }

func (c conn4) read(buf []byte) (packet, error) {
	n, cm, from, err := c.ReadFrom(buf)
	p := packet{b: buf[:max(n, 0)], from: addrPort(from)}
	if cm != nil {
		p.ifIndex, p.dst = cm.IfIndex, ipAddr(cm.Dst)
	}
	return p, err
}

func (c conn4) write(b []byte, to netip.AddrPort, ifIndex int) error {
	_, err := c.WriteTo(b, &ipv4.ControlMessage{IfIndex: ifIndex}, net.UDPAddrFromAddrPort(to))
	return err
}

type conn6 struct{ *ipv6.PacketConn }

func (c conn6) read(buf []byte) (packet, error) {
	n, cm, from, err := c.ReadFrom(buf)
	p := packet{b: buf[:max(n, 0)], from: addrPort(from)}
	if cm != nil {
		p.ifIndex, p.dst = cm.IfIndex, ipAddr(cm.Dst)
	}
	return p, err
}

func (c conn6) write(b []byte, to netip.AddrPort, ifIndex int) error {
	_, err := c.WriteTo(b, &ipv6.ControlMessage{IfIndex: ifIndex}, net.UDPAddrFromAddrPort(to))
	return err
}

// addrPort is a UDP sender's address (IPv4 unmapped), zero for anything else.
func addrPort(a net.Addr) netip.AddrPort {
	u, ok := a.(*net.UDPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	ap := u.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

func ipAddr(ip net.IP) netip.Addr {
	a, _ := netip.AddrFromSlice(ip)
	return a.Unmap()
}

func join4(ifaces []net.Interface) (mdnsConn, error) {
	// A multicast address makes net bind the wildcard with SO_REUSEADDR,
	// so the box shares port 5353 with other responders and browsers.
	group := net.UDPAddrFromAddrPort(mdnsGroup4())
	c, err := net.ListenUDP("udp4", group)
	if err != nil {
		return nil, fmt.Errorf("listen udp4 :5353: %w", err)
	}
	p := ipv4.NewPacketConn(c)
	joined := 0
	for i := range ifaces {
		if p.JoinGroup(&ifaces[i], group) == nil {
			joined++
		}
	}
	if joined == 0 {
		c.Close()
		return nil, errors.New("no interface joined 224.0.0.251")
	}
	p.SetMulticastTTL(255)
	p.SetMulticastLoopback(true) // browsers on this machine see the box too
	if err := p.SetControlMessage(ipv4.FlagInterface|ipv4.FlagDst, true); err != nil {
		c.Close()
		return nil, fmt.Errorf("udp4 :5353: ask for arrival interface and destination: %w", err)
	}
	return conn4{p}, nil
}

func join6(ifaces []net.Interface) (mdnsConn, error) {
	group := net.UDPAddrFromAddrPort(mdnsGroup6())
	c, err := net.ListenUDP("udp6", group)
	if err != nil {
		return nil, fmt.Errorf("listen udp6 :5353: %w", err)
	}
	p := ipv6.NewPacketConn(c)
	joined := 0
	for i := range ifaces {
		if p.JoinGroup(&ifaces[i], group) == nil {
			joined++
		}
	}
	if joined == 0 {
		c.Close()
		return nil, errors.New("no interface joined ff02::fb")
	}
	p.SetMulticastHopLimit(255)
	p.SetMulticastLoopback(true)
	if err := p.SetControlMessage(ipv6.FlagInterface|ipv6.FlagDst, true); err != nil {
		c.Close()
		return nil, fmt.Errorf("udp6 :5353: ask for arrival interface and destination: %w", err)
	}
	return conn6{p}, nil
}

// packet is one datagram read: its bytes, sender, destination address
// and arrival interface (dst and ifIndex zero when the kernel did not say).
type packet struct {
	b       []byte
	from    netip.AddrPort
	dst     netip.Addr
	ifIndex int
}

// serve answers queries until the connection closes or its read deadline
// passes.
func (s *mdnsServer) serve(c mdnsConn) {
	buf := make([]byte, 9000)
	for {
		p, err := c.read(buf)
		if err != nil {
			return
		}
		if !s.ours(p.ifIndex) {
			continue
		}
		s.reply(p)
	}
}

// ours reports whether a packet that came in on ifIndex is for us (0:
// the kernel did not say).
func (s *mdnsServer) ours(ifIndex int) bool {
	if ifIndex == 0 {
		return true
	}
	for _, ifc := range s.ifaces {
		if ifc.Index == ifIndex {
			return true
		}
	}
	return false
}

// onLink reports whether p's source is on the link p came in on: a
// link-local address, or one in a subnet of the arrival interface.
func (s *mdnsServer) onLink(p packet) bool {
	src := p.from.Addr().WithZone("")
	if !src.IsValid() || p.ifIndex == 0 {
		return false
	}
	if src.IsLinkLocalUnicast() {
		return true
	}
	for _, pf := range s.subnets[p.ifIndex] {
		if pf.Contains(src) {
			return true
		}
	}
	return false
}

// reply answers one query. A legacy resolver (source port not 5353), a
// question with the QU bit and a query sent straight to the box's address
// get a unicast reply, when their source is on the link; a query sent to
// the group from elsewhere gets its reply on the group (QU) or none
// (legacy). Everything else is answered on the group through the
// interface the query came in on. Responses, malformed packets and
// queries with an opcode or rcode are ignored (RFC 6762 §18).
func (s *mdnsServer) reply(p packet) {
	var parser dnsmessage.Parser
	h, err := parser.Start(p.b)
	if err != nil || h.Response || h.OpCode != 0 || h.RCode != 0 {
		return
	}
	var qs []dnsmessage.Question
	for range maxQuestions {
		q, err := parser.Question()
		if errors.Is(err, dnsmessage.ErrSectionDone) {
			break
		}
		if err != nil {
			return
		}
		qs = append(qs, q)
	}
	var r response
	qu := false
	for _, q := range qs {
		qu = qu || q.Class&classTop != 0
		q.Class &^= classTop
		if a, x, ok := s.zone.answer(q, mdnsTTL); ok {
			r.add(a, x)
		}
	}
	if len(r.ans) == 0 {
		return
	}
	onLink, toGroup := s.onLink(p), p.dst.IsMulticast()
	if !onLink && !toGroup {
		return // a unicast query from off the link (§5.5, §11)
	}
	legacy := p.from.Port() != mdnsPort
	if legacy && !onLink {
		return // a unicast reply would go to a source off the link
	}
	if legacy {
		r.forLegacy()
		b, err := r.pack(dnsmessage.Header{ID: h.ID}, qs)
		if err == nil {
			s.writeTo(b, p.from, p.ifIndex)
		}
		return
	}
	b, err := r.pack(dnsmessage.Header{}, nil)
	if err != nil {
		return
	}
	if onLink && (qu || !toGroup) {
		s.writeTo(b, p.from, p.ifIndex)
		return
	}
	s.multicast(b, p.ifIndex, p.from.Addr().Is6())
}

// multicast sends b on the group of the family v6 through ifIndex.
func (s *mdnsServer) multicast(b []byte, ifIndex int, v6 bool) {
	if v6 {
		s.writeTo(b, mdnsGroup6(), ifIndex)
	} else {
		s.writeTo(b, mdnsGroup4(), ifIndex)
	}
}

// writeTo sends b to to through ifIndex (0: the route's choice). A lost
// datagram is mDNS's normal weather: the querier asks again.
func (s *mdnsServer) writeTo(b []byte, to netip.AddrPort, ifIndex int) {
	c := s.v6
	if to.Addr().Is4() {
		c = s.v4
	}
	if c != nil {
		c.write(b, to, ifIndex)
	}
}

// sendAll sends every record with ttl on every interface and family.
func (s *mdnsServer) sendAll(ttl uint32) {
	b, err := pack(dnsmessage.Header{}, nil, s.zone.all(ttl), nil)
	if err != nil {
		return
	}
	for _, ifc := range s.ifaces {
		s.multicast(b, ifc.Index, false)
		s.multicast(b, ifc.Index, true)
	}
}

// announce sends the unsolicited announcements, stopping early on close.
func (s *mdnsServer) announce() {
	for i := range announceCount {
		if i > 0 {
			select {
			case <-s.stop:
				return
			case <-time.After(announceGap):
			}
		}
		s.sendAll(mdnsTTL)
	}
}

// shutdown stops answering and announcing, then sends goodbyes (every
// record with TTL 0) and closes the sockets. The goodbyes go out only once
// every reader and the announcer have returned, so no reply or
// announcement in flight can follow them with live records.
func (s *mdnsServer) shutdown() {
	close(s.stop)
	conns := slices.DeleteFunc([]mdnsConn{s.v4, s.v6}, func(c mdnsConn) bool { return c == nil })
	for _, c := range conns {
		c.SetReadDeadline(time.Now()) // wakes the reader, which returns
	}
	s.wg.Wait()
	s.sendAll(0)
	for _, c := range conns {
		c.Close()
	}
}
