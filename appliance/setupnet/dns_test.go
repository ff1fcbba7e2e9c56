package setupnet_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

// serveDNS starts the responder on a loopback UDP port and returns a Go
// resolver (a real DNS client) that asks it.
func serveDNS(t *testing.T, d *setupnet.DNS) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx, pc) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
	})
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", addr)
	}}
}

func TestDNSAnswersEveryNameWithTheBox(t *testing.T) {
	r := serveDNS(t, &setupnet.DNS{Box: netip.MustParseAddr("192.168.4.1")})
	for _, name := range []string{"captive.apple.com", "connectivitycheck.gstatic.com", "www.msftconnecttest.com",
		"openlolo-3f2a.local", "example.org", "a.b.c.d.e.f.example"} {
		addrs, err := r.LookupHost(t.Context(), name)
		if err != nil || !slices.Equal(addrs, []string{"192.168.4.1"}) {
			t.Errorf("LookupHost(%s) = %v, %v; want [192.168.4.1]", name, addrs, err)
		}
	}
	// Other types: an empty answer, not an error the phone retries.
	if _, err := r.LookupMX(t.Context(), "example.org"); err == nil {
		t.Error("LookupMX found a record")
	} else if dnsErr := (*net.DNSError)(nil); errors.As(err, &dnsErr) && dnsErr.IsTimeout {
		t.Errorf("LookupMX timed out: %v", err)
	}
}

func TestDNSAnswerMessages(t *testing.T) {
	d := &setupnet.DNS{Box: netip.MustParseAddr("192.168.4.1"), Box6: netip.MustParseAddr("fd00::1")}
	for _, tc := range []struct {
		typ   dnsmessage.Type
		class dnsmessage.Class
		want  []dnsmessage.ResourceBody
	}{
		{dnsmessage.TypeA, dnsmessage.ClassINET, []dnsmessage.ResourceBody{&dnsmessage.AResource{A: [4]byte{192, 168, 4, 1}}}},
		{dnsmessage.TypeAAAA, dnsmessage.ClassINET, []dnsmessage.ResourceBody{&dnsmessage.AAAAResource{AAAA: netip.MustParseAddr("fd00::1").As16()}}},
		{dnsmessage.TypeTXT, dnsmessage.ClassINET, nil},
		{dnsmessage.TypeA, dnsmessage.ClassCHAOS, nil},
	} {
		q := dnsmessage.Message{Header: dnsmessage.Header{ID: 4242, RecursionDesired: true},
			Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName("Captive.Apple.com."), Type: tc.typ, Class: tc.class}}}
		b, err := q.Pack()
		if err != nil {
			t.Fatal(err)
		}
		reply, ok := d.Answer(b)
		if !ok {
			t.Fatalf("%v: no reply", tc.typ)
		}
		var m dnsmessage.Message
		if err := m.Unpack(reply); err != nil {
			t.Fatal(err)
		}
		if m.ID != 4242 || !m.Response || m.RCode != dnsmessage.RCodeSuccess || len(m.Questions) != 1 || m.Questions[0] != q.Questions[0] {
			t.Fatalf("%v: header %+v questions %+v", tc.typ, m.Header, m.Questions)
		}
		if len(m.Answers) != len(tc.want) {
			t.Fatalf("%v %v: %d answers, want %d", tc.typ, tc.class, len(m.Answers), len(tc.want))
		}
		for i, a := range m.Answers {
			if a.Header.TTL != 1 || a.Header.Name != q.Questions[0].Name || a.Body.GoString() != tc.want[i].GoString() {
				t.Errorf("%v: answer %v, want %v with TTL 1", tc.typ, a.GoString(), tc.want[i].GoString())
			}
		}
	}
	// IPv4 only: AAAA gets no answer, so the phone uses IPv4.
	v4 := &setupnet.DNS{Box: netip.MustParseAddr("192.168.4.1")}
	q, _ := (&dnsmessage.Message{Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName("x."), Type: dnsmessage.TypeAAAA, Class: dnsmessage.ClassINET}}}).Pack()
	reply, _ := v4.Answer(q)
	var m dnsmessage.Message
	if err := m.Unpack(reply); err != nil || len(m.Answers) != 0 {
		t.Fatalf("AAAA without IPv6: %v answers, %v", m.Answers, err)
	}
}

func TestDNSDropsWhatIsNotAQuery(t *testing.T) {
	d := &setupnet.DNS{Box: netip.MustParseAddr("192.168.4.1")}
	resp, _ := (&dnsmessage.Message{Header: dnsmessage.Header{Response: true}}).Pack()
	for name, msg := range map[string][]byte{"empty": nil, "garbage": []byte("\x01\x02\x03"), "a response": resp} {
		if _, ok := d.Answer(msg); ok {
			t.Errorf("%s: answered", name)
		}
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if err := (&setupnet.DNS{}).Serve(t.Context(), pc); err == nil {
		t.Fatal("Serve ran without a box address")
	}
}
