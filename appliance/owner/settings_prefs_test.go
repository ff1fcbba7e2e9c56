package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// TestPreferencesFromSettings: Settings offers every preference the store
// declares, with the owner's choice selected; a value that is not a choice
// is refused and stores nothing; a choice is stored, shown, and recorded
// in Activity.
func TestPreferencesFromSettings(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	_, page := ownertest.Get(t, c, b.url, "/settings")
	if !strings.Contains(page, `action="/settings/prefs"`) || !strings.Contains(page, "Live view pictures per second") ||
		!strings.Contains(page, `<option value="" selected>The board&#39;s default</option>`) {
		t.Fatalf("Settings has no preferences form with the default chosen: %q", ownertest.Text(page))
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/prefs", url.Values{store.LiveFPS.Key: {"5"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("without the form token: %d, want 403", res.StatusCode)
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/prefs", url.Values{"csrf": {tok}, store.LiveFPS.Key: {"60"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "kept your preferences as they were") || !strings.Contains(body, "not one of the choices") {
		t.Fatalf("a value that is no choice: %d %q, want 400 saying so", res.StatusCode, ownertest.Text(body))
	}
	if got := liveFPS(t, b); got != 0 {
		t.Fatalf("a refused choice stored %d", got)
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/prefs", url.Values{"csrf": {tok}, store.LiveFPS.Key: {"5"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Your preferences are saved.") || !strings.Contains(body, `<option value="5" selected>`) {
		t.Fatalf("choose 5: %d %q, want saved and shown", res.StatusCode, ownertest.Text(body))
	}
	if got := liveFPS(t, b); got != 5 {
		t.Fatalf("stored %d pictures per second, want 5", got)
	}
	ownerAction(t, b, "changed Live view pictures per second: 5 per second")
}

func liveFPS(t *testing.T, b *box) int {
	t.Helper()
	var n int
	if err := b.st.View(context.Background(), func(tx *store.Tx) (err error) { n, err = store.LiveFPS.Get(tx); return err }); err != nil {
		t.Fatal(err)
	}
	return n
}
