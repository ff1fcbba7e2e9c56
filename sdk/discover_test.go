package sdk

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFromEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		e       serviceEntry
		ok      bool
		url     string
		addrURL string
		pin     string
	}{
		{"full", serviceEntry{
			Instance: "openlolo-1a2b", HostName: "openlolo-1a2b.local.", Port: 443,
			Text: []string{"v=1", "fp=ab", "spki=sha256//x=", "path=/mcp", "name=openlolo-1a2b"}, AddrIPv4: []net.IP{net.IPv4(10, 0, 0, 2)},
		}, true, "https://openlolo-1a2b.local", "https://10.0.0.2", "sha256//x="},
		{"other port, IPv6 only", serviceEntry{
			Instance: "box", HostName: "box.local.", Port: 8443,
			AddrIPv6: []net.IP{net.ParseIP("fd00::5")},
		}, true, "https://box.local:8443", "https://[fd00::5]:8443", ""},
		{"no address", serviceEntry{
			Instance: "box", HostName: "box.local.", Port: 443,
		}, false, "", "", ""},
		{"no port", serviceEntry{
			Instance: "box", HostName: "box.local.", AddrIPv4: []net.IP{net.IPv4(10, 0, 0, 2)},
		}, false, "", "", ""},
	}
	for _, tt := range tests {
		d, ok := fromEntry(&tt.e)
		if ok != tt.ok || d.URL != tt.url || d.AddrURL != tt.addrURL || d.Pin != tt.pin {
			t.Errorf("%s: fromEntry = %+v, %v; want ok=%v url=%q addr=%q pin=%q", tt.name, d, ok, tt.ok, tt.url, tt.addrURL, tt.pin)
		}
	}
}

func TestMergeWithStore(t *testing.T) {
	t.Parallel()
	stored := []Box{
		{URL: "https://openlolo-aaaa.local", Name: "openlolo-aaaa", Entry: "lan", Pin: "sha256//a="},
		{URL: "https://openlolo-bbbb.tail1.ts.net", Name: "openlolo-bbbb", Entry: "tailnet"},
		{URL: "https://10.0.0.3", Name: "", Entry: "lan", Pin: "sha256//c="},
	}
	tests := []struct {
		name       string
		d          Discovered
		paired     string
		pinChanged bool
	}{
		{"same name and pin", Discovered{Name: "openlolo-aaaa", Pin: "sha256//a="}, "https://openlolo-aaaa.local", false},
		{"same name, new pin", Discovered{Name: "openlolo-aaaa", Pin: "sha256//z="}, "https://openlolo-aaaa.local", true},
		{"tailnet pairing is not a LAN pairing", Discovered{Name: "openlolo-bbbb", Pin: "sha256//b="}, "", false},
		{"paired by address, matched by pin", Discovered{Name: "openlolo-cccc", Pin: "sha256//c="}, "https://10.0.0.3", false},
		{"unknown", Discovered{Name: "openlolo-dddd", Pin: "sha256//d="}, "", false},
	}
	for _, tt := range tests {
		got := merge(tt.d, stored)
		url := ""
		if got.Paired != nil {
			url = got.Paired.URL
		}
		if url != tt.paired || got.PinChanged != tt.pinChanged {
			t.Errorf("%s: paired %q pinChanged %v, want %q %v", tt.name, url, got.PinChanged, tt.paired, tt.pinChanged)
		}
	}
}

// A browse that cannot join multicast on any interface fails; Discover
// must return that error at once, not listen out its timeout.
func TestDiscoverNoMulticastInterfaceFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bogus := []net.Interface{{Index: 1 << 20, Name: "openlolo-none", Flags: net.FlagUp | net.FlagMulticast}}
	_, err := DiscoverWith(ctx, DiscoverOptions{
		Timeout: time.Second, Interfaces: bogus, IPv4Only: true,
		Store: &TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")},
	})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("DiscoverWith on an interface that does not exist = %v (ctx %v); want a prompt browse error", err, ctx.Err())
	}
	if !strings.Contains(err.Error(), "multicast") {
		t.Fatalf("error %q does not say multicast is the problem", err)
	}
}
