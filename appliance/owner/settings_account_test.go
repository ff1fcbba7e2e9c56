package owner_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

const newPass = "a brand new passphrase"

// TestChangePassphrase: the current passphrase and the new one twice
// change it; the other browser is logged out, this one stays; the old
// passphrase no longer logs in and the new one does.
func TestChangePassphrase(t *testing.T) {
	t.Parallel() // hashes several passphrases
	b, c := claimedBox(t, boxOpts{})
	other := ownertest.NewClient(t, b.srv)
	ownertest.Login(t, other, b.url, testPass)
	if _, body := ownertest.Get(t, c, b.url, "/settings"); !strings.Contains(body, "<td>this browser</td>") ||
		strings.Count(body, `<tr class="session">`) != 2 || !strings.Contains(body, "/settings/sessions/end-others") {
		t.Fatalf("Settings does not list both sessions: %s", body[strings.Index(body, "Logged-in"):])
	}
	tok := ownertest.CSRF(t, c, b.url)
	res, body := ownertest.PostForm(t, c, b.url, "/settings/passphrase", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {newPass}, "confirm": {newPass}})
	if res.StatusCode != 200 || res.Request.URL.Path != "/settings" || !strings.Contains(body, "The passphrase is changed") {
		t.Fatalf("change: %d at %s %q", res.StatusCode, res.Request.URL, ownertest.Text(body))
	}
	if res, _ := ownertest.Get(t, other, b.url, "/status"); res.Request.URL.Path != "/login" {
		t.Errorf("the other browser is still logged in (at %s)", res.Request.URL)
	}
	if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Errorf("this browser was logged out (at %s)", res.Request.URL)
	}
	tok = ownertest.FormToken(mustGet(t, other, b.url, "/login"))
	if res, _ := ownertest.PostForm(t, other, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {testPass}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("the old passphrase: %d, want 403", res.StatusCode)
	}
	ownertest.Login(t, other, b.url, newPass)
}

// TestChangePassphraseRefusals: each refusal leaves the passphrase as it
// was and says why.
func TestChangePassphraseRefusals(t *testing.T) {
	t.Parallel()
	b, c := claimedBox(t, boxOpts{})
	tok := ownertest.CSRF(t, c, b.url)
	for _, tc := range []struct {
		name   string
		form   url.Values
		origin string
		status int
		says   string
	}{
		{"wrong current", url.Values{"csrf": {tok}, "current": {"not the passphrase"}, "passphrase": {newPass}, "confirm": {newPass}}, b.url, 403, "current passphrase is wrong"},
		{"too short", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {"short"}, "confirm": {"short"}}, b.url, 400, "at least 10 characters"},
		{"differ", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {newPass}, "confirm": {newPass + "x"}}, b.url, 400, "differ"},
		{"no csrf", url.Values{"current": {testPass}, "passphrase": {newPass}, "confirm": {newPass}}, b.url, 403, "security token"},
		{"other origin", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {newPass}, "confirm": {newPass}}, "https://evil.example", 403, "came from https://evil.example"},
	} {
		req, _ := http.NewRequest(http.MethodPost, b.url+"/settings/passphrase", strings.NewReader(tc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", tc.origin)
		res, body := ownertest.Do(t, c, req)
		if res.StatusCode != tc.status || !strings.Contains(ownertest.FullText(body), tc.says) {
			t.Errorf("%s: %d %q, want %d saying %q", tc.name, res.StatusCode, ownertest.Text(body), tc.status, tc.says)
		}
	}
	// Unchanged: the old passphrase still logs in.
	ownertest.Login(t, ownertest.NewClient(t, b.srv), b.url, testPass)
	// Without a session the form is refused.
	anon := ownertest.NewClient(t, b.srv)
	if res, _ := ownertest.PostForm(t, anon, b.url, "/settings/passphrase", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {newPass}, "confirm": {newPass}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("without a session: %d, want 403", res.StatusCode)
	}
}

// TestChangePassphraseCountsAsLogin: wrong current passphrases count as
// failed logins, so a borrowed session cannot guess faster than the login
// page allows.
func TestChangePassphraseCountsAsLogin(t *testing.T) {
	t.Parallel() // hashes ten passphrases
	b, c := claimedBox(t, boxOpts{})
	tok := ownertest.CSRF(t, c, b.url)
	var res *http.Response
	var body string
	for range 11 {
		res, body = ownertest.PostForm(t, c, b.url, "/settings/passphrase", url.Values{"csrf": {tok}, "current": {"guess guess guess"}, "passphrase": {newPass}, "confirm": {newPass}})
	}
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(ownertest.FullText(body), "stopped checking") {
		t.Fatalf("eleventh wrong current passphrase: %d %q, want 429", res.StatusCode, ownertest.Text(body))
	}
	// Locked: even the right one is not checked.
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/passphrase", url.Values{"csrf": {tok}, "current": {testPass}, "passphrase": {newPass}, "confirm": {newPass}}); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("right passphrase while locked: %d, want 429", res.StatusCode)
	}
}

// TestEndOtherSessions: the other browsers are logged out, this one is
// not; the form needs the session's token.
func TestEndOtherSessions(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	other := ownertest.NewClient(t, b.srv)
	ownertest.Login(t, other, b.url, testPass)
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/sessions/end-others", url.Values{"csrf": {"stale"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("with a wrong token: %d, want 403", res.StatusCode)
	}
	if res, _ := ownertest.Get(t, other, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Fatalf("a refused form logged the other browser out")
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/sessions/end-others", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || !strings.Contains(body, "Every other browser was logged out") || strings.Count(body, `<tr class="session">`) != 1 {
		t.Fatalf("end others: %d %q", res.StatusCode, ownertest.Text(body))
	}
	if res, _ := ownertest.Get(t, other, b.url, "/status"); res.Request.URL.Path != "/login" {
		t.Errorf("the other browser is still logged in")
	}
	if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Errorf("this browser was logged out")
	}
}

// Settings' browsers table did not say which browser is which: it names
// each from its User-Agent header.
func TestSettingsNamesBrowsers(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	if c.Transport == nil {
		t.Fatal("the test client has no transport to wrap")
	}
	c.Transport = uaTransport{ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7000.1 Safari/537.36", next: c.Transport}
	mustGet(t, c, b.url, "/status")
	body := mustGet(t, c, b.url, "/settings")
	if !strings.Contains(body, `<span class="browser" title="Mozilla/5.0 (X11; Linux x86_64)`) || !strings.Contains(body, ">Chrome 156 on Linux</span>") {
		t.Fatalf("Settings does not name the browser: %s", ownertest.Text(body))
	}
}

// uaTransport sends ua as every request's User-Agent.
type uaTransport struct {
	ua   string
	next http.RoundTripper
}

func (u uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.ua)
	return u.next.RoundTrip(r)
}
