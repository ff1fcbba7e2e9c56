package owner_test

import (
	"bytes"
	"errors"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

func simPhone(t *testing.T) *sim.Phone {
	t.Helper()
	ph, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ph.Close() })
	return ph
}

func TestStatusPage(t *testing.T) {
	ph := simPhone(t)
	ctl := &fakeControl{holder: "my script"}
	b, c := claimedBox(t, boxOpts{phone: ph, control: ctl})
	body := mustGet(t, c, b.url, "/status")
	for _, want := range []string{"openlolo-test", "v0.0.0-test", "AB:12", "cGlu", ph.Info().Model, "sim", "Ready",
		"my script", "12:01 UTC", `data-still="/status/screen.jpg"`, "Pause phone control", `src="/static/live.js"`} {
		if !strings.Contains(body, want) {
			t.Errorf("Status page lacks %q: %s", want, ownertest.Text(body))
		}
	}

	// The live screenshot: a JPEG of the phone's screen, never cached.
	res, img := ownertest.Get(t, c, b.url, "/status/screen.jpg")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("screen.jpg: %d %q Cache-Control %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader([]byte(img)))
	if err != nil {
		t.Fatalf("screen.jpg does not decode: %v", err)
	}
	native := ph.Info().Native
	if cfg.Width != 480 || cfg.Height != native.Y*480/native.X {
		t.Errorf("screen.jpg is %dx%d, want 480 wide with the phone's aspect (%v)", cfg.Width, cfg.Height, native)
	}
	// The same picture comes back while the phone shows it; a new one after
	// the screen changed.
	if _, again := ownertest.Get(t, c, b.url, "/status/screen.jpg"); again != img {
		t.Error("screen.jpg changed although the phone's screen did not")
	}
	if _, err := ph.Press(t.Context(), phone.Lock); err != nil {
		t.Fatal(err)
	}
	if _, locked := ownertest.Get(t, c, b.url, "/status/screen.jpg"); locked == img {
		t.Error("screen.jpg did not change after the phone was locked")
	}
	// Without a session: refused, not redirected to a page.
	anon := ownertest.NewClient(t, b.srv)
	if res, _ := ownertest.Get(t, anon, b.url, "/status/screen.jpg"); res.StatusCode != http.StatusForbidden {
		t.Errorf("screen.jpg without a session: %d, want 403", res.StatusCode)
	}

	// Pause, then Resume, through the Controller.
	tok := ownertest.CSRF(t, c, b.url)
	res, body = ownertest.PostForm(t, c, b.url, "/status/pause", url.Values{"csrf": {tok}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Phone control is paused") || !strings.Contains(body, "Resume phone control") ||
		!strings.Contains(ownertest.FullText(body), "by you (the owner) since "+time.Date(2026, 11, 29, 12, 0, 5, 0, time.UTC).Local().Format("2006-01-02 15:04:05 MST")) {
		t.Fatalf("pause: %d %q", res.StatusCode, ownertest.Text(body))
	}
	if !ctl.Lease().Paused {
		t.Fatal("Pause did not reach the controller")
	}
	res, body = ownertest.PostForm(t, c, b.url, "/status/resume", url.Values{"csrf": {tok}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Pause phone control") || ctl.Lease().Paused {
		t.Fatalf("resume: %d %q paused=%v", res.StatusCode, ownertest.Text(body), ctl.Lease().Paused)
	}
	// A failing controller says why.
	ctl.failNext = errors.New("the phone is detached")
	res, body = ownertest.PostForm(t, c, b.url, "/status/pause", url.Values{"csrf": {tok}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "the phone is detached") {
		t.Fatalf("failing pause: %d %q", res.StatusCode, ownertest.Text(body))
	}
}

func TestStatusWithoutPhoneOrControl(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	body := mustGet(t, c, b.url, "/status")
	if !strings.Contains(body, "No phone is attached") || strings.Contains(body, "Pause phone control") {
		t.Errorf("Status without phone and control: %s", ownertest.Text(body))
	}
	if res, _ := ownertest.Get(t, c, b.url, "/status/screen.jpg"); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("screen.jpg without a phone: %d, want 503", res.StatusCode)
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/status/pause", url.Values{"csrf": {tok}}); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("pause without control: %d, want 503", res.StatusCode)
	}
	body = mustGet(t, c, b.url, "/activity")
	if !strings.Contains(body, "control service is not running") {
		t.Errorf("Activity without control: %s", ownertest.Text(body))
	}
}

func TestActivityPage(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 11, 59, 0, 0, time.UTC)
	ctl := &fakeControl{recent: []owner.Activity{
		{Time: t0, Client: "agent <b>", Tool: "openlolo_tap", Outcome: "succeeded"},
		{Time: t0.Add(-time.Minute), Client: "script", Tool: "openlolo_type_text", Outcome: "failed", Code: "UNSUPPORTED_TEXT"},
		{Time: t0.Add(-2 * time.Minute), Client: "owner", Action: "pause", Detail: "paused phone control; only the owner can resume", Outcome: "done"},
	}}
	b, c := claimedBox(t, boxOpts{control: ctl})
	body := mustGet(t, c, b.url, "/activity")
	for _, want := range []string{t0.Local().Format("2006-01-02 15:04:05 MST"), "paused phone control; only the owner can resume", "agent &lt;b&gt;", "openlolo_tap", "succeeded", "openlolo_type_text", "UNSUPPORTED_TEXT"} {
		if !strings.Contains(body, want) {
			t.Errorf("Activity page lacks %q: %s", want, ownertest.Text(body))
		}
	}
	if strings.Contains(body, "agent <b>") {
		t.Error("client name is not escaped")
	}
	ctl.recent = nil
	if body := mustGet(t, c, b.url, "/activity"); !strings.Contains(body, "No activity yet") {
		t.Errorf("empty Activity page: %s", ownertest.Text(body))
	}
}

func TestConnectPage(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	body := mustGet(t, c, b.url, "/connect")
	for _, want := range []string{"openlolo pair " + b.url + " --pin sha256//cGlu", "--pinnedpubkey 'sha256//cGlu'", "claude mcp add openlolo -- openlolo mcp " + b.url, "sha256//cGlu", "AB:12", "device_authorization"} {
		if !strings.Contains(body, want) {
			t.Errorf("Connect page lacks %q: %s", want, ownertest.Text(body))
		}
	}
}

// checkHeaders fails unless res carries the box page's security headers.
func checkHeaders(t *testing.T, what string, res *http.Response) {
	t.Helper()
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: CSP %q lacks %q", what, csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: CSP %q allows inline script or eval", what, csp)
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options = %q", what, got)
	}
	if got := res.Header.Get("Referrer-Policy"); got != "same-origin" {
		t.Errorf("%s: Referrer-Policy = %q", what, got)
	}
}

func TestEveryAnswerHasSecurityHeaders(t *testing.T) {
	b := newBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}})
	anon := noRedirect(ownertest.NewClient(t, b.srv))
	paths := []string{"/", "/claim", "/login", "/status", "/status/screen.jpg", "/access", "/access?r=x", "/activity", "/connect",
		"/oauth/authorize?client_id=x", "/static/style.css", "/static/live.js", "/static/missing.css"}
	for _, p := range paths {
		res, _ := ownertest.Get(t, anon, b.url, p)
		checkHeaders(t, "unclaimed GET "+p, res)
	}
	res, _ := ownertest.PostForm(t, anon, b.url, "/claim", url.Values{})
	checkHeaders(t, "unclaimed POST /claim", res)

	owner := ownertest.NewClient(t, b.srv)
	ownertest.Claim(t, owner, b.url, b.code(t), testPass)
	for _, c := range []*http.Client{anon, noRedirect(owner)} {
		for _, p := range paths {
			res, _ := ownertest.Get(t, c, b.url, p)
			checkHeaders(t, "GET "+p, res)
		}
		for _, p := range []string{"/login", "/logout", "/status/pause", "/access/approve", "/oauth/authorize"} {
			res, _ := ownertest.PostForm(t, c, b.url, p, url.Values{"csrf": {"bad"}})
			checkHeaders(t, "POST "+p, res)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	for _, tt := range []struct{ path, ctype, text string }{
		{"/static/style.css", "text/css", "--accent"},
		{"/static/live.js", "javascript", "phone-live"},
	} {
		res, body := ownertest.Get(t, c, b.url, tt.path)
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), tt.ctype) || !strings.Contains(body, tt.text) {
			t.Fatalf("GET %s: %d %q", tt.path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		tag := res.Header.Get("ETag")
		if tag == "" {
			t.Fatalf("GET %s: no ETag", tt.path)
		}
		req, _ := http.NewRequest(http.MethodGet, b.url+tt.path, nil)
		req.Header.Set("If-None-Match", tag)
		if res, _ := ownertest.Do(t, c, req); res.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s If-None-Match: %d, want 304", tt.path, res.StatusCode)
		}
	}
	for _, p := range []string{"/static/nope.css", "/static/"} {
		if res, _ := ownertest.Get(t, c, b.url, p); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
}
