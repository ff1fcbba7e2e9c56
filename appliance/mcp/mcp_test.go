package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"image"
	_ "image/jpeg"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

var (
	readScope    = []string{oauth.ScopePhoneRead}
	controlScope = []string{oauth.ScopePhoneControl}
	bothScopes   = []string{oauth.ScopePhoneRead, oauth.ScopePhoneControl}
)

// box is an /mcp endpoint over real HTTPS with callers injected by a test
// middleware: "Bearer <name>" selects the caller registered under name.
type box struct {
	t       *testing.T
	srv     *httptest.Server
	ctl     *control.Service
	ph      phone.Phone
	clock   *controltest.Clock
	st      *store.Store
	mu      sync.Mutex
	callers map[string]*oauth.Caller
}

type boxOpts struct {
	phone  phone.Phone
	limits control.Limits
	clock  *controltest.Clock
	info   func() api.BoxInfo
	remote func() *api.RemoteEntry
}

func newBox(t testing.TB, o boxOpts) *box {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if o.clock == nil {
		o.clock = controltest.NewClock(time.Now())
	}
	if o.phone == nil {
		o.phone = controltest.New(o.clock.Now)
	}
	ctl, err := control.New(ctx, control.Config{Store: st, Phone: o.phone, Now: o.clock.Now, Limits: o.limits})
	if err != nil {
		t.Fatal(err)
	}
	if o.info == nil {
		o.info = func() api.BoxInfo { return api.BoxInfo{Name: "openlolo-test", Version: "test"} }
	}
	h, err := mcp.New(mcp.Config{Control: ctl, Info: o.info, Remote: o.remote})
	if err != nil {
		t.Fatal(err)
	}
	b := &box{ctl: ctl, ph: o.phone, clock: o.clock, st: st, callers: map[string]*oauth.Caller{}}
	if tt, ok := t.(*testing.T); ok {
		b.t = tt
	}
	mux := http.NewServeMux()
	h.Routes(mux, b.auth)
	b.srv = httptest.NewTLSServer(mux)
	t.Cleanup(func() { b.srv.Close(); cancel(); st.Close() })
	return b
}

// auth stands in for oauth.Server.Middleware: it maps the bearer token to
// a registered caller, 401 otherwise.
func (b *box) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		b.mu.Lock()
		c := b.callers[name]
		b.mu.Unlock()
		if c == nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(oauth.ContextWithCaller(r.Context(), c)))
	})
}

func (b *box) closeStore() { b.st.Close() }

func (b *box) addCaller(name string, scopes []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.callers[name] = &oauth.Caller{ClientID: "id-" + name, ClientName: name, GrantID: "grant-" + name, Entry: "lan", Scopes: scopes}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// session connects the official go-sdk client as caller name.
func (b *box) session(t testing.TB, name string, scopes []string) *sdk.ClientSession {
	b.addCaller(name, scopes)
	hc := &http.Client{Transport: bearer{token: name, base: b.srv.Client().Transport}}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-" + name, Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: b.srv.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns the result and its structured content.
func call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("%s: structuredContent is %T", name, res.StructuredContent)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content blocks", name)
	}
	if _, ok := res.Content[0].(*sdk.TextContent); !ok {
		t.Fatalf("%s: first block is %T, want text", name, res.Content[0])
	}
	if res.IsError != (sc["status"] == "failed") {
		t.Fatalf("%s: isError %v with status %v", name, res.IsError, sc["status"])
	}
	return res, sc
}

func code(sc map[string]any) api.Code {
	e, _ := sc["error"].(map[string]any)
	s, _ := e["code"].(string)
	return api.Code(s)
}

func mustOK(t testing.TB, name string, sc map[string]any) {
	t.Helper()
	if sc["status"] != "ok" {
		t.Fatalf("%s: %v", name, sc)
	}
}

func frameArgs(sc map[string]any, x, y float64) map[string]any {
	return map[string]any{"frame_id": sc["frame_id"], "geometry_epoch": sc["geometry_epoch"], "x": x, "y": y, "observe": false}
}

