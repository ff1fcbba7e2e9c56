//go:build tailnet

// The tailnet discovery test: an in-process coordination server and DERP
// and tsnet nodes on loopback (appliance/entry/tailnettest). It sits behind the tailnet build tag with the remote entry's
// tests: make test-net runs it with
//
//	go test -tags tailnet -run Tailnet ./cmd/openlolo/

package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/entry/tailnettest"
	"github.com/openlolo/openlolo/sdk"
)

// TestTailnetDiscovery: a box's node tagged tag:openlolo, another box
// and an untagged laptop join the tailnet; this machine's node, read
// through its LocalClient (the local API tailscaled serves), lists the
// two boxes and not the laptop.
func TestTailnetDiscovery(t *testing.T) {
	control := tailnettest.StartControl(t, tailnettest.ControlOptions{Tags: []string{boxTag, "tag:laptop"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := control.HTTPTestServer.URL

	tailnettest.StartNode(t, ctx, url, "openlolo-ta01", boxTag)
	tailnettest.StartNode(t, ctx, url, "openlolo-tb02", boxTag)
	tailnettest.StartNode(t, ctx, url, "laptop", "tag:laptop")
	me := tailnettest.StartNode(t, ctx, url, "agent-host")
	lc, err := me.LocalClient()
	if err != nil {
		t.Fatal(err)
	}
	paired := []sdk.Box{{URL: "https://openlolo-tb02." + tailnettest.Domain, Name: "openlolo-tb02"}}
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
