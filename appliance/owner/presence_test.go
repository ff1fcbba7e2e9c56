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
	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/store"
)

// fakeButton is the box's button as a test presses it.
type fakeButton struct{ ch chan panel.Event }

func newButton(t *testing.T) *fakeButton {
	b := &fakeButton{ch: make(chan panel.Event)} // unbuffered: see press
	t.Cleanup(func() { close(b.ch) })
	return b
}

// events is the presses the pages read (Config.Button); nil without a
// button.
func (b *fakeButton) events() <-chan panel.Event {
	if b == nil {
		return nil
	}
	return b.ch
}

// press presses the button and returns once the pages have handled the
// press: they read events one at a time, so the second send completes
// only after the press was dealt with.
func (b *fakeButton) press() {
	b.ch <- panel.Event{Kind: panel.Press, At: time.Now()}
	b.ch <- panel.Event{Kind: panel.ResetCancelled, At: time.Now()}
}

// startButtonClaim sends the "claim with the button" form from c.
func startButtonClaim(t *testing.T, c *http.Client, base, pass, confirm string) (*http.Response, string) {
	t.Helper()
	tok := ownertest.FormToken(mustGet(t, c, base, "/claim"))
	return ownertest.PostForm(t, c, base, "/claim/button", url.Values{"csrf": {tok}, "passphrase": {pass}, "confirm": {confirm}})
}

func isClaimed(t *testing.T, b *box) bool {
	t.Helper()
	_, claimed, err := b.pages.SetupCode(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return claimed
}

func TestClaimByButton(t *testing.T) {
	btn := newButton(t)
	b := newBox(t, boxOpts{button: btn})
	b.code(t) // the box printed its code at start
	c := ownertest.NewClient(t, b.srv)

	if page := mustGet(t, c, b.url, "/claim"); !strings.Contains(page, "Claim with the button") {
		t.Fatalf("claim page of a box with a button does not offer it: %q", ownertest.Text(page))
	}
	tests := []struct {
		name, pass, confirm string
		want                string
	}{
		{"short passphrase", "short", "short", "at least 10 characters"},
		{"confirm differs", testPass, testPass + "x", "differ"},
	}
	for _, tt := range tests {
		res, body := startButtonClaim(t, c, b.url, tt.pass, tt.confirm)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %q, want 400 with %q", tt.name, res.StatusCode, ownertest.Text(body), tt.want)
		}
	}
	res, body := startButtonClaim(t, c, b.url, testPass, testPass)
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/claim/button" || !strings.Contains(body, "Press the button on the box") {
		t.Fatalf("start: %d at %s %q, want the waiting page", res.StatusCode, res.Request.URL.Path, ownertest.Text(body))
	}
	if res.Header.Get("Refresh") == "" {
		t.Error("the waiting page does not reload itself (no Refresh header)")
	}
	// Still waiting: not claimed, not logged in.
	if isClaimed(t, b) {
		t.Fatal("box claimed before the press")
	}
	if res, body := ownertest.Get(t, c, b.url, "/claim/button"); !strings.Contains(body, "Press the button") {
		t.Fatalf("waiting page again: %d %q", res.StatusCode, ownertest.Text(body))
	}

	btn.press()
	if !isClaimed(t, b) {
		t.Fatal("box not claimed after the press")
	}
	if _, err := os.Stat(b.setupFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup code file after the button claim: %v, want it deleted", err)
	}
	res, body = ownertest.Get(t, c, b.url, "/claim/button")
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" || !strings.Contains(body, "openlolo-test") {
		t.Fatalf("after the press: %d at %s %q, want logged in at /status", res.StatusCode, res.Request.URL.Path, ownertest.Text(body))
	}
	// The passphrase chosen before the press is the owner's.
	other := ownertest.NewClient(t, b.srv)
	ownertest.Login(t, other, b.url, testPass)
	// A second press does nothing.
	btn.press()
	if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Errorf("session lost after a second press: at %s", res.Request.URL.Path)
	}
}

