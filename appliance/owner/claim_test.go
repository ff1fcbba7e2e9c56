package owner_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

func TestUnclaimedBoxShowsOnlyClaim(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	for _, path := range []string{"/", "/status", "/access", "/activity", "/connect", "/login", "/claim", "/access?r=abc"} {
		res, body := ownertest.Get(t, c, b.url, path)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, "<h1>Claim this box</h1>") {
			t.Errorf("GET %s on an unclaimed box: status %d, page %q; want the claim page", path, res.StatusCode, ownertest.Text(body))
		}
		if strings.Contains(body, `href="/status"`) {
			t.Errorf("GET %s on an unclaimed box shows the navigation", path)
		}
	}
	res, _ := ownertest.Get(t, c, b.url, "/status/screen.jpg")
	if res.StatusCode == http.StatusOK {
		t.Errorf("GET /status/screen.jpg on an unclaimed box = 200, want a refusal")
	}
	// POSTs to owner pages are refused, with a pointer to the claim page.
	res, body := ownertest.PostForm(t, c, b.url, "/status/pause", url.Values{})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "Claim") {
		t.Errorf("POST /status/pause unclaimed: %d %q, want 403 pointing to the claim", res.StatusCode, ownertest.Text(body))
	}
}

func TestClaimFlow(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	code := b.code(t)
	if _, err := os.Stat(b.setupFile); err != nil {
		t.Fatalf("setup code file: %v", err)
	}
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))

	tests := []struct {
		name       string
		code, pass string
		confirm    string
		wantStatus int
		wantText   string
	}{
		{"short passphrase", code, "123456789", "123456789", http.StatusBadRequest, "at least 10 characters"},
		{"confirm differs", code, "0123456789", "0123456789x", http.StatusBadRequest, "differ"},
		{"code with dash and lower case, short passphrase", strings.ToLower(code[:4] + "-" + code[4:]), "short", "short", http.StatusBadRequest, "at least 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {tt.code}, "passphrase": {tt.pass}, "confirm": {tt.confirm}})
			if res.StatusCode != tt.wantStatus || !strings.Contains(body, tt.wantText) {
				t.Fatalf("claim: status %d %q, want %d with %q", res.StatusCode, ownertest.Text(body), tt.wantStatus, tt.wantText)
			}
		})
	}
	// Bad passphrases do not count as wrong codes: five more tries remain.
	ownertest.Claim(t, c, b.url, strings.ToLower(code[:4]+"-"+code[4:]), testPass)

	if _, err := os.Stat(b.setupFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup code file after the claim: %v, want it deleted", err)
	}
	if got, claimed, err := b.pages.SetupCode(context.Background()); err != nil || !claimed || got != "" {
		t.Errorf("SetupCode() after the claim = %q, %v, %v; want claimed, no code", got, claimed, err)
	}
	// Logged in after the claim.
	res, body := ownertest.Get(t, c, b.url, "/status")
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" || !strings.Contains(body, "openlolo-test") {
		t.Fatalf("GET /status after the claim: %d at %s", res.StatusCode, res.Request.URL.Path)
	}

	// The code is void: a second claim with it (from another browser) fails.
	c2 := ownertest.NewClient(t, b.srv)
	res, body = ownertest.Get(t, c2, b.url, "/claim")
	if res.Request.URL.Path != "/login" {
		t.Errorf("GET /claim on a claimed box ended at %s, want /login", res.Request.URL.Path)
	}
	tok2 := ownertest.FormToken(body)
	res, body = ownertest.PostForm(t, c2, b.url, "/claim", url.Values{"csrf": {tok2}, "code": {code}, "passphrase": {"another passphrase"}, "confirm": {"another passphrase"}})
	if res.StatusCode != http.StatusConflict {
		t.Errorf("second claim: status %d %q, want 409", res.StatusCode, ownertest.Text(body))
	}
	ownertest.Login(t, c2, b.url, testPass)
}

func TestClaimLocksAfterFiveWrongCodes(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	code := b.code(t)
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
	claim := func(code string) (*http.Response, string) {
		return ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {code}, "passphrase": {testPass}, "confirm": {testPass}})
	}
	wrong := "XXXXXXXX"
	if wrong == code {
		wrong = "YYYYYYYY"
	}
	// Four wrong codes, then 11 minutes pass: the window forgets them.
	for i := 0; i < 4; i++ {
		if res, body := claim(wrong); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "wrong") {
			t.Fatalf("wrong code %d: %d %q, want 403", i+1, res.StatusCode, ownertest.Text(body))
		}
		b.clock.Add(time.Minute)
	}
	b.clock.Add(11 * time.Minute)
	for i := 0; i < 4; i++ {
		res, body := claim(wrong)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("wrong code %d after the window: %d, want 403", i+1, res.StatusCode)
		}
		if want := 4 - i; !strings.Contains(body, itoa(want)+" tr") {
			t.Errorf("wrong code %d: page %q does not say %d tries left", i+1, ownertest.Text(body), want)
		}
	}
	res, body := claim(wrong)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "12:25:00 UTC") || res.Header.Get("Retry-After") == "" {
		t.Fatalf("fifth wrong code: %d %q, want 429 locked until 12:25:00 UTC with Retry-After", res.StatusCode, ownertest.Text(body))
	}
	// Locked: even the right code is refused.
	b.clock.Add(9*time.Minute + 59*time.Second)
	if res, body := claim(code); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right code while locked: %d %q, want 429", res.StatusCode, ownertest.Text(body))
	}
	b.clock.Add(time.Second)
	ownertest.Claim(t, c, b.url, code, testPass)
}

func itoa(n int) string { return string(rune('0' + n)) }

func mustGet(t *testing.T, c *http.Client, base, path string) string {
	t.Helper()
	res, body := ownertest.Get(t, c, base, path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %q", path, res.StatusCode, ownertest.Text(body))
	}
	return body
}
