package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
)

// fakeClient is a Client of the server at url with a token that does not
// expire during the test.
func fakeClient(url string, hc *http.Client) *Client {
	return &Client{url: url, hc: hc, now: time.Now, store: &TokenStore{},
		box: Box{URL: url, AccessToken: "token", Expiry: time.Now().Add(time.Hour)}}
}

func TestNameBoxes(t *testing.T) {
	for _, tc := range []struct {
		names, urls, want []string
	}{
		{[]string{"openlolo-aa01", "openlolo-bb02"}, []string{"https://a.local", "https://b.local"}, []string{"openlolo-aa01", "openlolo-bb02"}},
		{[]string{"openlolo-e2e0", "openlolo-e2e0"}, []string{"https://127.0.0.1:4001", "https://127.0.0.1:4002"}, []string{"127.0.0.1:4001", "127.0.0.1:4002"}},
		{[]string{"", "a/b"}, []string{"https://x.ts.net", "https://[fe80::1]:8443"}, []string{"x.ts.net", "[fe80::1]:8443"}},
	} {
		var boxes []*FleetBox
		for i, n := range tc.names {
			boxes = append(boxes, &FleetBox{ID: n, Client: fakeClient(tc.urls[i], nil)})
		}
		nameBoxes(boxes)
		for i, b := range boxes {
			if b.ID != tc.want[i] {
				t.Errorf("names %v: box %d is %q, want %q", tc.names, i, b.ID, tc.want[i])
			}
		}
	}
}

func TestUnavailable(t *testing.T) {
	b := &FleetBox{ID: "openlolo-aa01", Client: fakeClient("https://openlolo-aa01.local", nil)}
	for _, tc := range []struct {
		name      string
		err       error
		code      api.Code
		retryable bool
		step      string
	}{
		{"off", &errTransport{errors.New("connection refused")}, api.CodePhoneUnavailable, true, "is on and reachable at https://openlolo-aa01.local"},
		{"revoked", ErrGrantRevoked, api.CodePhoneUnavailable, false, "openlolo pair https://openlolo-aa01.local"},
		{"pin", &PinMismatch{Want: "a", Got: "b"}, api.CodePhoneUnavailable, false, "pairs with the box again"},
		{"refused", &Refused{Code: "SCOPE_REQUIRED", Message: "no", NextSteps: []string{"ask"}}, api.CodeScopeRequired, false, "ask"},
	} {
		e := b.unavailable(tc.err)
		if e.Code != tc.code || e.Retryable != tc.retryable || !strings.Contains(strings.Join(e.NextSteps, " "), tc.step) || !strings.Contains(e.Message, b.ID) {
			t.Errorf("%s: %+v, want %s retryable %v with a step saying %q", tc.name, e, tc.code, tc.retryable, tc.step)
		}
	}
}

// bridgeOf is a fleet bridge over boxes whose tools are already listed.
func bridgeOf(boxes ...*FleetBox) *fleetBridge {
	return &fleetBridge{f: &Fleet{boxes: boxes, now: time.Now}, tools: []map[string]any{},
		kinds: map[string]toolKind{"openlolo_tap": {phone: true, mutating: true}, "openlolo_status": {phone: true}, "openlolo_watch": {}}}
}

