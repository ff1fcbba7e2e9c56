package owner_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// TestLoginPageShowsLock: a browser whose source is locked out learns it
// when the login page loads, not only after typing a passphrase; another
// source sees the plain form.
func TestLoginPageShowsLock(t *testing.T) {
	t.Parallel() // hashes ten passphrases
	b, _ := claimedBox(t, boxOpts{})
	peer := peerClient(t, b, "192.0.2.66:4000")
	if _, body := ownertest.Get(t, peer, b.url, "/login"); strings.Contains(ownertest.FullText(body), "stopped checking") {
		t.Fatalf("login page before any failure says locked: %q", ownertest.Text(body))
	}
	wrongLogins(t, b, peer, 10)
	res, body := ownertest.Get(t, peer, b.url, "/login")
	if res.StatusCode != http.StatusOK || !strings.Contains(ownertest.FullText(body), "stopped checking") || !strings.Contains(ownertest.FullText(body), "from this device") {
		t.Fatalf("login page of the locked peer: %d %q, want the lock shown", res.StatusCode, ownertest.Text(body))
	}
	if _, body := ownertest.Get(t, peerClient(t, b, "192.0.2.10:5000"), b.url, "/login"); strings.Contains(ownertest.FullText(body), "stopped checking") {
		t.Errorf("another device's login page says locked: %q", ownertest.Text(body))
	}
}

// TestClaimPageShowsLock: the claim page shows the setup-code lock on
// load and still offers the form (the button claim is not locked).
func TestClaimPageShowsLock(t *testing.T) {
	b := newBox(t, boxOpts{stateDir: "/var/lib/openlolo"})
	c := ownertest.NewClient(t, b.srv)
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
	for range 5 {
		ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {"0000-0000"}, "passphrase": {testPass}, "confirm": {testPass}})
	}
	res, body := ownertest.Get(t, c, b.url, "/claim")
	text := ownertest.Text(body)
	if res.StatusCode != http.StatusOK || !strings.Contains(text, "stopped taking codes") ||
		!strings.Contains(text, "openlolo owner reset-passphrase --state /var/lib/openlolo") || ownertest.FormToken(body) == "" {
		t.Fatalf("claim page while locked: %d %q, want the lock, the whole console command and the form", res.StatusCode, text)
	}
}

// TestForgotHintNamesStateDir: the login page's hint is the whole command,
// with the box's state directory quoted for the shell when it needs it.
func TestForgotHintNamesStateDir(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{"", "openlolo owner reset-passphrase --state DIR"},
		{"/var/lib/openlolo", "openlolo owner reset-passphrase --state /var/lib/openlolo"},
		{"/srv/my box", "openlolo owner reset-passphrase --state '/srv/my box'"},
	} {
		b, c := claimedBox(t, boxOpts{stateDir: tc.dir})
		tok := ownertest.CSRF(t, c, b.url)
		res, body := ownertest.PostForm(t, c, b.url, "/logout", url.Values{"csrf": {tok}})
		if res.Request.URL.Path != "/login" || !strings.Contains(ownertest.FullText(body), tc.want) {
			t.Errorf("state dir %q: login page %q does not give %q", tc.dir, ownertest.Text(body), tc.want)
		}
	}
}

// TestLogoutSaysSo: logging out lands on the login page saying so, in the
// success style; a plain visit to the login page does not say it.
func TestLogoutSaysSo(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	tok := ownertest.CSRF(t, c, b.url)
	res, body := ownertest.PostForm(t, c, b.url, "/logout", url.Values{"csrf": {tok}})
	if res.Request.URL.Path != "/login" || !strings.Contains(body, `<p class="done" role="status">You are logged out.`) {
		t.Fatalf("after logout at %s: %q, want the login page saying logged out", res.Request.URL, ownertest.Text(body))
	}
	if _, body := ownertest.Get(t, c, b.url, "/login"); strings.Contains(body, "logged out") {
		t.Errorf("plain login page says logged out: %q", ownertest.Text(body))
	}
	// Logging out without the form token does nothing.
	ownertest.Login(t, c, b.url, testPass)
	res, _ = ownertest.PostForm(t, c, b.url, "/logout", url.Values{"csrf": {"wrong"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("logout with a wrong token: %d, want 403", res.StatusCode)
	}
	if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Errorf("refused logout logged out anyway: at %s", res.Request.URL)
	}
}

// TestSuccessNoticeNotWarning: confirmations use the success style, not
// the warning one.
func TestSuccessNoticeNotWarning(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	for _, path := range []string{"/settings?done=off", "/access?done=revoked"} {
		_, body := ownertest.Get(t, c, b.url, path)
		if strings.Contains(body, `class="notice" role="status"`) {
			t.Errorf("%s: a confirmation in the warning style", path)
		}
	}
	_, body := ownertest.Get(t, c, b.url, "/settings?done=off")
	if !strings.Contains(body, `<p class="done" role="status">`) {
		t.Errorf("/settings?done=off shows no confirmation in the success style: %q", ownertest.Text(body))
	}
}

// TestFavicon: the layout links the embedded icon and /favicon.ico leads
// to it.
func TestFavicon(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	if body := mustGet(t, c, b.url, "/claim"); !strings.Contains(body, `rel="icon" href="/static/favicon.svg"`) {
		t.Errorf("page links no icon")
	}
	for _, path := range []string{"/static/favicon.svg", "/favicon.ico"} {
		res, body := ownertest.Get(t, c, b.url, path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
			t.Errorf("GET %s: %d %s, want the SVG icon", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}

// TestFingerprintOneFormat: the pages show the certificate fingerprint as
// the console prints it (64 lower-case hex digits, BoxInfo.Fingerprint)
// first; the colon form only as "as browsers show it".
func TestFingerprintOneFormat(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	for _, path := range []string{"/status", "/connect"} {
		_, body := ownertest.Get(t, c, b.url, path)
		if !strings.Contains(body, `<dt>Certificate SHA-256</dt><dd><code class="fp">ab12</code>`) {
			t.Errorf("%s does not show the console's fingerprint format: %q", path, ownertest.Text(body))
		}
	}
}