func TestClaimByButtonIsBoundToItsBrowser(t *testing.T) {
	btn := newButton(t)
	b := newBox(t, boxOpts{button: btn})
	b.code(t)
	mine := ownertest.NewClient(t, b.srv)
	theirs := ownertest.NewClient(t, b.srv)

	if res, _ := startButtonClaim(t, mine, b.url, testPass, testPass); res.Request.URL.Path != "/claim/button" {
		t.Fatalf("start: at %s", res.Request.URL.Path)
	}
	// Another browser cannot start its own claim while mine waits: a
	// press would otherwise make whoever started last the owner.
	res, body := startButtonClaim(t, theirs, b.url, "another passphrase", "another passphrase")
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "Another claim") || res.Header.Get("Retry-After") == "" {
		t.Fatalf("second browser: %d %q, want 409 with Retry-After", res.StatusCode, ownertest.Text(body))
	}
	// Nor can it ride on mine.
	if res, _ := ownertest.Get(t, theirs, b.url, "/claim/button"); res.Request.URL.Path != "/claim" {
		t.Errorf("other browser's waiting page: at %s, want sent to /claim", res.Request.URL.Path)
	}
	btn.press()
	res, _ = ownertest.Get(t, theirs, b.url, "/claim/button")
	if res.Request.URL.Path != "/login" {
		t.Errorf("other browser after the press: at %s, want /login (not logged in)", res.Request.URL.Path)
	}
	if res, _ := ownertest.Get(t, theirs, b.url, "/status"); res.Request.URL.Path != "/login" {
		t.Errorf("other browser GET /status after the press: at %s, want /login", res.Request.URL.Path)
	}
	if res, _ := ownertest.Get(t, mine, b.url, "/claim/button"); res.Request.URL.Path != "/status" {
		t.Errorf("my browser after the press: at %s, want /status", res.Request.URL.Path)
	}
	// The other browser's passphrase was never stored.
	tok := ownertest.FormToken(mustGet(t, theirs, b.url, "/login"))
	res, _ = ownertest.PostForm(t, theirs, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {"another passphrase"}})
	if res.Request.URL.Path == "/status" {
		t.Error("the refused claim's passphrase logs in")
	}
}

