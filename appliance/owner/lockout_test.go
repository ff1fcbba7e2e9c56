package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// wrongLogins posts n wrong passphrases from c and returns the last answer.
func wrongLogins(t *testing.T, b *box, c *http.Client, n int) (*http.Response, string) {
	t.Helper()
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/login"))
	var res *http.Response
	var body string
	for range n {
		res, body = ownertest.PostForm(t, c, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {"wrong passphrase"}})
	}
	return res, body
}

// TestLoginLockPerSource pins the lock-out anyone on the LAN could hold:
// ten wrong passphrases a minute from any peer used to keep the owner out,
// across restarts. Now a peer locks out only itself.
func TestLoginLockPerSource(t *testing.T) {
	t.Parallel() // each hashes dozens of passphrases (argon2id, 64 MiB)
	b, _ := claimedBox(t, boxOpts{})
	peer := peerClient(t, b, "192.0.2.66:4000")
	wrongLogins(t, b, peer, 10)
	res, body := wrongLogins(t, b, peer, 1)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(ownertest.FullText(body), "from this device") ||
		!strings.Contains(ownertest.FullText(body), "openlolo owner reset-passphrase") {
		t.Fatalf("the guessing peer: %d %q, want 429 naming the console", res.StatusCode, ownertest.Text(body))
	}
	// The same peer on another port is the same source.
	if res, _ := wrongLogins(t, b, peerClient(t, b, "192.0.2.66:4001"), 1); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the peer from another port: %d, want 429", res.StatusCode)
	}
	// The owner on another device logs in.
	ownertest.Login(t, peerClient(t, b, "192.0.2.10:5000"), b.url, testPass)
}

func TestLoginLockWholeBoxButton(t *testing.T) {
	t.Parallel() // each hashes dozens of passphrases (argon2id, 64 MiB)
	btn := newButton(t)
	b, _ := claimedBox(t, boxOpts{button: btn})
	// Guessing from many addresses trips the box-wide count.
	for i := range 3 {
		wrongLogins(t, b, peerClient(t, b, "192.0.2."+string(rune('1'+i))+":4000"), 10)
	}
	ownerC := peerClient(t, b, "192.0.2.10:5000")
	tok := ownertest.FormToken(mustGet(t, ownerC, b.url, "/login"))
	res, body := ownertest.PostForm(t, ownerC, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {testPass}})
	text := ownertest.Text(body)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(text, "from across the network") ||
		!strings.Contains(text, "Log in with the box's button") {
		t.Fatalf("the owner while the box-wide lock holds: %d %q, want 429 offering the button", res.StatusCode, text)
	}
	// The owner asks for the button, presses it, and gets in.
	tok = ownertest.FormToken(body)
	res, body = ownertest.PostForm(t, ownerC, b.url, "/login/button", url.Values{"csrf": {tok}, "next": {"/access"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(ownertest.FullText(body), "Press the button") {
		t.Fatalf("/login/button: %d %q", res.StatusCode, ownertest.Text(body))
	}
	// Another browser's login is not let through by this press.
	stranger := peerClient(t, b, "192.0.2.99:6000")
	btn.press()
	if res, _ := wrongLogins(t, b, stranger, 1); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("another browser after the press: %d, want 429", res.StatusCode)
	}
	body = mustGet(t, ownerC, b.url, "/login/button?next=/access")
	if !strings.Contains(ownertest.FullText(body), "felt its button") {
		t.Fatalf("after the press: %q", ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, ownerC, b.url, "/login", url.Values{"csrf": {ownertest.FormToken(body)},
		"passphrase": {testPass}, "next": {"/access"}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
		t.Fatalf("login with the button pass: %d at %s %q", res.StatusCode, res.Request.URL, ownertest.Text(body))
	}
}

// TestLoginLockWithoutButton: with no button the box-wide lock names the
// console, and the console's reset lets the owner in at once.
func TestLoginLockWithoutButton(t *testing.T) {
	t.Parallel() // each hashes dozens of passphrases (argon2id, 64 MiB)
	b, _ := claimedBox(t, boxOpts{})
	for i := range 3 {
		wrongLogins(t, b, peerClient(t, b, "198.51.100."+string(rune('1'+i))+":4000"), 10)
	}
	ownerC := peerClient(t, b, "198.51.100.50:5000")
	res, body := wrongLogins(t, b, ownerC, 1)
	if text := ownertest.Text(body); res.StatusCode != http.StatusTooManyRequests || strings.Contains(text, "box's button") ||
		!strings.Contains(text, "openlolo owner reset-passphrase") {
		t.Fatalf("box-wide lock without a button: %d %q", res.StatusCode, text)
	}
	const newPass = "a brand new passphrase"
	if err := owner.ResetPassphrase(context.Background(), b.st, newPass); err != nil {
		t.Fatal(err)
	}
	ownertest.Login(t, ownerC, b.url, newPass)
}

// TestClaimLockPerSource: wrong setup codes from one peer lock only that
// peer out of claiming.
func TestClaimLockPerSource(t *testing.T) {
	t.Parallel() // each hashes dozens of passphrases (argon2id, 64 MiB)
	b := newBox(t, boxOpts{})
	peer := peerClient(t, b, "[2001:db8:1:2::66]:4000")
	tok := ownertest.FormToken(mustGet(t, peer, b.url, "/claim"))
	var res *http.Response
	var body string
	for range 5 {
		res, body = ownertest.PostForm(t, peer, b.url, "/claim", url.Values{"csrf": {tok}, "code": {"WRONGCOD"},
			"passphrase": {testPass}, "confirm": {testPass}})
	}
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(ownertest.FullText(body), "from this device") {
		t.Fatalf("fifth wrong code: %d %q", res.StatusCode, ownertest.Text(body))
	}
	// The same /64 is the same source.
	other := peerClient(t, b, "[2001:db8:1:2::77]:4000")
	res, _ = ownertest.PostForm(t, other, b.url, "/claim", url.Values{"csrf": {ownertest.FormToken(mustGet(t, other, b.url, "/claim"))},
		"code": {b.code(t)}, "passphrase": {testPass}, "confirm": {testPass}})
	if res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the same /64: %d, want 429", res.StatusCode)
	}
	// The owner elsewhere claims with the right code.
	ownerC := peerClient(t, b, "192.0.2.10:5000")
	ownertest.Claim(t, ownerC, b.url, b.code(t), testPass)
	b.clock.Add(time.Second)
}
