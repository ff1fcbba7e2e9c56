//go:build tailnet

package tailnettest

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"tailscale.com/ipn/store/mem"
	"tailscale.com/net/netns"
	"tailscale.com/tailcfg"
	"tailscale.com/tsnet"
	"tailscale.com/tstest/integration"
	"tailscale.com/tstest/integration/testcontrol"
	"tailscale.com/types/logger"
)

// Domain is the test tailnet's MagicDNS domain: the node named n is
// n.Domain.
const Domain = "tail-scale.ts.net"

// ControlOptions is what the coordination server allows. The zero value
// lets any node in, untagged.
type ControlOptions struct {
	// AuthKey, when set, is the key a node must join with.
	AuthKey string
	// Tags are the ACL tags nodes may advertise (e.g. tag:openlolo).
	Tags []string
	// NoDNS sends nodes no DNS configuration, so the tailnet offers no
	// HTTPS certificates; by default MagicDNS is on.
	NoDNS bool
}

// AuthKey is the key [StartNode]'s nodes join with: a control server
// started with it as ControlOptions.AuthKey lets them in, and one started
// without a key ignores it.
const AuthKey = "tskey-test"

// StartControl runs the coordination server and DERP/STUN on loopback
// until the test ends. Nodes dial loopback directly: it turns
// tailscale.com's netns off for the test, so a test that uses it must not
// run in parallel with others that use the network through tailscale.com.
func StartControl(t testing.TB, opts ControlOptions) *testcontrol.Server {
	t.Helper()
	netns.SetEnabled(false)
	t.Cleanup(func() { netns.SetEnabled(true) })
	control := &testcontrol.Server{
		DERPMap:        integration.RunDERPAndSTUN(t, logger.Discard, "127.0.0.1"),
		DNSConfig:      &tailcfg.DNSConfig{Proxied: true},
		MagicDNSDomain: Domain,
		RequireAuthKey: opts.AuthKey,
		Logf:           logger.Discard,
	}
	if len(opts.Tags) > 0 {
		control.TagOwners = map[string][]string{}
		for _, tag := range opts.Tags {
			control.TagOwners[tag] = nil
		}
	}
	if opts.NoDNS {
		control.DNSConfig = nil
	}
	control.HTTPTestServer = httptest.NewUnstartedServer(control)
	control.HTTPTestServer.Start()
	t.Cleanup(control.HTTPTestServer.Close)
	return control
}

// StartNode brings up an ephemeral tsnet node named name, advertising
// tags and joining with [AuthKey], on the tailnet whose coordination server is at controlURL; it
// closes when the test ends.
func StartNode(t testing.TB, ctx context.Context, controlURL, name string, tags ...string) *tsnet.Server {
	t.Helper()
	s := &tsnet.Server{
		Dir: filepath.Join(t.TempDir(), name), ControlURL: controlURL, Hostname: name,
		Store: new(mem.Store), Ephemeral: true, AdvertiseTags: tags, AuthKey: AuthKey,
		Logf: logger.Discard, UserLogf: logger.Discard,
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Up(ctx); err != nil {
		t.Fatalf("tailnet node %s up: %v", name, err)
	}
	return s
}
