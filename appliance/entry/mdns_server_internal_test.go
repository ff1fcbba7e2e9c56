package entry

import (
	"net"
	"slices"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// TestMDNSZoneAnswer pins which records each question gets: the answers'
// types, then the additional records' types.
func TestMDNSZoneAnswer(t *testing.T) {
	t.Parallel()
	z := mdnsZone{name: "openlolo-abcd", port: 8443, txt: []string{"v=1"},
		ips: []net.IP{net.IPv4(10, 0, 0, 2), net.ParseIP("fd00::2")}}
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
	if _, err := pack(0, nil, z.all(0), nil); err != nil {
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
