package owner_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

func TestLoginRateLimit(t *testing.T) {
	b, _ := claimedBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/login"))
	login := func(pass string) (*http.Response, string) {
		return ownertest.PostForm(t, c, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {pass}})
	}
	for i := 0; i < 10; i++ {
		if res, body := login("wrong passphrase"); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "wrong") {
			t.Fatalf("wrong passphrase %d: %d %q, want 403", i+1, res.StatusCode, ownertest.Text(body))
		}
		b.clock.Add(time.Second)
	}
	// The eleventh try within the minute is refused, even with the right
	// passphrase, with a clear page and Retry-After.
	res, body := login(testPass)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "12:01:00 UTC") {
		t.Fatalf("11th login: %d %q Retry-After %q, want 429 until 12:01:00 UTC", res.StatusCode, ownertest.Text(body), res.Header.Get("Retry-After"))
	}
	// When the oldest failure leaves the minute, one more try is allowed.
	b.clock.Add(51 * time.Second)
	ownertest.Login(t, c, b.url, testPass)
}

func TestCookieAttributes(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := noRedirect(ownertest.NewClient(t, b.srv))
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
	checks := func(t *testing.T, res *http.Response) {
		t.Helper()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d, want 303", res.StatusCode)
		}
		var found bool
		for _, line := range res.Header.Values("Set-Cookie") {
			if !strings.HasPrefix(line, owner.CookieName+"=") {
				continue
			}
			found = true
			ck, err := http.ParseSetCookie(line)
			if err != nil {
				t.Fatal(err)
			}
			if !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.Domain != "" {
				t.Errorf("cookie %q: want Secure, HttpOnly, SameSite=Strict, Path=/, no Domain", line)
			}
			if ck.MaxAge != int((7 * 24 * time.Hour).Seconds()) {
				t.Errorf("cookie Max-Age = %d, want 7 days", ck.MaxAge)
			}
			if len(ck.Value) < 43 {
				t.Errorf("cookie value %q is too short to be a 256-bit secret", ck.Value)
			}
		}
		if !found {
			t.Fatalf("no %s cookie in %q", owner.CookieName, res.Header.Values("Set-Cookie"))
		}
	}
	t.Run("claim", func(t *testing.T) {
		res, _ := ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {b.code(t)}, "passphrase": {testPass}, "confirm": {testPass}})
		checks(t, res)
	})
	t.Run("login", func(t *testing.T) {
		c := noRedirect(ownertest.NewClient(t, b.srv))
		tok := ownertest.FormToken(mustGet(t, c, b.url, "/login"))
		res, _ := ownertest.PostForm(t, c, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {testPass}})
		checks(t, res)
	})
}

// loggedIn reports whether c's session still opens the Status page.
func loggedIn(t *testing.T, c *http.Client, b *box) bool {
	t.Helper()
	res, _ := ownertest.Get(t, c, b.url, "/status")
	return res.StatusCode == http.StatusOK && res.Request.URL.Path == "/status"
}

func TestSessionIdleExpiry(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	b.clock.Add(11*time.Hour + 59*time.Minute)
	if !loggedIn(t, c, b) {
		t.Fatal("session ended before 12 h idle")
	}
	// That use renewed it: another 11:59 is fine.
	b.clock.Add(11*time.Hour + 59*time.Minute)
	if !loggedIn(t, c, b) {
		t.Fatal("session ended although it was used 11:59 ago")
	}
	b.clock.Add(12 * time.Hour)
	res, _ := ownertest.Get(t, c, b.url, "/status")
	if res.Request.URL.Path != "/login" || res.Request.URL.Query().Get("next") != "/status" {
		t.Fatalf("after 12 h idle GET /status ended at %s, want /login?next=/status", res.Request.URL)
	}
}

func TestSessionMaxAge(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	// Used every 11 hours, a session still ends 7 days after login.
	var used time.Duration
	for used+11*time.Hour < 7*24*time.Hour {
		b.clock.Add(11 * time.Hour)
		used += 11 * time.Hour
		if !loggedIn(t, c, b) {
			t.Fatalf("session ended after %v, before 7 days", used)
		}
	}
	b.clock.Add(7*24*time.Hour - used)
	if loggedIn(t, c, b) {
		t.Fatal("session still works 7 days after login")
	}
}

