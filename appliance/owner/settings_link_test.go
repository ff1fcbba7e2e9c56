package owner_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// TestTailnetLinkRefusesABadLogin: a login the setting's check refuses is
// not stored, and the Settings page says why.
func TestTailnetLinkRefusesABadLogin(t *testing.T) {
	t.Parallel()
	base, srv, st := tailnetBox(t, &fakeTailnet{})
	odd := as(t, srv, "two words")
	ownertest.Login(t, odd, base, testPass)
	res, body := ownertest.PostForm(t, odd, base, "/settings/tailnet/link", url.Values{"csrf": {ownertest.CSRF(t, odd, base)}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "cannot link this tailnet login") {
		t.Fatalf("link of %q: %d %s", "two words", res.StatusCode, ownertest.Text(body))
	}
	err := st.View(t.Context(), func(tx *store.Tx) error { _, err := tx.Setting(store.KeyTailnetOwnerLogin); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after a refused link the setting reads %v, want it unset", err)
	}
}
