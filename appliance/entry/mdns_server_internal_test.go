package entry

import (
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// TestMDNSZoneAnswer pins which records each question gets: the answers'
// types, then the additional records' types.
func TestMDNSZoneAnswer(t *testing.T) {
	t.Parallel()
	z := testZone()
	A, AAAA, PTR, SRV, TXT := dnsmessage.TypeA, dnsmessage.TypeAAAA, dnsmessage.TypePTR, dnsmessage.TypeSRV, dnsmessage.TypeTXT
	tests := []struct {
		name       string
		typ        dnsmessage.Type
		ok         bool
		ans, extra []dnsmessage.Type
	}{
		{"_openlolo._tcp.local.", PTR, true, []dnsmessage.Type{PTR}, []dnsmessage.Type{SRV, TXT, A, AAAA}},
		{"_HTTPS._tcp.local.", PTR, true, []dnsmessage.Type{PTR}, []dnsmessage.Type{SRV, TXT, A, AAAA}},
		{"_services._dns-sd._udp.local.", PTR, true, []dnsmessage.Type{PTR, PTR}, nil},
		{"openlolo-abcd._openlolo._tcp.local.", SRV, true, []dnsmessage.Type{SRV}, []dnsmessage.Type{A, AAAA}},
		{"openlolo-abcd._openlolo._tcp.local.", dnsmessage.TypeALL, true, []dnsmessage.Type{SRV, TXT}, []dnsmessage.Type{A, AAAA}},
		{"openlolo-abcd.local.", A, true, []dnsmessage.Type{A}, nil},
		{"openlolo-abcd.local.", AAAA, true, []dnsmessage.Type{AAAA}, nil},
		{"openlolo-abcd.local.", TXT, false, nil, nil},
		{"other.local.", A, false, nil, nil},
		{"_ipp._tcp.local.", PTR, false, nil, nil},
	}
	types := func(rs []dnsmessage.Resource) []dnsmessage.Type {
		var ts []dnsmessage.Type
		for _, r := range rs {
			ts = append(ts, r.Header.Type)
		}
		return ts
	}
	for _, tt := range tests {
		q := dnsmessage.Question{Name: dnsmessage.MustNewName(tt.name), Type: tt.typ, Class: dnsmessage.ClassINET}
		ans, extra, ok := z.answer(q, mdnsTTL)
		if ok != tt.ok || !slices.Equal(types(ans), tt.ans) || !slices.Equal(types(extra), tt.extra) {
			t.Errorf("answer(%s %v) = %v %v %v, want %v %v %v", tt.name, tt.typ, types(ans), types(extra), ok, tt.ans, tt.extra, tt.ok)
		}
	}
	if _, err := pack(dnsmessage.Header{}, nil, z.all(0), nil); err != nil {
		t.Fatalf("pack every record: %v", err)
	}
}

func TestMDNSServerNoInterface(t *testing.T) {
	t.Parallel()
	bogus := []net.Interface{{Index: 1 << 20, Name: "openlolo-none", Flags: net.FlagUp | net.FlagMulticast}}
	if _, err := startMDNSServer(mdnsZone{name: "box", port: 443}, bogus); err == nil {
		t.Fatal("startMDNSServer on an interface that does not exist succeeded; want a join error")
	}
}

func testZone() mdnsZone {
	return mdnsZone{name: "openlolo-abcd", port: 8443, txt: []string{"v=1"},
		ips: []net.IP{net.IPv4(10, 0, 0, 2), net.ParseIP("fd00::2")}}
}

// fakeMDNSConn is an mdnsConn whose reads come from in and whose writes are
// recorded. When hold is set, a write of live records (TTL > 0) waits
// until hold is closed.
type fakeMDNSConn struct {
	in   chan packet
	done chan struct{} // closed by SetReadDeadline or Close
	once sync.Once
	hold chan struct{}
	mu   sync.Mutex
	sent []sentPacket
}

type sentPacket struct {
	to      netip.AddrPort
	ifIndex int
	size    int
	msg     dnsmessage.Message
}

func newFakeMDNSConn() *fakeMDNSConn {
	return &fakeMDNSConn{in: make(chan packet), done: make(chan struct{})}
}

func (c *fakeMDNSConn) read([]byte) (packet, error) {
	select {
	case p := <-c.in:
		return p, nil
	case <-c.done:
		return packet{}, os.ErrDeadlineExceeded
	}
}

func (c *fakeMDNSConn) write(b []byte, to netip.AddrPort, ifIndex int) error {
	var m dnsmessage.Message
	if err := m.Unpack(b); err != nil {
		panic("the server wrote a packet that does not unpack: " + err.Error())
	}
	if c.hold != nil && len(m.Answers) > 0 && m.Answers[0].Header.TTL > 0 {
		<-c.hold
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, sentPacket{to, ifIndex, len(b), m})
	return nil
}

func (c *fakeMDNSConn) SetReadDeadline(time.Time) error {
	c.once.Do(func() { close(c.done) })
	return nil
}
func (c *fakeMDNSConn) Close() error { c.once.Do(func() { close(c.done) }); return nil }

func (c *fakeMDNSConn) take() []sentPacket {
	c.mu.Lock()
	defer c.mu.Unlock()
	sent := c.sent
	c.sent = nil
	return sent
}

// testServer is a server for z on interface 1 (eth0: 192.168.1.0/24 and
// fd00::/64) over fake sockets, not started.
func testServer(z mdnsZone, v4, v6 *fakeMDNSConn) *mdnsServer {
	s := &mdnsServer{zone: z, ifaces: []net.Interface{{Index: 1, Name: "eth0"}}, stop: make(chan struct{}),
		subnets: map[int][]netip.Prefix{1: {netip.MustParsePrefix("192.168.1.0/24"), netip.MustParsePrefix("fd00::/64")}}}
	if v4 != nil {
		s.v4 = v4
	}
	if v6 != nil {
		s.v6 = v6
	}
	return s
}

func question(name string, typ dnsmessage.Type, qu bool) dnsmessage.Question {
	q := dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}
	if qu {
		q.Class |= classTop
	}
	return q
}

