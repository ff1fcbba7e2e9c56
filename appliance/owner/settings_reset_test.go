package owner_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// TestFactoryResetFromSettings: without the typed word nothing is reset;
// with it the box is unclaimed, the session ends and the claim page shows.
func TestFactoryResetFromSettings(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	tok := ownertest.CSRF(t, c, b.url)
	for _, typed := range []string{"", "reset", "yes"} {
		res, body := ownertest.PostForm(t, c, b.url, "/settings/factory-reset", url.Values{"csrf": {tok}, "confirm": {typed}})
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Nothing was reset") {
			t.Fatalf("typed %q: %d %q, want 400", typed, res.StatusCode, ownertest.Text(body))
		}
	}
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/factory-reset", url.Values{"confirm": {"RESET"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("without the form token: %d, want 403", res.StatusCode)
	}
	if res, _ := ownertest.Get(t, c, b.url, "/status"); res.Request.URL.Path != "/status" {
		t.Fatalf("a refused reset ended the session (at %s)", res.Request.URL)
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/factory-reset", url.Values{"csrf": {tok}, "confirm": {"RESET"}})
	if res.StatusCode != 200 || res.Request.URL.Path != "/claim" || !strings.Contains(body, "Claim this box") {
		t.Fatalf("reset: %d at %s %q, want the claim page", res.StatusCode, res.Request.URL, ownertest.Text(body))
	}
	// Unclaimed with a new setup code: a fresh browser claims it.
	ownertest.Claim(t, ownertest.NewClient(t, b.srv), b.url, b.code(t), testPass)
}
