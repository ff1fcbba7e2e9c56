package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/tailcfg"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/sdk"
)

// pairedServe starts openlolo serve named name with two simulated
// phones, claims it and pairs store with it (both scopes, 30 days).
func pairedServe(t *testing.T, store *sdk.TokenStore, name string) *served {
	t.Helper()
	s := startServe(t, "--state", filepath.Join(t.TempDir(), "state"), "--lan", "127.0.0.1:0", "--mdns=false",
		"--phone", "sim", "--sims", "2", "--sim-size", "300x600", "--name", name)
	base := strings.TrimSuffix(s.value(t, 0, "LAN URL"), "/")
	fp := s.value(t, 1, "Fingerprint")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	owner := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: boxtlsConfig(t, fp)}}
	ownertest.Claim(t, owner, base, s.value(t, 3, "Setup code"), "correct horse battery")
	_, err = sdk.Pair(t.Context(), base, sdk.PairOptions{
		ClientName: "fleet test", Pin: fp, Store: store,
		Prompt: func(_, code, _ string) { ownertest.Approve(t, owner, base, code, ownertest.Life30d) },
		Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatalf("pair with %s: %v", name, err)
	}
	return s
}

// fakeWhoIs answers every WhoIs with res, or err.
type fakeWhoIs struct {
	res *apitype.WhoIsResponse
	err error
}

func (f fakeWhoIs) WhoIs(context.Context, string) (*apitype.WhoIsResponse, error) {
	return f.res, f.err
}

// whoIsNode is a WhoIs answer for a node of user login with tags.
func whoIsNode(name, login string, tags ...string) *apitype.WhoIsResponse {
	return &apitype.WhoIsResponse{
		Node:        &tailcfg.Node{Name: name + ".tail-scale.ts.net.", Tags: tags},
		UserProfile: &tailcfg.UserProfile{LoginName: login},
	}
}

// connectMCP connects a go-sdk MCP client to the endpoint at url.
func connectMCP(ctx context.Context, url string, hc *http.Client) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
}

// fleetPhoneIDs lists the tools and calls openlolo_phones through cs, and
// returns the phone ids it answered; openlolo_status on the first goes
// through to its box.
func fleetPhoneIDs(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"openlolo_phones", "openlolo_screenshot", "openlolo_tap"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools/list = %v, want %s in it", names, want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_phones"})
	if err != nil || res.IsError {
		t.Fatalf("openlolo_phones = %+v, %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var sc struct {
		Phones []struct{ ID string }
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatalf("openlolo_phones' structuredContent %s: %v", raw, err)
	}
	var ids []string
	for _, p := range sc.Phones {
		ids = append(ids, p.ID)
	}
	if len(ids) > 0 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_status", Arguments: map[string]any{"phone": ids[0]}})
		if err != nil || res.IsError {
			t.Fatalf("openlolo_status on %s = %+v, %v", ids[0], res, err)
		}
	}
	return ids
}