func query(t *testing.T, h dnsmessage.Header, qs ...dnsmessage.Question) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, h)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if err := b.Question(q); err != nil {
			t.Fatal(err)
		}
	}
	out, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMDNSReply feeds queries to reply and checks where the answer goes
// and what it carries: legacy resolvers get their ID and question back,
// no cache-flush bit and short TTLs (RFC 6762 §6.7); QU questions and
// direct unicast queries get a unicast reply (§5.4, §5.5); nothing goes
// by unicast to a source off the link (§11); responses and malformed
// packets are ignored (§18).
func TestMDNSReply(t *testing.T) {
	t.Parallel()
	const (
		onLink4  = "192.168.1.7"
		offLink4 = "203.0.113.9"
		box4     = "192.168.1.2"
		group4   = "224.0.0.251"
		group6   = "ff02::fb"
	)
	ptr := question("_openlolo._tcp.local.", dnsmessage.TypePTR, false)
	qu := question("_openlolo._tcp.local.", dnsmessage.TypePTR, true)
	plain := dnsmessage.Header{}
	tests := []struct {
		name     string
		h        dnsmessage.Header
		q        dnsmessage.Question
		raw      []byte // instead of h and q
		from     string
		dst      string
		to       string // "" when nothing is sent
		id       uint16 // ID and question count of the reply
		qs       int
		flush    bool // SRV, TXT, A and AAAA carry the cache-flush bit
		maxTTL   uint32
		viaGroup bool
	}{
		{name: "multicast query", h: plain, q: ptr, from: onLink4 + ":5353", dst: group4,
			to: group4 + ":5353", flush: true, maxTTL: mdnsTTL},
		{name: "legacy query to the group", h: dnsmessage.Header{ID: 0x1234}, q: ptr, from: onLink4 + ":40000", dst: group4,
			to: onLink4 + ":40000", id: 0x1234, qs: 1, maxTTL: legacyTTL},
		{name: "legacy query to the box", h: dnsmessage.Header{ID: 7}, q: ptr, from: onLink4 + ":40000", dst: box4,
			to: onLink4 + ":40000", id: 7, qs: 1, maxTTL: legacyTTL},
		{name: "QU question", h: plain, q: qu, from: onLink4 + ":5353", dst: group4,
			to: onLink4 + ":5353", flush: true, maxTTL: mdnsTTL},
		{name: "direct unicast query", h: plain, q: ptr, from: onLink4 + ":5353", dst: box4,
			to: onLink4 + ":5353", flush: true, maxTTL: mdnsTTL},
		{name: "legacy query from off the link", h: dnsmessage.Header{ID: 9}, q: ptr, from: offLink4 + ":40000", dst: group4},
		{name: "unicast query from off the link", h: plain, q: ptr, from: offLink4 + ":5353", dst: box4},
		{name: "legacy unicast query from off the link", h: dnsmessage.Header{ID: 9}, q: ptr, from: offLink4 + ":53", dst: box4},
		{name: "QU question from off the link, to the group", h: plain, q: qu, from: offLink4 + ":5353", dst: group4,
			to: group4 + ":5353", flush: true, maxTTL: mdnsTTL},
		{name: "query whose destination is unknown", h: plain, q: ptr, from: offLink4 + ":5353"},
		{name: "response", h: dnsmessage.Header{Response: true}, q: ptr, from: onLink4 + ":5353", dst: group4},
		{name: "opcode", h: dnsmessage.Header{OpCode: 2}, q: ptr, from: onLink4 + ":5353", dst: group4},
		{name: "rcode", h: dnsmessage.Header{RCode: dnsmessage.RCodeNameError}, q: ptr, from: onLink4 + ":5353", dst: group4},
		{name: "not ours", h: plain, q: question("_ipp._tcp.local.", dnsmessage.TypePTR, false), from: onLink4 + ":5353", dst: group4},
		{name: "malformed", raw: []byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 'x'}, from: onLink4 + ":5353", dst: group4},
		{name: "short", raw: []byte{1, 2, 3}, from: onLink4 + ":5353", dst: group4},
		{name: "IPv6 legacy from link-local", h: dnsmessage.Header{ID: 3}, q: ptr, from: "[fe80::1%eth0]:40000", dst: group6,
			to: "[fe80::1%eth0]:40000", id: 3, qs: 1, maxTTL: legacyTTL},
		{name: "IPv6 multicast query", h: plain, q: ptr, from: "[fd00::7]:5353", dst: group6,
			to: "[ff02::fb]:5353", flush: true, maxTTL: mdnsTTL},
		{name: "IPv6 unicast query from off the link", h: plain, q: ptr, from: "[2001:db8::1]:5353", dst: "fd00::2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c4, c6 := newFakeMDNSConn(), newFakeMDNSConn()
			s := testServer(testZone(), c4, c6)
			b := tt.raw
			if b == nil {
				b = query(t, tt.h, tt.q)
			}
			p := packet{b: b, from: netip.MustParseAddrPort(tt.from), ifIndex: 1}
			if tt.dst != "" {
				p.dst = netip.MustParseAddr(tt.dst)
			}
			s.reply(p)
			sent := append(c4.take(), c6.take()...)
			if tt.to == "" {
				if len(sent) != 0 {
					t.Fatalf("sent %d packets (first to %v), want none", len(sent), sent[0].to)
				}
				return
			}
			if len(sent) != 1 {
				t.Fatalf("sent %d packets, want 1 to %s", len(sent), tt.to)
			}
			got := sent[0]
			if got.to.String() != tt.to || got.ifIndex != 1 {
				t.Errorf("sent to %v on interface %d, want %s on 1", got.to, got.ifIndex, tt.to)
			}
			m := got.msg
			if m.Header.ID != tt.id || len(m.Questions) != tt.qs || !m.Header.Response || !m.Header.Authoritative {
				t.Errorf("header %+v with %d questions, want ID %d, %d questions, response, authoritative", m.Header, len(m.Questions), tt.id, tt.qs)
			}
			if tt.qs == 1 && m.Questions[0] != tt.q {
				t.Errorf("question %v, want the query's %v", m.Questions[0], tt.q)
			}
			if len(m.Answers) == 0 {
				t.Fatal("no answers")
			}
			for _, r := range append(m.Answers, m.Additionals...) {
				flush := r.Header.Class&classTop != 0
				if want := tt.flush && r.Header.Type != dnsmessage.TypePTR; flush != want {
					t.Errorf("%v %v: cache-flush %v, want %v", r.Header.Name, r.Header.Type, flush, want)
				}
				if r.Header.TTL == 0 || r.Header.TTL > tt.maxTTL {
					t.Errorf("%v %v: TTL %d, want 1..%d", r.Header.Name, r.Header.Type, r.Header.TTL, tt.maxTTL)
				}
			}
		})
	}
}