func TestClientFlowFakePhone(t *testing.T) {
	ph := controltest.New(nil)
	b := newBox(t, boxOpts{phone: ph})
	cs := b.session(t, "agent", bothScopes)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The fake phone has no clipboard: no send_text, no clipboard.
	if len(tools.Tools) != 26 {
		t.Fatalf("tools/list has %d tools, want 26", len(tools.Tools))
	}
	for _, tl := range tools.Tools {
		if tl.Name == "openlolo_send_text" || tl.Name == "openlolo_clipboard" {
			t.Errorf("tools/list offers %s for a phone without a clipboard", tl.Name)
		}
	}
	res, shot := call(t, cs, "openlolo_screenshot", map[string]any{"max_size": 128})
	mustOK(t, "screenshot", shot)
	img, ok := res.Content[1].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/jpeg" {
		t.Fatalf("second block %T, want a JPEG image", res.Content[1])
	}
	pic, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if got := pic.Bounds().Size(); got != image.Pt(72, 128) || shot["width"] != float64(72) || shot["native_height"] != float64(160) {
		t.Fatalf("image %v, fields %v", got, shot)
	}
	_, tap := call(t, cs, "openlolo_tap", frameArgs(shot, 0.5, 0.5))
	mustOK(t, "tap", tap)
	if tap["dispatched"] != true || tap["operation_id"] == "" || tap["state"] != "succeeded" {
		t.Fatalf("tap answer %v", tap)
	}
	res, typed := call(t, cs, "openlolo_type_text", map[string]any{"text": "Hello, box!", "settle": 0})
	mustOK(t, "type", typed)
	obs, _ := typed["observation"].(map[string]any)
	if obs["frame_id"] == nil || len(res.Content) != 2 {
		t.Fatalf("observe did not add a screenshot: %v", typed)
	}
	if ph.Typed() != "Hello, box!" {
		t.Fatalf("phone got %q", ph.Typed())
	}
	_, home := call(t, cs, "openlolo_button", map[string]any{"button": "home", "observe": false})
	mustOK(t, "home", home)
	_, st := call(t, cs, "openlolo_status", nil)
	mustOK(t, "status", st)
	you := st["you"].(map[string]any)
	ctl := st["control"].(map[string]any)
	if you["client_name"] != "agent" || ctl["you_hold"] != true || st["calls_left"] != float64(120-5) {
		t.Fatalf("status %v", st)
	}
}

func TestToolsListByScope(t *testing.T) {
	b := newBox(t, boxOpts{})
	cases := []struct {
		scopes []string
		n      int
		has    string
		hasNot string
	}{
		{readScope, 13, "openlolo_app_profile", "openlolo_clipboard"},
		{controlScope, 13, "openlolo_full_page", "openlolo_screenshot"},
		{bothScopes, 26, "openlolo_watch", "openlolo_send_text"},
		{nil, 0, "", "openlolo_status"},
	}
	for i, c := range cases {
		cs := b.session(t, fmt.Sprintf("c%d", i), c.scopes)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			// No title: it would cost every agent's context (api.ToolsListBudget).
			if tl.Title != "" || len(tl.Description) < 40 || tl.InputSchema == nil || tl.OutputSchema == nil || tl.Annotations == nil {
				t.Errorf("tool %s has a title, or lacks a description, schemas or annotations", tl.Name)
			}
		}
		if len(names) != c.n || (c.has != "" && !slices.Contains(names, c.has)) || (c.hasNot != "" && slices.Contains(names, c.hasNot)) {
			t.Errorf("scopes %v: tools %v", c.scopes, names)
		}
	}
}

// post sends one raw JSON-RPC request the way curl does (no initialize).
func (b *box) post(t *testing.T, token, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp, buf.Bytes()
}

