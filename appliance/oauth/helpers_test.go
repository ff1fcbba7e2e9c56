package oauth

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// clock is a settable clock for the server under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is a real Server on a real SQLite file behind a real TLS
// listener on 127.0.0.1:0, with /whoami behind the bearer check.
type harness struct {
	t     testing.TB
	st    *store.Store
	srv   *Server
	ts    *httptest.Server
	clock *clock
}

type harnessOpt struct {
	entry string
	st    *store.Store
	clock *clock
	// realTime runs the server on time.Now (for x/oauth2's real polling).
	realTime bool
}

func newHarness(t testing.TB, opt harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, st: opt.st, clock: opt.clock}
	if h.st == nil {
		st, err := store.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		h.st = st
	}
	if h.clock == nil {
		h.clock = newClock()
	}
	now := h.clock.Now
	if opt.realTime {
		now = time.Now
	}
	srv, err := New(Config{Store: h.st, Entry: opt.entry, Now: now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.ts = httptest.NewTLSServer(h.mux())
	t.Cleanup(h.ts.Close)
	return h
}

func (h *harness) mux() *http.ServeMux {
	mux := http.NewServeMux()
	h.srv.Routes(mux)
	mux.Handle("GET /whoami", h.srv.Middleware(http.HandlerFunc(whoami)))
	return mux
}

// whoami answers the Caller the bearer check put into the context.
func whoami(w http.ResponseWriter, r *http.Request) {
	c, ok := CallerFrom(r.Context())
	if !ok {
		http.Error(w, "no caller", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(c)
}

// answer is one HTTP answer, decoded as a JSON object when it is one.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (a answer) str(k string) string { s, _ := a.body[k].(string); return s }
func (a answer) num(k string) int    { f, _ := a.body[k].(float64); return int(f) }

func (h *harness) do(req *http.Request) answer {
	h.t.Helper()
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	_ = json.Unmarshal(b, &a.body)
	return a
}

func (h *harness) post(path string, form url.Values) answer {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.do(req)
}

func (h *harness) postJSON(path string, body string) answer {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return h.do(req)
}

// whoami calls the protected endpoint with an access token.
func (h *harness) whoami(access string) answer {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.ts.URL+"/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+access)
	return h.do(req)
}

// ask posts a device authorization request and fails the test unless it is
// accepted.
func (h *harness) ask(name, scope, clientID string) answer {
	h.t.Helper()
	form := url.Values{"client_name": {name}, "scope": {scope}}
	if clientID != "" {
		form.Set("client_id", clientID)
	}
	a := h.post("/oauth/device_authorization", form)
	if a.status != http.StatusOK {
		h.t.Fatalf("device authorization: %d %s", a.status, a.raw)
	}
	return a
}

// handle is the request handle in a device authorization answer.
func handleOf(t testing.TB, a answer) string {
	t.Helper()
	u, err := url.Parse(a.str("verification_uri"))
	if err != nil || u.Query().Get("r") == "" {
		t.Fatalf("verification_uri %q has no handle", a.str("verification_uri"))
	}
	return u.Query().Get("r")
}

func (h *harness) poll(a answer) answer {
	h.t.Helper()
	return h.post("/token", url.Values{"grant_type": {DeviceCodeGrantType},
		"device_code": {a.str("device_code")}, "client_id": {a.str("client_id")}})
}

// pair runs the device flow with the owner approving for life and returns
// the token answer and the client_id.
func (h *harness) pair(name string, life Life) (tok answer, clientID string) {
	h.t.Helper()
	a := h.ask(name, "phone:read phone:control", "")
	if err := h.srv.Approve(context.Background(), handleOf(h.t, a), life); err != nil {
		h.t.Fatal(err)
	}
	tok = h.poll(a)
	if tok.status != http.StatusOK {
		h.t.Fatalf("device token: %d %s", tok.status, tok.raw)
	}
	return tok, a.str("client_id")
}

func (h *harness) refresh(rt, clientID string) answer {
	h.t.Helper()
	return h.post("/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}})
}

// wantError checks an RFC 6749 error answer.
func wantError(t testing.TB, a answer, status int, code string) {
	t.Helper()
	if a.status != status || a.str("error") != code {
		t.Fatalf("answer = %d %s, want %d error %q", a.status, a.raw, status, code)
	}
	if a.str("error_description") == "" {
		t.Errorf("error %q has no error_description", code)
	}
	if cc := a.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
}

// must returns v, panicking on err (for requests built from constants).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