// TestMDNSReplyBounded sends one packet of 1400 repeated questions: the
// reply holds each record once, none in additional that is an answer, and
// fits maxReply; a legacy reply echoes at most maxQuestions questions.
// A zone with many addresses is cut to maxReply, with TC only for a
// legacy resolver.
func TestMDNSReplyBounded(t *testing.T) {
	t.Parallel()
	inst, host := "openlolo-abcd._openlolo._tcp.local.", "openlolo-abcd.local."
	cycle := []dnsmessage.Question{
		question("_openlolo._tcp.local.", dnsmessage.TypePTR, false),
		question(host, dnsmessage.TypeA, false),
		question(inst, dnsmessage.TypeALL, false),
		question(host, dnsmessage.TypeAAAA, false),
		question("_https._tcp.local.", dnsmessage.TypePTR, false),
		question("_services._dns-sd._udp.local.", dnsmessage.TypePTR, false),
	}
	var qs []dnsmessage.Question
	for i := range 1400 {
		qs = append(qs, cycle[i%len(cycle)])
	}
	big := query(t, dnsmessage.Header{ID: 5}, qs...)
	if len(big) > 9000 {
		t.Fatalf("the query is %d bytes, over an mDNS packet's 9000", len(big))
	}
	many := testZone()
	for i := range 200 {
		many.ips = append(many.ips, netip.AddrFrom16([16]byte{0: 0xfd, 14: byte(i >> 8), 15: byte(i)}).AsSlice())
	}
	tests := []struct {
		name      string
		zone      mdnsZone
		b         []byte
		from      string
		truncated bool
	}{
		{"repeated questions", testZone(), big, "192.168.1.7:5353", false},
		{"repeated questions, legacy", testZone(), big, "192.168.1.7:40000", false},
		{"many addresses", many, query(t, dnsmessage.Header{}, question(host, dnsmessage.TypeALL, false)), "192.168.1.7:5353", false},
		{"many addresses, legacy", many, query(t, dnsmessage.Header{ID: 1}, question(host, dnsmessage.TypeALL, false)), "192.168.1.7:40000", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newFakeMDNSConn()
			s := testServer(tt.zone, c, nil)
			s.reply(packet{b: tt.b, from: netip.MustParseAddrPort(tt.from), dst: netip.MustParseAddr("224.0.0.251"), ifIndex: 1})
			sent := c.take()
			if len(sent) != 1 {
				t.Fatalf("sent %d packets, want 1", len(sent))
			}
			m := sent[0].msg
			if sent[0].size > maxReply {
				t.Errorf("reply is %d bytes, over %d", sent[0].size, maxReply)
			}
			if len(m.Questions) > maxQuestions {
				t.Errorf("reply echoes %d questions, want at most %d", len(m.Questions), maxQuestions)
			}
			if m.Header.Truncated != tt.truncated {
				t.Errorf("TC %v, want %v", m.Header.Truncated, tt.truncated)
			}
			seen := map[recordKey]string{}
			for _, sec := range []struct {
				name string
				rs   []dnsmessage.Resource
			}{{"answer", m.Answers}, {"additional", m.Additionals}} {
				for _, r := range sec.rs {
					k := keyOf(r)
					if was, dup := seen[k]; dup {
						t.Errorf("%s %v %v is already an %s record", sec.name, r.Header.Name, r.Header.Type, was)
					}
					seen[k] = sec.name
				}
			}
			if len(m.Answers) == 0 {
				t.Error("no answers")
			}
		})
	}
}