func TestPostChecks(t *testing.T) {
	ctl := &fakeControl{}
	b, c := claimedBox(t, boxOpts{control: ctl})
	tok := ownertest.CSRF(t, c, b.url)
	other := ownertest.NewClient(t, b.srv) // a second owner session: a valid token of another session
	ownertest.Login(t, other, b.url, testPass)
	otherTok := ownertest.CSRF(t, other, b.url)
	if otherTok == tok {
		t.Fatal("two sessions share one CSRF token")
	}
	tests := []struct {
		name   string
		origin string // "-" for none
		csrf   string
		want   int
		text   string
	}{
		{"no token", b.url, "", http.StatusForbidden, "security token"},
		{"wrong token", b.url, otherFirst(tok), http.StatusForbidden, "security token"},
		{"another session's token", b.url, otherTok, http.StatusForbidden, "security token"},
		{"no origin", "-", tok, http.StatusForbidden, "no Origin"},
		{"other origin", "https://evil.example", tok, http.StatusForbidden, "evil.example"},
		{"http origin", strings.Replace(b.url, "https://", "http://", 1), tok, http.StatusForbidden, "came from"},
		{"null origin", "null", tok, http.StatusForbidden, "came from"},
		{"good", b.url, tok, http.StatusOK, "paused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ctl.pauses()
			req, _ := http.NewRequest(http.MethodPost, b.url+"/status/pause", strings.NewReader(url.Values{"csrf": {tt.csrf}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.origin != "-" {
				req.Header.Set("Origin", tt.origin)
			}
			res, body := ownertest.Do(t, c, req)
			if res.StatusCode != tt.want || !strings.Contains(body, tt.text) {
				t.Fatalf("POST /status/pause: %d %q, want %d with %q", res.StatusCode, ownertest.Text(body), tt.want, tt.text)
			}
			if got := ctl.pauses() - before; (tt.want == http.StatusOK) != (got == 1) {
				t.Fatalf("Pause called %d times", got)
			}
		})
	}
}

func TestClaimAndLoginFormsCheckOriginAndToken(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	code := b.code(t)
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
	form := url.Values{"csrf": {tok}, "code": {code}, "passphrase": {testPass}, "confirm": {testPass}}
	send := func(path, origin string, f url.Values) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		return ownertest.Do(t, c, req)
	}
	noTok := url.Values{"code": {code}, "passphrase": {testPass}, "confirm": {testPass}}
	for _, tc := range []struct {
		name, origin string
		form         url.Values
	}{{"no origin", "", form}, {"other origin", "https://evil.example", form}, {"no token", b.url, noTok}} {
		if res, body := send("/claim", tc.origin, tc.form); res.StatusCode != http.StatusForbidden {
			t.Errorf("claim with %s: %d %q, want 403", tc.name, res.StatusCode, ownertest.Text(body))
		}
	}
	// None of those claimed the box.
	if _, claimed, _ := b.pages.SetupCode(t.Context()); claimed {
		t.Fatal("a refused claim form claimed the box")
	}
	ownertest.Claim(t, c, b.url, code, testPass)

	c2 := ownertest.NewClient(t, b.srv)
	tok2 := ownertest.FormToken(mustGet(t, c2, b.url, "/login"))
	c3 := ownertest.NewClient(t, b.srv) // has no pre-session cookie
	for _, tc := range []struct {
		name   string
		c      *http.Client
		origin string
		form   url.Values
	}{
		{"no origin", c2, "", url.Values{"csrf": {tok2}, "passphrase": {testPass}}},
		{"other origin", c2, "https://evil.example", url.Values{"csrf": {tok2}, "passphrase": {testPass}}},
		{"no token", c2, b.url, url.Values{"passphrase": {testPass}}},
		{"token without its cookie", c3, b.url, url.Values{"csrf": {tok2}, "passphrase": {testPass}}},
	} {
		req, _ := http.NewRequest(http.MethodPost, b.url+"/login", strings.NewReader(tc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if res, body := ownertest.Do(t, tc.c, req); res.StatusCode != http.StatusForbidden {
			t.Errorf("login with %s: %d %q, want 403", tc.name, res.StatusCode, ownertest.Text(body))
		}
	}
}

func TestLogoutEndsSession(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	u, _ := url.Parse(b.url)
	old := c.Jar.Cookies(u)
	tok := ownertest.CSRF(t, c, b.url)
	res, _ := ownertest.PostForm(t, c, b.url, "/logout", url.Values{"csrf": {tok}})
	if res.Request.URL.Path != "/login" {
		t.Fatalf("logout ended at %s, want /login", res.Request.URL.Path)
	}
	if loggedIn(t, c, b) {
		t.Fatal("still logged in after logout")
	}
	// The old cookie, replayed, no longer opens a page: the session is gone
	// on the box, not just in the browser.
	c2 := ownertest.NewClient(t, b.srv)
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(u, old)
	c2.Jar = jar
	if loggedIn(t, c2, b) {
		t.Fatal("the logged-out cookie still works")
	}
}

func TestLoginReturnsToNext(t *testing.T) {
	b, _ := claimedBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	res, _ := ownertest.Get(t, c, b.url, "/access?r=abc")
	if res.Request.URL.Path != "/login" || res.Request.URL.Query().Get("next") != "/access?r=abc" {
		t.Fatalf("GET /access?r=abc logged out ended at %s", res.Request.URL)
	}
	tests := []struct{ next, want string }{
		{"/access?r=abc", "/access"},
		{"//evil.example/x", "/status"},
		{"https://evil.example/", "/status"},
	}
	for _, tt := range tests {
		c := ownertest.NewClient(t, b.srv)
		tok := ownertest.FormToken(mustGet(t, c, b.url, "/login"))
		res, _ := ownertest.PostForm(t, c, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {testPass}, "next": {tt.next}})
		if res.Request.URL.Host != strings.TrimPrefix(b.url, "https://") || res.Request.URL.Path != tt.want {
			t.Errorf("login with next=%q ended at %s, want %s on the box", tt.next, res.Request.URL, tt.want)
		}
	}
}

func TestSessionStoredHashed(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	u, _ := url.Parse(b.url)
	var value string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == owner.CookieName {
			value = ck.Value
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(raw) != 32 {
		t.Fatalf("cookie value %q is not 32 base64url bytes: %v", value, err)
	}
	sum := sha256.Sum256(raw)
	lookup := func(id []byte) error {
		return b.st.View(t.Context(), func(tx *store.Tx) error { _, err := tx.OwnerSession(id); return err })
	}
	if err := lookup(sum[:]); err != nil {
		t.Fatalf("no session stored under the cookie's SHA-256: %v", err)
	}
	for _, id := range [][]byte{raw, []byte(value)} {
		if err := lookup(id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session found under the cookie value itself: %v", err)
		}
	}
}

// otherFirst returns tok with its first character changed (a token that
// starts with "x" would survive a plain "x"+tok[1:]: a 1-in-64 flake).
func otherFirst(tok string) string {
	if tok[0] == 'x' {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}

// TestOwnerRequestsTrustTheirConnection checks that the pages tell the
// entry which requests carry an owner session (Config.Trust), and only
// those: a stranger's page view must not protect its connection.
func TestOwnerRequestsTrustTheirConnection(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	count := func() int { mu.Lock(); defer mu.Unlock(); return calls }
	b, c := claimedBox(t, boxOpts{trust: func(context.Context) { mu.Lock(); calls++; mu.Unlock() }})
	before := count()
	stranger := ownertest.NewClient(t, b.srv)
	for _, path := range []string{"/status", "/login"} {
		res, err := stranger.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if n := count(); n != before {
		t.Errorf("a stranger's pages trusted its connection %d times", n-before)
	}
	res, err := c.Get(b.url + "/status")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || count() == before {
		t.Errorf("the owner's /status (%d) did not trust its connection", res.StatusCode)
	}
}
