package sdk

import (
	"net"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// response packs an mDNS answer for instance box on box.local:8443 with ttl.
func response(t *testing.T, ttl uint32) []byte {
	t.Helper()
	h := func(name string, typ dnsmessage.Type) dnsmessage.ResourceHeader {
		return dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET, TTL: ttl}
	}
	inst := "box._openlolo._tcp.local."
	m := dnsmessage.Message{
		Header: dnsmessage.Header{Response: true},
		Answers: []dnsmessage.Resource{{Header: h("_openlolo._tcp.local.", dnsmessage.TypePTR),
			Body: &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(inst)}}},
		Additionals: []dnsmessage.Resource{
			{Header: h(inst, dnsmessage.TypeSRV), Body: &dnsmessage.SRVResource{Port: 8443, Target: dnsmessage.MustNewName("box.local.")}},
			{Header: h(inst, dnsmessage.TypeTXT), Body: &dnsmessage.TXTResource{TXT: []string{"v=1"}}},
			{Header: h("box.local.", dnsmessage.TypeA), Body: &dnsmessage.AResource{A: [4]byte{10, 0, 0, 2}}},
			{Header: h("box.local.", dnsmessage.TypeAAAA), Body: &dnsmessage.AAAAResource{AAAA: [16]byte{0xfd, 15: 2}}},
		},
	}
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHeardRecords(t *testing.T) {
	t.Parallel()
	h := newHeard("_openlolo._tcp.local.")
	h.add(response(t, 120))
	h.add(response(t, 120)) // an announcement repeated adds no address
	got := h.entries()
	e := got["box._openlolo._tcp.local."]
	if len(got) != 1 || e == nil || e.Instance != "box" || e.HostName != "box.local." || e.Port != 8443 ||
		len(e.Text) != 1 || len(e.AddrIPv4) != 1 || !e.AddrIPv4[0].Equal(net.IPv4(10, 0, 0, 2)) || len(e.AddrIPv6) != 1 {
		t.Fatalf("entries = %+v (box: %+v), want box on box.local:8443 with one IPv4 and one IPv6 address", got, e)
	}
	h.add(response(t, 0)) // goodbye
	if got := h.entries(); len(got) != 0 {
		t.Fatalf("after the goodbye entries = %+v, want none", got)
	}
	h.add([]byte("not dns"))
	q, err := ptrQuery("_openlolo._tcp.local.")
	if err != nil {
		t.Fatal(err)
	}
	h.add(q) // a query, not a response
	if got := h.entries(); len(got) != 0 {
		t.Fatalf("a query and garbage made entries %+v", got)
	}
}