func TestClaimByButtonRefusals(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, b *box, btn *fakeButton, c *http.Client)
	}{
		{"press with no claim waiting does nothing", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			btn.press()
			if isClaimed(t, b) {
				t.Error("a press with no claim waiting claimed the box")
			}
		}},
		{"press after two minutes does nothing", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			startButtonClaim(t, c, b.url, testPass, testPass)
			b.clock.Add(2*time.Minute + time.Second)
			btn.press()
			if isClaimed(t, b) {
				t.Fatal("a late press claimed the box")
			}
			res, body := ownertest.Get(t, c, b.url, "/claim/button")
			if !strings.Contains(body, "not pressed within two minutes") {
				t.Errorf("late waiting page: %d %q", res.StatusCode, ownertest.Text(body))
			}
			// The claim is gone: a new one may start, from any browser.
			other := ownertest.NewClient(t, b.srv)
			if res, _ := startButtonClaim(t, other, b.url, testPass, testPass); res.Request.URL.Path != "/claim/button" {
				t.Errorf("new claim after the expiry: at %s", res.Request.URL.Path)
			}
		}},
		{"cancel frees the button for another browser", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			startButtonClaim(t, c, b.url, testPass, testPass)
			tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim/button"))
			res, _ := ownertest.PostForm(t, c, b.url, "/claim/button", url.Values{"csrf": {tok}, "action": {"cancel"}})
			if res.Request.URL.Path != "/claim" {
				t.Fatalf("cancel: at %s", res.Request.URL.Path)
			}
			btn.press()
			if isClaimed(t, b) {
				t.Fatal("a press after the cancel claimed the box")
			}
			other := ownertest.NewClient(t, b.srv)
			if res, _ := startButtonClaim(t, other, b.url, testPass, testPass); res.Request.URL.Path != "/claim/button" {
				t.Errorf("claim after the cancel: at %s", res.Request.URL.Path)
			}
		}},
		{"setup code wins over a later press", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			startButtonClaim(t, c, b.url, "button passphrase", "button passphrase")
			ownertest.Claim(t, ownertest.NewClient(t, b.srv), b.url, b.code(t), testPass)
			btn.press()
			res, body := ownertest.Get(t, c, b.url, "/claim/button")
			if res.StatusCode != http.StatusConflict || !strings.Contains(body, "Already claimed") {
				t.Errorf("button browser after the code claim: %d %q, want 409", res.StatusCode, ownertest.Text(body))
			}
			ownertest.Login(t, ownertest.NewClient(t, b.srv), b.url, testPass) // the code claimer still owns it
		}},
		{"browser back after the login window logs in with the passphrase", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			startButtonClaim(t, c, b.url, testPass, testPass)
			btn.press()
			b.clock.Add(3 * time.Minute)
			res, body := ownertest.Get(t, c, b.url, "/claim/button")
			if !strings.Contains(body, "Log in with the passphrase you chose") {
				t.Errorf("late return: %d %q", res.StatusCode, ownertest.Text(body))
			}
			if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/login" {
				t.Errorf("late return logged in: at %s", res.Request.URL.Path)
			}
		}},
		{"form without its token", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			mustGet(t, c, b.url, "/claim")
			res, _ := ownertest.PostForm(t, c, b.url, "/claim/button", url.Values{"passphrase": {testPass}, "confirm": {testPass}})
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("no csrf: %d, want 403", res.StatusCode)
			}
			btn.press()
			if isClaimed(t, b) {
				t.Error("a refused form's claim was confirmed by the press")
			}
		}},
		// Issue 13: the lock is what a peer that keeps guessing sets, so
		// the owner at the box gets through it with the button.
		{"locked claiming lets the button through", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
			var res *http.Response
			var body string
			for range 6 {
				res, body = ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {"WRONGCOD"}, "passphrase": {testPass}, "confirm": {testPass}})
			}
			if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(ownertest.FullText(body), "claim it with its button instead") {
				t.Errorf("setup code while locked: %d %q, want 429 naming the button", res.StatusCode, ownertest.Text(body))
			}
			res, body = startButtonClaim(t, c, b.url, testPass, testPass)
			if res.StatusCode != http.StatusOK || !strings.Contains(ownertest.FullText(body), "Press the button") {
				t.Fatalf("button claim while locked: %d %q, want the page that waits for the press", res.StatusCode, ownertest.Text(body))
			}
			btn.press()
			if !isClaimed(t, b) {
				t.Error("the press did not claim the box")
			}
		}},
		{"refused claims count toward the lock", func(t *testing.T, b *box, btn *fakeButton, c *http.Client) {
			startButtonClaim(t, c, b.url, testPass, testPass)
			other := ownertest.NewClient(t, b.srv)
			var res *http.Response
			for range 5 {
				res, _ = startButtonClaim(t, other, b.url, testPass, testPass)
			}
			if res.StatusCode != http.StatusTooManyRequests {
				t.Errorf("fifth refused button claim: %d, want 429", res.StatusCode)
			}
			// The lock holds for codes as well.
			tok := ownertest.FormToken(mustGet(t, other, b.url, "/claim"))
			res, _ = ownertest.PostForm(t, other, b.url, "/claim", url.Values{"csrf": {tok}, "code": {b.code(t)}, "passphrase": {testPass}, "confirm": {testPass}})
			if res.StatusCode != http.StatusTooManyRequests {
				t.Errorf("code claim after the lock: %d, want 429", res.StatusCode)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			btn := newButton(t)
			b := newBox(t, boxOpts{button: btn})
			b.code(t)
			tt.run(t, b, btn, ownertest.NewClient(t, b.srv))
		})
	}
}