func TestStatelessNoInitialize(t *testing.T) {
	b := newBox(t, boxOpts{})
	b.addCaller("curl", bothScopes)
	resp, body := b.post(t, "curl", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}`, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("status %d, type %q, session %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id"), body)
	}
	var rpc struct {
		Result struct {
			StructuredContent map[string]any
			Content           []map[string]any
			IsError           bool
		}
	}
	if err := json.Unmarshal(body, &rpc); err != nil || rpc.Result.StructuredContent["status"] != "ok" || rpc.Result.IsError {
		t.Fatalf("answer %s (%v)", body, err)
	}
	for _, c := range []struct {
		body string
		code int
		has  string
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, 200, `"protocolVersion":"2025-06-18"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, 200, `"result":{}`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, 200, `"openlolo_tap"`},
	} {
		resp, body := b.post(t, "curl", c.body, nil)
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.has) {
			t.Errorf("%s: %d %s", c.body, resp.StatusCode, body)
		}
	}
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		resp, body := b.post(t, "curl", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"openlolo_status"}}`, map[string]string{"Mcp-Protocol-Version": v})
		if resp.StatusCode != 200 {
			t.Errorf("protocol %s: %d %s", v, resp.StatusCode, body)
		}
	}
	// 2026-07-28 (SEP-2575): per-request _meta and the standard headers.
	resp, body = b.post(t, "curl", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"openlolo_status","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "openlolo_status"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"ok"`) {
		t.Errorf("protocol 2026-07-28: %d %s", resp.StatusCode, body)
	}
	// With _meta structured the text block is the JSON itself.
	_, body = b.post(t, "curl", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"openlolo_status","arguments":{},"_meta":{"openlolo.mcp":{"structured":true}}}}`, nil)
	json.Unmarshal(body, &rpc)
	var inText map[string]any
	if err := json.Unmarshal([]byte(rpc.Result.Content[0]["text"].(string)), &inText); err != nil || inText["status"] != "ok" {
		t.Fatalf("structured text block %v (%v)", rpc.Result.Content[0], err)
	}
	// Without it, a sentence.
	_, body = b.post(t, "curl", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}`, nil)
	json.Unmarshal(body, &rpc)
	if txt := rpc.Result.Content[0]["text"].(string); !strings.HasPrefix(txt, "The phone is ready") {
		t.Fatalf("text block %q", txt)
	}
}

func TestMalformedCallsAreJSONRPCErrors(t *testing.T) {
	b := newBox(t, boxOpts{})
	b.addCaller("x", bothScopes)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":[1,2]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_tap","arguments":"x"}}`,
	} {
		_, resp := b.post(t, "x", body, nil)
		var rpc struct {
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal(resp, &rpc); err != nil || rpc.Error == nil || rpc.Result != nil {
			t.Errorf("%s → %s, want a JSON-RPC error", body, resp)
		}
	}
}

func TestMethodsAndBodyLimit(t *testing.T) {
	b := newBox(t, boxOpts{})
	b.addCaller("x", bothScopes)
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(m, b.srv.URL+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer x")
		resp, err := b.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: %d, Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	pad := strings.Repeat("a", mcp.MaxBody)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{"pad":"` + pad + `"}}}`
	resp, _ := b.post(t, "x", big, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d-byte body: %d, want 413", len(big), resp.StatusCode)
	}
	// The same without Content-Length (chunked) is caught while reading.
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/mcp", struct{ *strings.Reader }{strings.NewReader(big)})
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp2, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked oversized body: %d, want 413", resp2.StatusCode)
	}
	// A body of exactly 64 KiB is read (and its unknown argument refused
	// as a tool answer, not as size).
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{"pad":"`
	tail := `"}}}`
	exact := head + strings.Repeat("a", mcp.MaxBody-len(head)-len(tail)) + tail
	resp, body := b.post(t, "x", exact, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "INVALID_ARGUMENTS") {
		t.Fatalf("a %d-byte body: %d %.200s", len(exact), resp.StatusCode, body)
	}
}

// TestJSONRPCIDEchoed pins issue 22 D5: the go-sdk reads a numeric id as
// a float64 and then an int64, so "id":18446744073709551616 came back as
// -9223372036854775808. Every id comes back exactly as sent, in answers
// and in errors.
func TestJSONRPCIDEchoed(t *testing.T) {
	b := newBox(t, boxOpts{})
	b.addCaller("x", bothScopes)
	for _, id := range []string{`18446744073709551616`, `9007199254740993`, `-9223372036854775809`, `1.5`, `1e3`, `-0`,
		`7`, `0`, `-12`, `"s"`, `"openlolo-id-x"`} {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"openlolo_nope","arguments":{}}}`,
		} {
			resp, got := b.post(t, "x", body, nil)
			var rpc struct{ ID json.RawMessage }
			if err := json.Unmarshal(got, &rpc); err != nil || string(rpc.ID) != id {
				t.Errorf("%s → %d %s, want the id %s", body, resp.StatusCode, got, id)
			}
		}
	}
}
