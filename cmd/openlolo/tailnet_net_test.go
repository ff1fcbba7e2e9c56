//go:build tailnet

// The tailnet discovery test: an in-process coordination server and DERP
// (tailscale.com/tstest/integration, testcontrol) and tsnet nodes on
// loopback. It sits behind the tailnet build tag with the remote entry's
// tests: make test-net runs it with
//
//	go test -tags tailnet -run Tailnet ./cmd/openlolo/

package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"tailscale.com/ipn/store/mem"
	"tailscale.com/net/netns"
	"tailscale.com/tailcfg"
	"tailscale.com/tsnet"
	"tailscale.com/tstest/integration"
	"tailscale.com/tstest/integration/testcontrol"
	"tailscale.com/types/logger"

	"github.com/openlolo/openlolo/sdk"
)

// startNode brings up a tsnet node on the test tailnet.
func startNode(t *testing.T, ctx context.Context, controlURL, name string, tags ...string) *tsnet.Server {
	t.Helper()
	s := &tsnet.Server{
		Dir: filepath.Join(t.TempDir(), name), ControlURL: controlURL, Hostname: name,
		Store: new(mem.Store), Ephemeral: true, AdvertiseTags: tags,
		Logf: logger.Discard, UserLogf: logger.Discard,
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Up(ctx); err != nil {
		t.Fatalf("node %s up: %v", name, err)
	}
	return s
}

// TestTailnetDiscovery: a box's node tagged tag:openlolo, another box
// and an untagged laptop join the tailnet; this machine's node, read
// through its LocalClient (the local API tailscaled serves), lists the
// two boxes and not the laptop.
func TestTailnetDiscovery(t *testing.T) {
	netns.SetEnabled(false)
	t.Cleanup(func() { netns.SetEnabled(true) })
	derpMap := integration.RunDERPAndSTUN(t, logger.Discard, "127.0.0.1")
	control := &testcontrol.Server{
		DERPMap: derpMap, DNSConfig: &tailcfg.DNSConfig{Proxied: true},
		MagicDNSDomain: "tail-scale.ts.net", Logf: logger.Discard,
		TagOwners: map[string][]string{boxTag: nil, "tag:laptop": nil},
	}
	control.HTTPTestServer = httptest.NewUnstartedServer(control)
	control.HTTPTestServer.Start()
	t.Cleanup(control.HTTPTestServer.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := control.HTTPTestServer.URL

	startNode(t, ctx, url, "openlolo-ta01", boxTag)
	startNode(t, ctx, url, "openlolo-tb02", boxTag)
	startNode(t, ctx, url, "laptop", "tag:laptop")
	me := startNode(t, ctx, url, "agent-host")
	lc, err := me.LocalClient()
	if err != nil {
		t.Fatal(err)
	}
	paired := []sdk.Box{{URL: "https://openlolo-tb02.tail-scale.ts.net", Name: "openlolo-tb02"}}
	// name url paired (testcontrol reports no peer online).
	want := []string{
		"openlolo-ta01 https://openlolo-ta01.tail-scale.ts.net false",
		"openlolo-tb02 https://openlolo-tb02.tail-scale.ts.net true",
	}
	// The peers reach this node's netmap as the coordination server sends
	// them: look until all three are there.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := lc.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Peer) == 3 {
			found, err := tailnetBoxes(ctx, lc, paired)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range found {
				got = append(got, b.Name+" "+b.URL+" "+boolWord(b.Paired != nil))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("tailnet boxes = %q, want %q", got, want)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("this node saw %d peers, want 3", len(st.Peer))
		case <-tick.C:
		}
	}
}