// callAnswer runs one tools/call through b and returns structuredContent.
func callAnswer(t *testing.T, b *fleetBridge, tool string, args map[string]any) map[string]any {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	raw, err := b.call(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var r struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Content           []struct{ Text string }
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.StructuredContent["status"] == "failed" != r.IsError || len(r.Content) != 1 {
		t.Fatalf("%s: isError %v with %v, %d content blocks", tool, r.IsError, r.StructuredContent, len(r.Content))
	}
	return r.StructuredContent
}

func answerCode(sc map[string]any) string {
	e, _ := sc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// A box that takes the request and drops the connection before answering:
// an input may have run (OUTCOME_UNKNOWN), a read did not (PHONE_UNAVAILABLE).
func TestFleetBridgeDroppedConnection(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	b := bridgeOf(&FleetBox{ID: "aa", Client: fakeClient(srv.URL, srv.Client())})
	sc := callAnswer(t, b, "openlolo_tap", map[string]any{"phone": "aa/sim-1", "x": 0.5, "y": 0.5})
	if answerCode(sc) != string(api.CodeOutcomeUnknown) || sc["dispatched"] != nil {
		t.Errorf("tap on a dropped connection = %v, want OUTCOME_UNKNOWN without dispatched", sc)
	}
	sc = callAnswer(t, b, "openlolo_status", map[string]any{"phone": "aa/sim-1"})
	if answerCode(sc) != string(api.CodePhoneUnavailable) {
		t.Errorf("status on a dropped connection = %v, want PHONE_UNAVAILABLE", sc)
	}
}

func TestFleetBridgeRouting(t *testing.T) {
	off := httptest.NewTLSServer(http.NotFoundHandler())
	off.Close() // nothing listens: the connection is refused
	b := bridgeOf(&FleetBox{ID: "aa", Client: fakeClient(off.URL, off.Client())},
		&FleetBox{ID: "bb", Client: fakeClient(off.URL, off.Client())})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       api.Code
		step       string
	}{
		{"box off", "openlolo_tap", map[string]any{"phone": "bb/sim-1"}, api.CodePhoneUnavailable, "check that box bb is on"},
		{"phone not a string", "openlolo_tap", map[string]any{"phone": 3}, api.CodeInvalidArguments, ""},
		{"box not a string", "openlolo_watch", map[string]any{"box": true}, api.CodeInvalidArguments, ""},
		{"no box named", "openlolo_watch", nil, api.CodeInvalidArguments, "one of: aa, bb"},
		{"unknown box", "openlolo_watch", map[string]any{"box": "cc"}, api.CodeInvalidArguments, "one of: aa, bb"},
		{"unknown phone", "openlolo_status", map[string]any{"phone": "cc/sim-1"}, api.CodePhoneRequired, ""},
		{"no phone, no box answers", "openlolo_status", nil, api.CodePhoneRequired, ""},
	} {
		sc := callAnswer(t, b, tc.tool, tc.args)
		steps, _ := json.Marshal(sc["error"])
		if answerCode(sc) != string(tc.code) || !strings.Contains(string(steps), tc.step) {
			t.Errorf("%s: %v, want %s with a step saying %q", tc.name, sc, tc.code, tc.step)
		}
		if tc.name == "box off" && sc["dispatched"] != false {
			t.Errorf("%s: dispatched %v, want false (the connection was refused)", tc.name, sc["dispatched"])
		}
	}
}

func TestFleetBridgeMethods(t *testing.T) {
	off := httptest.NewTLSServer(http.NotFoundHandler())
	off.Close()
	b := bridgeOf(&FleetBox{ID: "aa", Client: fakeClient(off.URL, off.Client())})
	// No box answers initialize: the bridge still starts, with the
	// version asked for.
	raw, err := b.handle(context.Background(), "initialize", json.RawMessage(`{"protocolVersion":"2025-06-18"}`))
	var init map[string]any
	if err != nil || json.Unmarshal(raw, &init) != nil || init["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize with no box answering = %s, %v", raw, err)
	}
	if _, err := b.handle(context.Background(), "resources/list", nil); err == nil || !strings.Contains(err.Error(), "tools only") {
		t.Fatalf("resources/list = %v, want method not found saying the fleet serves tools only", err)
	}
	if raw, err := b.handle(context.Background(), "notifications/initialized", nil); raw != nil || err != nil {
		t.Fatalf("a notification answered %s, %v", raw, err)
	}
}

// Mutate on a box that refuses the connection says the call did not run
// (nothing was sent), not that a connection dropped twice with the
// outcome unknown; and it asks the box nothing more.
func TestMutateBoxOff(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	var dials atomic.Int32
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	_, err = fakeClient(url, hc).Mutate(t.Context(), "openlolo_key", map[string]any{"key": "home"})
	if err == nil || !strings.Contains(err.Error(), "did not run") || strings.Contains(err.Error(), "dropped") || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Mutate on a box that is off = %v, want an error that says the call did not run, wrapping ECONNREFUSED", err)
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("Mutate dialled %d times, want 1 (no retry, no operation status on a box that is not there)", n)
	}
}

// A listing a box did not answer is asked again after 5 s, not 30: a box
// back on takes the calls that name no phone within seconds.
func TestFleetRelistsSilentBoxSoon(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close() // the box is not answering
		}
	}))
	defer srv.Close()
	now := time.Unix(1_800_000_000, 0)
	f := &Fleet{boxes: []*FleetBox{{ID: "aa", Client: fakeClient(srv.URL, srv.Client())}}, now: func() time.Time { return now }}
	route := func() int32 {
		t.Helper()
		if _, _, e := f.route(t.Context(), ""); e == nil || e.Code != api.CodePhoneRequired {
			t.Fatalf("route with a silent box = %+v, want PHONE_REQUIRED", e)
		}
		return asked.Load()
	}
	first := route()
	if first == 0 {
		t.Fatal("the listing asked the box nothing")
	}
	now = now.Add(time.Second)
	if n := route(); n != first {
		t.Errorf("a call 1 s later asked the box again (%d requests, want %d): the listing is fresh", n, first)
	}
	now = now.Add(5 * time.Second)
	if n := route(); n == first {
		t.Errorf("a call 6 s after a listing the box did not answer used it again; want the box asked again")
	}
}
