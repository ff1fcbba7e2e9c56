package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/store"
)

const testIssuer = "https://openlolo-test.local"

// discoveryHandler is an endpoint with no HTTP around it, for rendering
// the discovery documents.
func discoveryHandler(t *testing.T) *mcp.Handler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clock := controltest.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	ph := controltest.New(clock.Now)
	ctl, err := control.New(ctx, control.Config{Store: st, Phone: ph, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcp.New(mcp.Config{Control: ctl, Info: func() api.BoxInfo { return api.BoxInfo{Name: "openlolo-test", Version: "v1.2.3"} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); st.Close() })
	return h
}

// goldenText compares got with testdata/name, or rewrites it under -update.
func goldenText(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *mcp.UpdateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, firstDiff(want, got))
	}
}

func TestLLMsTxtGolden(t *testing.T) {
	got, err := discoveryHandler(t).LLMsTxt(testIssuer)
	if err != nil {
		t.Fatal(err)
	}
	goldenText(t, "llms.txt", got)
}

func TestServerCardGolden(t *testing.T) {
	got, err := json.MarshalIndent(discoveryHandler(t).ServerCard(testIssuer), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenText(t, "server-card.json", append(got, '\n'))
}

// listedTools is tools/list as a caller with both scopes gets it, each
// tool as its raw JSON by name, in order.
func listedTools(t *testing.T) ([]string, map[string]json.RawMessage) {
	b := newBox(t, boxOpts{})
	b.addCaller("lister", bothScopes)
	_, body := b.post(t, "lister", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	var rpc struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil || len(rpc.Result.Tools) == 0 {
		t.Fatalf("tools/list: %s (%v)", body, err)
	}
	var names []string
	byName := map[string]json.RawMessage{}
	for _, raw := range rpc.Result.Tools {
		var n struct{ Name string }
		json.Unmarshal(raw, &n)
		names = append(names, n.Name)
		byName[n.Name] = raw
	}
	return names, byName
}

// The card's tools are tools/list's, definition for definition; llms.txt
// names every tool and every stable error code, and the entry's URLs.
func TestDiscoveryFollowsToolsList(t *testing.T) {
	names, byName := listedTools(t)
	h := discoveryHandler(t)

	cardJSON, _ := json.Marshal(h.ServerCard(testIssuer))
	var card struct {
		Schema  string            `json:"$schema"`
		Name    string            `json:"name"`
		Version string            `json:"version"`
		Tools   []json.RawMessage `json:"tools"`
		Remotes []struct {
			Type, URL                 string
			SupportedProtocolVersions []string
		} `json:"remotes"`
	}
	if err := json.Unmarshal(cardJSON, &card); err != nil {
		t.Fatal(err)
	}
	if card.Schema != mcp.ServerCardSchema || strings.Count(card.Name, "/") != 1 || card.Version != "1.2.3" {
		t.Errorf("card identity: %s %s %s", card.Schema, card.Name, card.Version)
	}
	if len(card.Remotes) != 1 || card.Remotes[0].Type != "streamable-http" || card.Remotes[0].URL != testIssuer+"/mcp" ||
		len(card.Remotes[0].SupportedProtocolVersions) == 0 {
		t.Errorf("card remotes: %+v", card.Remotes)
	}
	if len(card.Tools) != len(names) {
		t.Fatalf("the card has %d tools, tools/list %d", len(card.Tools), len(names))
	}
	for i, raw := range card.Tools {
		var n struct{ Name string }
		json.Unmarshal(raw, &n)
		if n.Name != names[i] {
			t.Errorf("card tool %d is %s, tools/list has %s", i, n.Name, names[i])
			continue
		}
		var a, b any
		json.Unmarshal(raw, &a)
		json.Unmarshal(byName[n.Name], &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("card's %s differs from tools/list's:\ncard %s\nlist %s", n.Name, ja, jb)
		}
	}

	txt, err := h.LLMsTxt(testIssuer)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !bytes.Contains(txt, []byte("`"+n+"`")) {
			t.Errorf("llms.txt does not list %s", n)
		}
	}
	for _, c := range api.Codes() {
		if !bytes.Contains(txt, []byte("- "+string(c))) {
			t.Errorf("llms.txt does not explain %s", c)
		}
	}
	for _, want := range []string{testIssuer + "/mcp", testIssuer + "/.well-known/oauth-protected-resource",
		testIssuer + "/oauth/device_authorization", testIssuer + "/oauth/register", "phone:control", "120 tool calls per minute"} {
		if !bytes.Contains(txt, []byte(want)) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}
}

// Over HTTP: public, CORS-readable, the issuer of the entry asked, and the
// card at both its SEP-2127 path and the .json name.
func TestDiscoveryRoutes(t *testing.T) {
	h := discoveryHandler(t)
	mux := http.NewServeMux()
	h.DiscoveryRoutes(mux, func(r *http.Request) string { return "https://" + r.Host })
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	res, txt := get(mcp.LLMsTxtPath)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
		!bytes.Contains(txt, []byte(srv.URL+"/mcp")) || !bytes.HasPrefix(txt, []byte("# ")) {
		t.Errorf("GET /llms.txt: %d %q: %.200s", res.StatusCode, res.Header.Get("Content-Type"), txt)
	}
	res, card := get(mcp.ServerCardPath)
	_, alt := get(mcp.ServerCardPathAlt)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || !bytes.Equal(card, alt) ||
		!bytes.Contains(card, []byte(`"url": "`+srv.URL+`/mcp"`)) {
		t.Errorf("GET server card: %d %q, same at both paths: %t: %.300s", res.StatusCode, res.Header.Get("Content-Type"), bytes.Equal(card, alt), card)
	}
	for _, p := range []string{mcp.LLMsTxtPath, mcp.ServerCardPath} {
		res, _ := get(p)
		if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Methods") != "GET" {
			t.Errorf("%s: no CORS for browser-based clients: %v", p, res.Header)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+mcp.ServerCardPath, nil)
	if res, err := srv.Client().Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the card: %v %v, want 405", res.StatusCode, err)
	}
}
