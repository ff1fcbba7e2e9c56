package entry_test

import (
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/sdk"
)

func TestMDNSConfigErrors(t *testing.T) {
	t.Parallel()
	good := entry.MDNSConfig{Name: "openlolo-abcd", Port: 443, Version: "1", Fingerprint: "ab", Pin: "sha256//x"}
	tests := []struct {
		name string
		edit func(*entry.MDNSConfig)
		want string
	}{
		{"empty name", func(c *entry.MDNSConfig) { c.Name = "" }, "not a DNS label"},
		{"dot in name", func(c *entry.MDNSConfig) { c.Name = "box.local" }, "not a DNS label"},
		{"leading hyphen", func(c *entry.MDNSConfig) { c.Name = "-box" }, "not a DNS label"},
		{"long name", func(c *entry.MDNSConfig) { c.Name = strings.Repeat("a", 64) }, "not a DNS label"},
		{"no port", func(c *entry.MDNSConfig) { c.Port = 0 }, "not a TCP port"},
		{"port too big", func(c *entry.MDNSConfig) { c.Port = 70000 }, "not a TCP port"},
		{"long TXT", func(c *entry.MDNSConfig) { c.Version = strings.Repeat("9", 300) }, "over mDNS's 255"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := good
			tt.edit(&cfg)
			err := entry.AdvertiseMDNS(t.Context(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AdvertiseMDNS = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestMDNSTXT(t *testing.T) {
	t.Parallel()
	cfg := entry.MDNSConfig{Name: "openlolo-abcd", Version: "1.2", Fingerprint: "00ff", Pin: "sha256//AAA="}
	want := []string{"v=1.2", "fp=00ff", "spki=sha256//AAA=", "path=/mcp", "name=openlolo-abcd"}
	if got := cfg.TXT(); !slices.Equal(got, want) {
		t.Fatalf("TXT = %q, want %q", got, want)
	}
}

// TestMDNSNamespace advertises a box on loopback inside a private network
// namespace (no mDNS leaves the machine), finds it with sdk.DiscoverWith,
// sees a new address re-announced, and sees the goodbye on shutdown.
func TestMDNSNamespace(t *testing.T) {
	if !inNetns(t) {
		return
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	ifaces := []net.Interface{*lo}
	store := &sdk.TokenStore{Path: t.TempDir() + "/boxes.json"}
	if err := store.Put(sdk.Box{URL: "https://openlolo-ns01.local:8443", Name: "openlolo-ns01", Entry: "lan", Pin: "sha256//old="}); err != nil {
		t.Fatal(err)
	}
	cfg := entry.MDNSConfig{
		Name: "openlolo-ns01", Port: 8443, Version: "0.9.1",
		Fingerprint: strings.Repeat("ab", 32), Pin: "sha256//pinpinpin=",
		Interfaces: func() ([]net.Interface, error) { return ifaces, nil },
		Poll:       200 * time.Millisecond,
	}
	ctx, stop := context.WithCancel(t.Context())
	advertised := make(chan error, 1)
	go func() { advertised <- entry.AdvertiseMDNS(ctx, cfg) }()

	discover := func() []sdk.Discovered {
		t.Helper()
		found, err := sdk.DiscoverWith(t.Context(), sdk.DiscoverOptions{
			Timeout: 1500 * time.Millisecond, Interfaces: ifaces, IPv4Only: true, Store: store,
		})
		if err != nil {
			t.Fatalf("DiscoverWith: %v", err)
		}
		return found
	}
	found := discover()
	if len(found) != 1 {
		t.Fatalf("found %d boxes, want 1: %+v", len(found), found)
	}
	d := found[0]
	if d.Name != cfg.Name || d.Host != "openlolo-ns01.local" || d.Port != 8443 || d.Version != "0.9.1" ||
		d.Fingerprint != cfg.Fingerprint || d.Pin != cfg.Pin || d.Path != "/mcp" ||
		d.URL != "https://openlolo-ns01.local:8443" || d.AddrURL != "https://127.0.0.1:8443" {
		t.Errorf("discovered %+v, want the advertised name, port and TXT", d)
	}
	if d.Paired == nil || d.Paired.URL != "https://openlolo-ns01.local:8443" || !d.PinChanged {
		t.Errorf("merge with the store: Paired=%+v PinChanged=%v, want the stored box with its pin changed", d.Paired, d.PinChanged)
	}

	// A new address on the interface is announced at the next poll.
	if out, err := exec.Command("ip", "addr", "add", "10.77.0.1/32", "dev", "lo").CombinedOutput(); err != nil {
		t.Fatalf("ip addr add: %v %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		found = discover()
		if len(found) == 1 && slices.ContainsFunc(found[0].Addrs, func(ip net.IP) bool { return ip.Equal(net.IPv4(10, 77, 0, 1)) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new address was not re-announced: %+v", found)
		}
	}

	// Withdraw on shutdown: goodbye packets (TTL 0) for the instance,
	// then nobody answers.
	goodbye := listenGoodbye(t, lo, "openlolo-ns01._openlolo._tcp.local.")
	stop()
	select {
	case err := <-advertised:
		if err != nil {
			t.Fatalf("AdvertiseMDNS: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AdvertiseMDNS did not return after its context ended")
	}
	select {
	case <-goodbye:
	case <-time.After(5 * time.Second):
		t.Fatal("no goodbye (PTR with TTL 0) seen after shutdown")
	}
	if found := discover(); len(found) != 0 {
		t.Fatalf("after shutdown found %+v, want nothing", found)
	}
}

// listenGoodbye watches the mDNS group on ifc and closes the returned
// channel when a PTR record for instance arrives with TTL 0.
func listenGoodbye(t *testing.T, ifc *net.Interface, instance string) <-chan struct{} {
	t.Helper()
	conn, err := net.ListenMulticastUDP("udp4", ifc, &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353})
	if err != nil {
		t.Fatalf("listen on the mDNS group: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	seen := make(chan struct{})
	go func() {
		buf := make([]byte, 9000)
		for {
			n, _, err := conn.ReadFromUDP(buf)
			if err != nil {
				return
			}
			var m dns.Msg
			if m.Unpack(buf[:n]) != nil || !m.Response {
				continue
			}
			for _, rr := range m.Answer {
				if ptr, ok := rr.(*dns.PTR); ok && ptr.Ptr == instance && ptr.Hdr.Ttl == 0 {
					close(seen)
					return
				}
			}
		}
	}()
	return seen
}
