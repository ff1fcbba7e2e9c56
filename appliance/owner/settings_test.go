package owner_test

import (
	"context"
	"errors"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// fakeTailnet stands in for the remote entry behind owner.Tailnet (the
// appliance's adapter over entry.Tailnet implements the same interface).
type fakeTailnet struct {
	mu      sync.Mutex
	view    owner.TailnetView
	keys    []string
	logouts int
}

var _ owner.Tailnet = (*fakeTailnet)(nil)

func (f *fakeTailnet) TailnetStatus() owner.TailnetView {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view
}

func (f *fakeTailnet) SetTailnet(ctx context.Context, on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.view.Enabled = on
	f.view.State = "off"
	if on {
		f.view.State = "needs_login"
	}
	return nil
}

func (f *fakeTailnet) TailnetLogin(ctx context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasPrefix(key, "tskey-") {
		return errors.New("that is not a Tailscale auth key")
	}
	f.keys = append(f.keys, key)
	return nil
}

func (f *fakeTailnet) TailnetLogout(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logouts++
	return nil
}

// visitorHeader carries the test's stand-in for the WhoIs answer.
const visitorHeader = "X-Test-Tailnet-Login"

// tailnetBox is a claimed box page whose Visitor is the visitorHeader.
func tailnetBox(t *testing.T, tn owner.Tailnet) (baseURL string, srv *httptest.Server, st *store.Store) {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	as, err := oauth.New(oauth.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := owner.Config{Store: st, OAuth: as, Visitor: func(r *http.Request) (string, bool) {
		v := r.Header.Get(visitorHeader)
		return v, v != ""
	}}
	if tn != nil {
		cfg.Tailnet = tn
	}
	pages, err := owner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	owner.VerifyRendering(t, pages)
	mux := http.NewServeMux()
	pages.Routes(mux)
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	code, _, err := pages.SetupCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ownertest.Claim(t, ownertest.NewClient(t, srv), srv.URL, code, testPass)
	return srv.URL, srv, st
}

// as returns a client that presents login as its tailnet identity ("":
// a LAN visit).
func as(t *testing.T, srv *httptest.Server, login string) *http.Client {
	c := ownertest.NewClient(t, srv)
	if login != "" {
		c.Transport = headerTransport{next: c.Transport, login: login}
	}
	return c
}

type headerTransport struct {
	next  http.RoundTripper
	login string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(visitorHeader, h.login)
	return h.next.RoundTrip(r)
}

func TestSettingsTailnetSwitchAndKey(t *testing.T) {
	t.Parallel()
	tn := &fakeTailnet{view: owner.TailnetView{State: "off"}}
	base, srv, _ := tailnetBox(t, tn)
	c := as(t, srv, "")
	ownertest.Login(t, c, base, testPass)

	res, body := ownertest.Get(t, c, base, "/settings")
	if res.StatusCode != 200 || !strings.Contains(body, "Turn the remote entry on") {
		t.Fatalf("GET /settings: %d %s", res.StatusCode, ownertest.Text(body))
	}
	tok := ownertest.FormToken(body)
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet", url.Values{"csrf": {tok}, "on": {"1"}})
	if res.StatusCode != 200 || !tn.TailnetStatus().Enabled || !strings.Contains(body, "The remote entry is turning on") ||
		!strings.Contains(body, "Log in with the key") {
		t.Fatalf("turn on: %d enabled=%v %s", res.StatusCode, tn.TailnetStatus().Enabled, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet/authkey", url.Values{"csrf": {tok}, "authkey": {"hello"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not a Tailscale auth key") {
		t.Errorf("bad key: %d %s", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet/authkey", url.Values{"csrf": {tok}, "authkey": {"tskey-auth-123"}})
	if res.StatusCode != 200 || !strings.Contains(body, "The key was not stored") || len(tn.keys) != 1 || tn.keys[0] != "tskey-auth-123" {
		t.Errorf("good key: %d keys=%q %s", res.StatusCode, tn.keys, ownertest.Text(body))
	}
	if strings.Contains(body, "tskey-auth-123") {
		t.Errorf("the page shows the pasted key back")
	}
	tn.mu.Lock()
	tn.view.State, tn.view.DNSName, tn.view.Reason = "running", "openlolo-test.tail-scale.ts.net", ""
	tn.mu.Unlock()
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet/logout", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || tn.logouts != 1 || !strings.Contains(body, "logged out of its tailnet") {
		t.Errorf("logout: %d logouts=%d %s", res.StatusCode, tn.logouts, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet", url.Values{"csrf": {tok}, "on": {"0"}})
	if res.StatusCode != 200 || tn.TailnetStatus().Enabled || !strings.Contains(body, "The remote entry is off") {
		t.Errorf("turn off: %d %s", res.StatusCode, ownertest.Text(body))
	}
	// A form without the session's token changes nothing.
	res, _ = ownertest.PostForm(t, c, base, "/settings/tailnet", url.Values{"csrf": {"forged"}, "on": {"1"}})
	if res.StatusCode != http.StatusForbidden || tn.TailnetStatus().Enabled {
		t.Errorf("forged form: %d enabled=%v, want 403 and still off", res.StatusCode, tn.TailnetStatus().Enabled)
	}
}

func TestSettingsWithoutTailnet(t *testing.T) {
	t.Parallel()
	base, srv, _ := tailnetBox(t, nil)
	c := as(t, srv, "")
	ownertest.Login(t, c, base, testPass)
	res, body := ownertest.Get(t, c, base, "/settings")
	if res.StatusCode != 200 || !strings.Contains(body, "built without a remote entry") {
		t.Fatalf("GET /settings: %d %s", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, base, "/settings/tailnet", url.Values{"csrf": {ownertest.FormToken(body)}, "on": {"1"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "has no remote entry") {
		t.Fatalf("switch: %d %s", res.StatusCode, ownertest.Text(body))
	}
}

func TestTailnetLinkedLogin(t *testing.T) {
	t.Parallel()
	base, srv, st := tailnetBox(t, &fakeTailnet{})
	// Linking needs a tailnet visit: on the LAN the box cannot tell.
	lan := as(t, srv, "")
	ownertest.Login(t, lan, base, testPass)
	res, body := ownertest.PostForm(t, lan, base, "/settings/tailnet/link", url.Values{"csrf": {ownertest.CSRF(t, lan, base)}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Open the box page on its tailnet address") {
		t.Fatalf("link from the LAN: %d %s", res.StatusCode, ownertest.Text(body))
	}

	// Before linking, alice's tailnet visit gets the passphrase form.
	alice := as(t, srv, "alice@example.com")
	res, body = ownertest.Get(t, alice, base, "/status")
	if res.Request.URL.Path != "/login" || !strings.Contains(body, "passphrase") {
		t.Fatalf("unlinked alice: at %s %s", res.Request.URL.Path, ownertest.Text(body))
	}
	ownertest.Login(t, alice, base, testPass)
	_, body = ownertest.Get(t, alice, base, "/settings")
	if !strings.Contains(body, "Link my tailnet login (alice@example.com)") {
		t.Fatalf("settings for alice lacks the link button: %s", ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, alice, base, "/settings/tailnet/link", url.Values{"csrf": {ownertest.FormToken(body)}})
	if res.StatusCode != 200 || !strings.Contains(body, "Your tailnet login is linked") {
		t.Fatalf("link: %d %s", res.StatusCode, ownertest.Text(body))
	}
	var linked string
	if err := st.View(t.Context(), func(tx *store.Tx) (err error) { linked, err = tx.Setting(owner.SettingTailnetLogin); return err }); err != nil || linked != "alice@example.com" {
		t.Fatalf("stored link = %q, %v", linked, err)
	}

	tests := []struct {
		name  string
		login string
		owner bool
	}{
		{"linked login", "alice@example.com", true},
		{"other tailnet login", "mallory@example.com", false},
		{"LAN visit", "", false},
	}
	for _, tt := range tests {
		c := as(t, srv, tt.login) // a fresh browser: no session cookie
		res, body := ownertest.Get(t, c, base, "/status")
		gotOwner := res.StatusCode == 200 && res.Request.URL.Path == "/status"
		if gotOwner != tt.owner {
			t.Errorf("%s: at %s (%d), owner session %v, want %v: %s", tt.name, res.Request.URL.Path, res.StatusCode, gotOwner, tt.owner, ownertest.Text(body))
		}
	}

	// Logging out on the tailnet lands on the passphrase form, not back in.
	c := as(t, srv, "alice@example.com")
	ownertest.Get(t, c, base, "/status")
	res, body = ownertest.PostForm(t, c, base, "/logout", url.Values{"csrf": {ownertest.CSRF(t, c, base)}})
	if res.Request.URL.Path != "/login" || !strings.Contains(body, "passphrase") {
		t.Errorf("logout: at %s %s, want the passphrase form", res.Request.URL.Path, ownertest.Text(body))
	}
	for _, ck := range c.Jar.Cookies(res.Request.URL) {
		if ck.Name == owner.CookieName {
			t.Errorf("logout left a session cookie")
		}
	}

	// Unlinked, alice needs the passphrase again.
	res, body = ownertest.PostForm(t, lan, base, "/settings/tailnet/unlink", url.Values{"csrf": {ownertest.CSRF(t, lan, base)}})
	if res.StatusCode != 200 || !strings.Contains(body, "No tailnet login is linked any more") {
		t.Fatalf("unlink: %d %s", res.StatusCode, ownertest.Text(body))
	}
	res, _ = ownertest.Get(t, as(t, srv, "alice@example.com"), base, "/status")
	if res.Request.URL.Path != "/login" {
		t.Errorf("after unlink alice reached %s without the passphrase", res.Request.URL.Path)
	}
}

func TestStatusShowsRemoteEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		view owner.TailnetView
		want string
	}{
		{"off", owner.TailnetView{State: "off"}, "Remote entry off"},
		{"running", owner.TailnetView{Enabled: true, State: "running", DNSName: "openlolo-test.tail-scale.ts.net"}, "Remote entry running at openlolo-test.tail-scale.ts.net"},
		{"down", owner.TailnetView{Enabled: true, State: "starting", Reason: "Connecting to the coordination server: no internet."},
			"Remote entry starting — Connecting to the coordination server: no internet."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, srv, _ := tailnetBox(t, &fakeTailnet{view: tt.view})
			c := as(t, srv, "")
			ownertest.Login(t, c, base, testPass)
			_, body := ownertest.Get(t, c, base, "/status")
			if !strings.Contains(ownertest.FullText(body), tt.want) {
				t.Errorf("Status page lacks %q: %s", tt.want, ownertest.Text(body))
			}
		})
	}
}

func TestSettingsLoginQR(t *testing.T) {
	t.Parallel()
	tn := &fakeTailnet{view: owner.TailnetView{Enabled: true, State: "needs_login"}}
	base, srv, _ := tailnetBox(t, tn)
	c := as(t, srv, "")
	ownertest.Login(t, c, base, testPass)
	if res, _ := ownertest.Get(t, c, base, "/settings/tailnet/login.png"); res.StatusCode != http.StatusNotFound {
		t.Errorf("QR without a login link: %d, want 404", res.StatusCode)
	}
	tn.mu.Lock()
	tn.view.AuthURL = "https://login.tailscale.com/a/abc123"
	tn.mu.Unlock()
	_, page := ownertest.Get(t, c, base, "/settings")
	if !strings.Contains(page, `src="/settings/tailnet/login.png"`) || !strings.Contains(page, "https://login.tailscale.com/a/abc123") {
		t.Errorf("Settings lacks the login link or its QR code: %s", ownertest.Text(page))
	}
	res, body := ownertest.Get(t, c, base, "/settings/tailnet/login.png")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("QR: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	img, err := png.Decode(strings.NewReader(body))
	if err != nil || img.Bounds().Dx() != 256 {
		t.Fatalf("QR is not a 256 px PNG: %v %v", err, img)
	}
	// Only the owner sees it.
	if res, _ := ownertest.Get(t, as(t, srv, ""), base, "/settings/tailnet/login.png"); res.StatusCode != http.StatusForbidden {
		t.Errorf("QR without a session: %d, want 403", res.StatusCode)
	}
}