// TestFleetEndpoint: the fleet endpoint over HTTP, its caller told by a
// fake WhoIs: a go-sdk client lists the tools and the fleet's phones; the
// request is logged with the caller; a caller --allow leaves out, and one
// WhoIs does not know, get 403 with a JSON-RPC error the client shows;
// with the box stopped, tools/list fails with the fleet's error and a
// call to its phone is PHONE_UNAVAILABLE.
func TestFleetEndpoint(t *testing.T) {
	t.Parallel()
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	box := pairedServe(t, store, "openlolo-fs01")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	serve := func(who whoIs, allow ...string) string {
		h := newFleetEndpoint(sdk.NewFleetRouter(f), who, allow, log)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	alice := whoIsNode("laptop", "alice@example.com")
	agent := whoIsNode("runner", "tagged-devices", "tag:agents")

	for _, tt := range []struct {
		name  string
		who   *apitype.WhoIsResponse
		allow []string
	}{
		{"any caller", alice, nil},
		{"allowed by login", alice, []string{"tag:ci", "ALICE@example.com"}},
		{"allowed by tag", agent, []string{"tag:agents"}},
	} {
		cs, err := connectMCP(ctx, serve(fakeWhoIs{res: tt.who}, tt.allow...), nil)
		if err != nil {
			t.Fatalf("%s: connect: %v", tt.name, err)
		}
		if got, want := cs.InitializeResult().ServerInfo.Name, sdk.FleetServerName; got != want {
			t.Errorf("%s: serverInfo.name = %q, want %q", tt.name, got, want)
		}
		ids := fleetPhoneIDs(t, ctx, cs)
		if want := []string{"openlolo-fs01/sim-1", "openlolo-fs01/sim-2"}; !slices.Equal(ids, want) {
			t.Errorf("%s: openlolo_phones = %v, want %v", tt.name, ids, want)
		}
		cs.Close()
	}
	// A screenshot's picture passes through whole.
	cs, err := connectMCP(ctx, serve(fakeWhoIs{res: alice}), nil)
	if err != nil {
		t.Fatal(err)
	}
	shot, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_screenshot", Arguments: map[string]any{"phone": "openlolo-fs01/sim-2", "format": "png"}})
	if err != nil || shot.IsError {
		t.Fatalf("openlolo_screenshot = %+v, %v", shot, err)
	}
	var png []byte
	for _, c := range shot.Content {
		if img, ok := c.(*mcp.ImageContent); ok && img.MIMEType == "image/png" {
			png = img.Data
		}
	}
	if !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("openlolo_screenshot's content = %v, want a PNG image block", shot.Content)
	}
	cs.Close()
	for _, want := range []string{"node=laptop.tail-scale.ts.net user=alice@example.com", "node=runner.tail-scale.ts.net user=tagged-devices tags=[tag:agents]"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log has no request by %q:\n%s", want, logs)
		}
	}

	for _, tt := range []struct {
		name string
		who  fakeWhoIs
		want string
	}{
		{"not allowed", fakeWhoIs{res: alice}, "tailnet node laptop.tail-scale.ts.net (user alice@example.com) may not use this fleet endpoint: it serves only tag:agents, bob@example.com"},
		{"tag not allowed", fakeWhoIs{res: whoIsNode("runner", "tagged-devices", "tag:ci")}, "(user tagged-devices, tags tag:ci) may not use"},
		{"unknown", fakeWhoIs{err: errors.New("peer not found")}, "could not tell which tailnet node sent this request (peer not found)"},
	} {
		url := serve(tt.who, "tag:agents", "bob@example.com")
		_, err := connectMCP(ctx, url, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: connect = %v, want Forbidden with %q", tt.name, err, tt.want)
		}
		res, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var msg struct {
			ID    any
			Error struct {
				Code    int
				Message string
			}
		}
		json.Unmarshal(body, &msg)
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Content-Type") != "application/json" ||
			msg.ID != 1.0 || msg.Error.Code != rpcCallerRefused || !strings.Contains(msg.Error.Message, tt.want) {
			t.Errorf("%s: POST = %d %s %s, want 403 with a JSON-RPC error %d naming %q", tt.name, res.StatusCode, res.Header.Get("Content-Type"), body, rpcCallerRefused, tt.want)
		}
	}
	if !strings.Contains(logs.String(), "caller refused") {
		t.Errorf("the log has no refusal:\n%s", logs)
	}

	// The box stops: a fresh endpoint cannot list tools (the fleet's
	// JSON-RPC error passes through), and a call to its phone is a tool
	// answer PHONE_UNAVAILABLE.
	box.stop()
	cs, err = connectMCP(ctx, serve(fakeWhoIs{res: alice}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "no box of the fleet listed its tools") {
		t.Errorf("tools/list with the box off = %v, want the fleet's error", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_screenshot", Arguments: map[string]any{"phone": "openlolo-fs01/sim-2"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(raw), `"PHONE_UNAVAILABLE"`) {
		t.Errorf("openlolo_screenshot with the box off = %s (isError %v), want PHONE_UNAVAILABLE", raw, res.IsError)
	}
}

func TestAllowList(t *testing.T) {
	t.Parallel()
	var a allowList
	for _, v := range []string{"alice@example.com, tag:agents", "bob@github"} {
		if err := a.Set(v); err != nil {
			t.Fatalf("Set(%q): %v", v, err)
		}
	}
	if got, want := a.String(), "alice@example.com,tag:agents,bob@github"; got != want {
		t.Errorf("allow = %q, want %q", got, want)
	}
	for _, bad := range []string{"bob", "tag:", "tag:a b", "", "alice@example.com,,tag:x", "a b@c"} {
		var b allowList
		if err := b.Set(bad); err == nil || !strings.Contains(err.Error(), "nor a node tag") {
			t.Errorf("Set(%q) = %v, want an error naming what --allow takes", bad, err)
		}
	}
	for _, tt := range []struct {
		allow  allowList
		caller fleetCaller
		want   bool
	}{
		{nil, fleetCaller{Login: "anyone@x"}, true},
		{a, fleetCaller{Login: "Alice@Example.com"}, true},
		{a, fleetCaller{Login: "tagged-devices", Tags: []string{"tag:ci", "tag:agents"}}, true},
		{a, fleetCaller{Login: "carol@example.com"}, false},
		{a, fleetCaller{Login: "tagged-devices", Tags: []string{"tag:ci"}}, false},
		{allowList{"tag:agents"}, fleetCaller{Login: "tag:agents"}, false},
	} {
		if got := tt.allow.permits(tt.caller); got != tt.want {
			t.Errorf("%v permits %+v = %v, want %v", tt.allow, tt.caller, got, tt.want)
		}
	}
}

// TestFleetServeCommandLine: the help text, and the mistakes refused
// before any tailnet node starts.
func TestFleetServeCommandLine(t *testing.T) {
	t.Parallel()
	empty, paired := filepath.Join(t.TempDir(), "empty.json"), storeWithGrant(t)
	tests := []struct {
		store  string
		args   []string
		code   int
		stderr []string
	}{
		{empty, []string{"fleet"}, 2, []string{"give a subcommand: openlolo fleet serve"}},
		{empty, []string{"fleet", "frob"}, 2, []string{"give a subcommand"}},
		{empty, []string{"fleet", "-h"}, 0, []string{"usage: openlolo fleet serve", "WireGuard"}},
		{empty, []string{"fleet", "serve", "-h"}, 0, []string{"usage: openlolo fleet serve", "-allow", "-hostname", "-state", "-authkey", "$TS_AUTHKEY", "-control-url",
			"https://NAME.TAILNET.ts.net/mcp", "plain HTTP on port 80", "WireGuard", "403", "no state of its own", "side by side"}},
		{empty, []string{"fleet", "serve", "--allow", "bob"}, 2, []string{`"bob" is neither a tailnet user's login`}},
		{empty, []string{"fleet", "serve", "extra"}, 2, []string{"takes no arguments"}},
		{empty, []string{"fleet", "serve"}, exitConnect, []string{"holds no grant for any box"}},
		{paired, []string{"fleet", "serve", "--state", filepath.Join(paired, "node")}, 1, []string{"the tailnet node's folder: mkdir"}},
	}
	for _, tt := range tests {
		var out, errb lockedBuffer
		code := Main(t.Context(), &Context{Stdout: &out, Stderr: &errb, Args: tt.args, Env: []string{"OPENLOLO_STORE=" + tt.store}})
		for _, want := range tt.stderr {
			if code != tt.code || !strings.Contains(errb.String(), want) {
				t.Errorf("openlolo %q = %d, stderr %q; want %d with %q", tt.args, code, errb.String(), tt.code, want)
			}
		}
	}
	if code, stdout, _ := run(t, "", "help"); code != 0 || !strings.Contains(stdout, "fleet ") {
		t.Errorf("openlolo help = %d %q, want the fleet command listed", code, stdout)
	}
}

// TestFleetServeNoTempFolder: without --state the node's folder is a
// temporary one; when none can be made, fleet serve says so.
func TestFleetServeNoTempFolder(t *testing.T) {
	paired := storeWithGrant(t)
	t.Setenv("TMPDIR", paired) // a file: no folder can be made in it
	var out, errb lockedBuffer
	code := Main(t.Context(), &Context{Stdout: &out, Stderr: &errb, Args: []string{"fleet", "serve"}, Env: []string{"OPENLOLO_STORE=" + paired}})
	if want := "make a folder for the tailnet node: "; code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("fleet serve with no temporary folder = %d, stderr %q; want 1 with %q", code, errb.String(), want)
	}
}

// storeWithGrant is a token store holding a grant for a box that is not
// running (opening the fleet asks it nothing).
func storeWithGrant(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "boxes.json")
	if err := (&sdk.TokenStore{Path: p}).Put(sdk.Box{URL: "https://openlolo-1a2b.local", Name: "openlolo-1a2b", Entry: "lan", RefreshToken: "r"}); err != nil {
		t.Fatal(err)
	}
	return p
}
