package entry

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// The mDNS groups and port (RFC 6762 §3).
var (
	mdnsGroup4 = &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353}
	mdnsGroup6 = &net.UDPAddr{IP: net.ParseIP("ff02::fb"), Port: 5353}
)

const (
	// mdnsTTL is the TTL of every record the box announces (RFC 6762
	// §10 suggests 120 s for host and SRV records; one TTL keeps it simple).
	mdnsTTL = 120
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
		class |= 1 << 15 // cache-flush: the box owns this record (RFC 6762 §10.2)
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

// checkZone refuses names dnsmessage cannot carry before anything is sent.
func (z mdnsZone) check() error {
	for _, n := range []string{z.host(), z.instance(ServiceType), z.instance(httpsServiceType)} {
		if _, err := dnsmessage.NewName(n); err != nil {
			return fmt.Errorf("entry: mdns: name %q: %w", n, err)
		}
	}
	return nil
}

// pack makes a response message; id and questions are set for legacy
// unicast replies (RFC 6762 §6.7), zero for multicast.
func pack(id uint16, qs []dnsmessage.Question, ans, extra []dnsmessage.Resource) ([]byte, error) {
	m := dnsmessage.Message{
		Header:      dnsmessage.Header{ID: id, Response: true, Authoritative: true},
		Questions:   qs,
		Answers:     ans,
		Additionals: extra,
	}
	return m.Pack()
}

// mdnsServer answers mDNS queries for a zone on a set of interfaces, over
// IPv4 and (where the host has it) IPv6.
type mdnsServer struct {
	zone   mdnsZone
	ifaces []net.Interface
	v4     *ipv4.PacketConn
	v6     *ipv6.PacketConn
	stop   chan struct{}
	wg     sync.WaitGroup
}

// startMDNSServer joins the mDNS groups on ifaces, starts answering and
// announces the zone. It fails when neither IPv4 nor IPv6 multicast could
// be joined on any interface.
func startMDNSServer(z mdnsZone, ifaces []net.Interface) (*mdnsServer, error) {
	if err := z.check(); err != nil {
		return nil, err
	}
	s := &mdnsServer{zone: z, ifaces: ifaces, stop: make(chan struct{})}
	err4 := s.join4()
	err6 := s.join6()
	if s.v4 == nil && s.v6 == nil {
		return nil, fmt.Errorf("entry: mdns: join the mDNS groups: %w", errors.Join(err4, err6))
	}
	if s.v4 != nil {
		s.wg.Go(func() { s.serve(s.read4) })
	}
	if s.v6 != nil {
		s.wg.Go(func() { s.serve(s.read6) })
	}
	s.wg.Go(s.announce)
	return s, nil
}

func (s *mdnsServer) join4() error {
	// A multicast address makes net bind the wildcard with SO_REUSEADDR,
	// so the box shares port 5353 with other responders and browsers.
	c, err := net.ListenUDP("udp4", mdnsGroup4)
	if err != nil {
		return fmt.Errorf("listen udp4 :5353: %w", err)
	}
	p := ipv4.NewPacketConn(c)
	joined := 0
	for i := range s.ifaces {
		if p.JoinGroup(&s.ifaces[i], mdnsGroup4) == nil {
			joined++
		}
	}
	if joined == 0 {
		c.Close()
		return errors.New("no interface joined 224.0.0.251")
	}
	p.SetMulticastTTL(255)
	p.SetMulticastLoopback(true) // browsers on this machine see the box too
	p.SetControlMessage(ipv4.FlagInterface, true)
	s.v4 = p
	return nil
}

func (s *mdnsServer) join6() error {
	c, err := net.ListenUDP("udp6", mdnsGroup6)
	if err != nil {
		return fmt.Errorf("listen udp6 :5353: %w", err)
	}
	p := ipv6.NewPacketConn(c)
	joined := 0
	for i := range s.ifaces {
		if p.JoinGroup(&s.ifaces[i], mdnsGroup6) == nil {
			joined++
		}
	}
	if joined == 0 {
		c.Close()
		return errors.New("no interface joined ff02::fb")
	}
	p.SetMulticastHopLimit(255)
	p.SetMulticastLoopback(true)
	p.SetControlMessage(ipv6.FlagInterface, true)
	s.v6 = p
	return nil
}

// packet is one datagram read: its bytes, sender and arrival interface.
type packet struct {
	b       []byte
	from    net.Addr
	ifIndex int
}

func (s *mdnsServer) read4(buf []byte) (packet, error) {
	n, cm, from, err := s.v4.ReadFrom(buf)
	p := packet{b: buf[:max(n, 0)], from: from}
	if cm != nil {
		p.ifIndex = cm.IfIndex
	}
	return p, err
}

func (s *mdnsServer) read6(buf []byte) (packet, error) {
	n, cm, from, err := s.v6.ReadFrom(buf)
	p := packet{b: buf[:max(n, 0)], from: from}
	if cm != nil {
		p.ifIndex = cm.IfIndex
	}
	return p, err
}

// serve answers queries until the connection closes.
func (s *mdnsServer) serve(read func([]byte) (packet, error)) {
	buf := make([]byte, 9000)
	for {
		p, err := read(buf)
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

// reply answers one query: by unicast to a legacy resolver (source port
// not 5353) or when a question asks for it (the QU bit), else on the
// group through the interface it came in on.
func (s *mdnsServer) reply(p packet) {
	var m dnsmessage.Message
	if err := m.Unpack(p.b); err != nil || m.Header.Response || m.Header.OpCode != 0 {
		return
	}
	var ans, extra []dnsmessage.Resource
	unicast := false
	for _, q := range m.Questions {
		if q.Class&(1<<15) != 0 {
			unicast = true
			q.Class &^= 1 << 15
		}
		a, x, ok := s.zone.answer(q, mdnsTTL)
		if ok {
			ans, extra = append(ans, a...), append(extra, x...)
		}
	}
	if len(ans) == 0 {
		return
	}
	udp, _ := p.from.(*net.UDPAddr)
	legacy := udp != nil && udp.Port != mdnsGroup4.Port
	var id uint16
	var qs []dnsmessage.Question
	if legacy {
		id, qs = m.Header.ID, m.Questions
	}
	b, err := pack(id, qs, ans, extra)
	if err != nil {
		return
	}
	if (legacy || unicast) && udp != nil {
		s.writeTo(b, udp, 0)
		return
	}
	s.multicast(b, p.ifIndex, udp != nil && udp.IP.To4() == nil)
}

// multicast sends b on the group of the family v6 through ifIndex.
func (s *mdnsServer) multicast(b []byte, ifIndex int, v6 bool) {
	if v6 {
		s.writeTo(b, mdnsGroup6, ifIndex)
	} else {
		s.writeTo(b, mdnsGroup4, ifIndex)
	}
}

func (s *mdnsServer) writeTo(b []byte, to *net.UDPAddr, ifIndex int) {
	if to.IP.To4() != nil {
		if s.v4 != nil {
			s.v4.WriteTo(b, &ipv4.ControlMessage{IfIndex: ifIndex}, to)
		}
		return
	}
	if s.v6 != nil {
		s.v6.WriteTo(b, &ipv6.ControlMessage{IfIndex: ifIndex}, to)
	}
}

// sendAll sends every record with ttl on every interface and family.
func (s *mdnsServer) sendAll(ttl uint32) {
	b, err := pack(0, nil, s.zone.all(ttl), nil)
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

// shutdown sends goodbyes (every record with TTL 0) and stops answering.
func (s *mdnsServer) shutdown() {
	close(s.stop)
	s.sendAll(0)
	if s.v4 != nil {
		s.v4.Close()
	}
	if s.v6 != nil {
		s.v6.Close()
	}
	s.wg.Wait()
}
