//go:build tailnet

package main

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tailscale.com/ipn/store/mem"
	"tailscale.com/tsnet"
	"tailscale.com/types/logger"

	"github.com/openlolo/openlolo/appliance/entry/tailnettest"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// TestTailnetFleetServe: openlolo fleet serve twice side by side on the
// test tailnet (which offers no HTTPS certificates, so both serve plain
// HTTP), one with --allow tag:agents and one open to any node, over the
// same token store paired with a sim box. A node tagged tag:agents runs
// the go-sdk MCP client over its tsnet HTTP client through the first: it
// lists the tools and the box's phones. An untagged laptop is refused
// there with 403 and served by the second. Each logs the callers as
// WhoIs named them, and stops with status 0.
func TestTailnetFleetServe(t *testing.T) {
	control := tailnettest.StartControl(t, tailnettest.ControlOptions{AuthKey: tailnettest.AuthKey, Tags: []string{"tag:agents"}, NoDNS: true}).HTTPTestServer.URL
	store := filepath.Join(t.TempDir(), "boxes.json")
	pairedServe(t, &sdk.TokenStore{Path: store}, "openlolo-fn01")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	env := []string{"OPENLOLO_STORE=" + store, "TS_AUTHKEY=" + tailnettest.AuthKey}

	// A key the tailnet does not take (--authkey wins over $TS_AUTHKEY):
	// fleet serve says so and stops.
	var errb lockedBuffer
	code := Main(ctx, &Context{Stdout: io.Discard, Stderr: &errb, Env: env,
		Args: []string{"fleet", "serve", "--control-url", control, "--authkey", "tskey-wrong"}})
	if want := "join the tailnet as openlolo-fleet: tsnet.Up: backend: invalid authkey"; code != 1 || !strings.Contains(errb.String(), want) {
		t.Fatalf("fleet serve with a wrong key = %d, stderr:\n%s\nwant 1 with %q", code, errb.String(), want)
	}

	// The key from the flag, then from $TS_AUTHKEY.
	guarded := startMain(t, env[:1], 1, "fleet", "serve", "--control-url", control, "--state", t.TempDir(), "--allow", "tag:agents", "--authkey", tailnettest.AuthKey)
	open := startMain(t, env, 1, "fleet", "serve", "--control-url", control, "--hostname", "openlolo-fleet-2")
	for _, tt := range []struct {
		s    *served
		want string
	}{{guarded, "http://openlolo-fleet.tail-scale.ts.net/mcp"}, {open, "http://openlolo-fleet-2.tail-scale.ts.net/mcp"}} {
		if tt.s.lines[0] != tt.want {
			t.Fatalf("fleet serve printed %q, want %q; stderr:\n%s", tt.s.lines[0], tt.want, tt.s.stderr)
		}
	}
	agent := tailnettest.StartNode(t, ctx, control, "agent", "tag:agents")
	laptop := tailnettest.StartNode(t, ctx, control, "laptop")
	want := []string{"openlolo-fn01/sim-1", "openlolo-fn01/sim-2"}

	cs, err := connectMCP(ctx, guarded.lines[0], agent.HTTPClient())
	if err != nil {
		t.Fatalf("the agent connects: %v; fleet serve's log:\n%s", err, guarded.stderr)
	}
	if ids := fleetPhoneIDs(t, ctx, cs); !slices.Equal(ids, want) {
		t.Errorf("openlolo_phones through the tailnet = %v, want %v", ids, want)
	}
	cs.Close()
	_, err = connectMCP(ctx, guarded.lines[0], laptop.HTTPClient())
	if err == nil || !strings.Contains(err.Error(), "Forbidden") || !strings.Contains(err.Error(), "tailnet node laptop.tail-scale.ts.net (user user-") ||
		!strings.Contains(err.Error(), "it serves only tag:agents") {
		t.Errorf("the laptop connects to the guarded endpoint: %v, want Forbidden naming it and tag:agents", err)
	}
	cs, err = connectMCP(ctx, open.lines[0], laptop.HTTPClient())
	if err != nil {
		t.Fatalf("the laptop connects to the open endpoint: %v; its log:\n%s", err, open.stderr)
	}
	if ids := fleetPhoneIDs(t, ctx, cs); !slices.Equal(ids, want) {
		t.Errorf("openlolo_phones through the open endpoint = %v, want %v", ids, want)
	}
	cs.Close()

	for _, s := range []*served{guarded, open} {
		if code := s.stop(); code != 0 {
			t.Errorf("fleet serve stopped with status %d, want 0; stderr:\n%s", code, s.stderr)
		}
	}
	for _, tt := range []struct {
		s    *served
		want []string
	}{
		{guarded, []string{"fleet serve: request", "node=agent.tail-scale.ts.net user=user-", "tags=[tag:agents] method=POST path=/mcp",
			"fleet serve: caller refused", "node=laptop.tail-scale.ts.net user=user-"}},
		{open, []string{"fleet serve: request", "node=laptop.tail-scale.ts.net user=user-"}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.s.stderr.String(), w) {
				t.Errorf("fleet serve's log has no %q:\n%s", w, tt.s.stderr)
			}
		}
	}
}

// TestTailnetFleetServeHTTPS: on a tailnet that offers HTTPS certificates
// (MagicDNS on, cert domains sent), the fleet endpoint is HTTPS on :443 at
// the node's cert domain, the handshake asking the certificate source for
// that name; an agent node reaches it pinned to the test's certificate
// (the stand-in for the tailnet's Let's Encrypt one) and lists the phones.
func TestTailnetFleetServeHTTPS(t *testing.T) {
	control := tailnettest.StartControl(t, tailnettest.ControlOptions{}).HTTPTestServer.URL
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairedServe(t, store, "openlolo-fn02")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := boxtls.Load(boxtls.Options{Dir: t.TempDir(), Name: "openlolo-fleet"})
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Value // the name the last handshake asked for
	node := &tsnet.Server{Dir: t.TempDir(), Store: new(mem.Store), ControlURL: control, Hostname: "openlolo-fleet", Ephemeral: true,
		Logf: logger.Discard, UserLogf: logger.Discard}
	defer node.Close()
	out, urlc := io.Pipe()
	fs := &fleetServer{node: node, log: slog.New(slog.DiscardHandler), out: urlc,
		certs: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			asked.Store(hello.ServerName)
			return &cert.Certificate, nil
		}}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- fs.run(runCtx, f) }()
	line := make([]byte, 200)
	n, err := out.Read(line)
	if err != nil {
		t.Fatal(err)
	}
	const want = "https://openlolo-fleet.tail-scale.ts.net/mcp"
	if got := strings.TrimSpace(string(line[:n])); got != want {
		t.Fatalf("fleet serve printed %q, want %q", got, want)
	}
	agent := tailnettest.StartNode(t, ctx, control, "agent")
	hc := &http.Client{Transport: &http.Transport{DialContext: agent.Dial, TLSClientConfig: boxtlsConfig(t, cert.Fingerprint())}}
	cs, err := connectMCP(ctx, want, hc)
	if err != nil {
		t.Fatalf("the agent connects over HTTPS: %v", err)
	}
	if ids := fleetPhoneIDs(t, ctx, cs); !slices.Equal(ids, []string{"openlolo-fn02/sim-1", "openlolo-fn02/sim-2"}) {
		t.Errorf("openlolo_phones over HTTPS = %v", ids)
	}
	cs.Close()
	if got := asked.Load(); got != "openlolo-fleet.tail-scale.ts.net" {
		t.Errorf("the handshake asked for a certificate for %q, want the node's cert domain", got)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("run = %v, want nil once stopped", err)
	}
}