// TestMDNSShutdownGoodbyeLast holds the first announcement in its write
// while shutdown runs: the goodbye (TTL 0) must go out after it, never
// before a live record.
func TestMDNSShutdownGoodbyeLast(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newFakeMDNSConn()
		c.hold = make(chan struct{})
		s := testServer(testZone(), c, nil)
		s.start()
		synctest.Wait() // the first announcement waits in write
		done := make(chan struct{})
		go func() { s.shutdown(); close(done) }()
		synctest.Wait()
		close(c.hold)
		<-done
		var ttls []uint32
		for _, p := range c.take() {
			ttls = append(ttls, p.msg.Answers[0].Header.TTL)
		}
		if want := []uint32{mdnsTTL, 0}; !slices.Equal(ttls, want) {
			t.Errorf("packets' TTLs in order %v, want %v (the announcement in flight, then the goodbye)", ttls, want)
		}
	})
}

// TestLinkSubnets reads loopback's subnets and unmaps senders.
func TestLinkSubnets(t *testing.T) {
	t.Parallel()
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Skipf("skipped: no lo interface: %v", err)
	}
	subnets := linkSubnets([]net.Interface{*lo})
	if !slices.Contains(subnets[lo.Index], netip.MustParsePrefix("127.0.0.0/8")) {
		t.Errorf("lo's subnets %v, want 127.0.0.0/8", subnets[lo.Index])
	}
	if got := addrPort(&net.UDPAddr{IP: net.IPv4(192, 168, 1, 7), Port: 40000}); got != netip.MustParseAddrPort("192.168.1.7:40000") {
		t.Errorf("addrPort of an IPv4 sender = %v, want 192.168.1.7:40000 unmapped", got)
	}
}