func TestClaimWithoutButton(t *testing.T) {
	b := newBox(t, boxOpts{})
	c := ownertest.NewClient(t, b.srv)
	page := mustGet(t, c, b.url, "/claim")
	if strings.Contains(page, "/claim/button") {
		t.Error("claim page of a box without a button offers the button")
	}
	res, body := startButtonClaim(t, c, b.url, testPass, testPass)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "setup code") {
		t.Errorf("button claim without a button: %d %q, want 404", res.StatusCode, ownertest.Text(body))
	}
}

func TestFactoryReset(t *testing.T) {
	btn := newButton(t)
	b := newBox(t, boxOpts{button: btn})
	c := ownertest.NewClient(t, b.srv)
	old := b.code(t)
	ownertest.Claim(t, c, b.url, old, testPass)
	err := b.st.Update(context.Background(), func(tx *store.Tx) error { return tx.SetSetting("tailnet.owner_login", "me@example.com") })
	if err != nil {
		t.Fatal(err)
	}

	code, lost, err := b.pages.FactoryReset(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 8 || code == old {
		t.Errorf("new setup code %q (old %q), want a fresh 8-character code", code, old)
	}
	if lost["owner"] != 1 || lost["owner_sessions"] != 1 {
		t.Errorf("rows lost = %v, want the owner and one session", lost)
	}
	if f, err := os.ReadFile(b.setupFile); err != nil || strings.TrimSpace(string(f)) != code {
		t.Errorf("setup code file = %q, %v; want %s", f, err, code)
	}
	if got := b.code(t); got != code {
		t.Errorf("SetupCode() = %s, want the reset's %s", got, code)
	}
	err = b.st.View(context.Background(), func(tx *store.Tx) error { _, err := tx.Setting("tailnet.owner_login"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("linked tailnet login after the reset: %v, want it gone", err)
	}
	// The old session is over and the box shows the claim page again.
	res, body := ownertest.Get(t, c, b.url, "/status")
	if !strings.Contains(body, "<h1>Claim this box</h1>") {
		t.Fatalf("GET /status after the reset: %d %q, want the claim page", res.StatusCode, ownertest.Text(body))
	}
	// The old code is void, the new one claims, and the button works again.
	tok := ownertest.FormToken(body)
	res, _ = ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "code": {old}, "passphrase": {testPass}, "confirm": {testPass}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("old code after the reset: %d, want 403", res.StatusCode)
	}
	fresh := ownertest.NewClient(t, b.srv)
	startButtonClaim(t, fresh, b.url, "new owner passphrase", "new owner passphrase")
	btn.press()
	if res, _ := ownertest.Get(t, fresh, b.url, "/claim/button"); res.Request.URL.Path != "/status" {
		t.Errorf("button claim after the reset: at %s", res.Request.URL.Path)
	}
}

func TestButtonClaimFailures(t *testing.T) {
	btn := newButton(t)
	b := newBox(t, boxOpts{button: btn})
	b.code(t)
	c := ownertest.NewClient(t, b.srv)
	late := ownertest.NewClient(t, b.srv)
	tok := ownertest.FormToken(mustGet(t, late, b.url, "/claim"))
	startButtonClaim(t, c, b.url, testPass, testPass)

	// The database gone: a press cannot store the owner, the pages say
	// something went wrong, and the reset fails with what failed.
	b.st.Close()
	btn.press()
	res, body := ownertest.Get(t, c, b.url, "/claim/button")
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "Something went wrong") {
		t.Errorf("waiting page with the store closed: %d %q, want 500", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, late, b.url, "/claim/button", url.Values{"csrf": {tok}, "passphrase": {testPass}, "confirm": {testPass}})
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "Something went wrong") {
		t.Errorf("button claim with the store closed: %d %q, want 500", res.StatusCode, ownertest.Text(body))
	}
	if _, _, err := b.pages.FactoryReset(context.Background()); err == nil || !strings.Contains(err.Error(), "factory reset") {
		t.Errorf("FactoryReset with the store closed = %v, want an error naming the reset", err)
	}
}
