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

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// TestClaimInPerson: the setup network's claim takes no code, but the LAN
// claim form still does; the claimed box's passphrase then logs in.
func TestClaimInPerson(t *testing.T) {
	b := newBox(t, boxOpts{})
	ctx := context.Background()
	c := ownertest.NewClient(t, b.srv)
	tok := ownertest.FormToken(mustGet(t, c, b.url, "/claim"))
	res, body := ownertest.PostForm(t, c, b.url, "/claim", url.Values{"csrf": {tok}, "passphrase": {testPass}, "confirm": {testPass}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("LAN claim without the code: %d %q, want 403", res.StatusCode, ownertest.Text(body))
	}
	if ok, err := b.pages.Claimed(ctx); ok || err != nil {
		t.Fatalf("Claimed after the refused LAN claim = %v, %v", ok, err)
	}
	if err := b.pages.ClaimInPerson(ctx, "short"); !errors.Is(err, owner.ErrBadPassphrase) {
		t.Fatalf("ClaimInPerson(short) = %v, want ErrBadPassphrase", err)
	}
	if ok, _ := b.pages.IsOwnerPassphrase(ctx, testPass); ok {
		t.Fatal("IsOwnerPassphrase true on an unclaimed box")
	}
	if err := b.pages.ClaimInPerson(ctx, testPass); err != nil {
		t.Fatalf("ClaimInPerson: %v", err)
	}
	if _, err := os.Stat(b.setupFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup code file after the claim: %v, want it deleted", err)
	}
	if err := b.pages.ClaimInPerson(ctx, "another passphrase"); !errors.Is(err, owner.ErrAlreadyClaimed) {
		t.Errorf("second ClaimInPerson = %v, want ErrAlreadyClaimed", err)
	}
	for pass, want := range map[string]bool{testPass: true, "another passphrase": false} {
		if ok, err := b.pages.IsOwnerPassphrase(ctx, pass); ok != want || err != nil {
			t.Errorf("IsOwnerPassphrase(%q) = %v, %v; want %v", pass, ok, err, want)
		}
	}
	c2 := ownertest.NewClient(t, b.srv)
	ownertest.Login(t, c2, b.url, testPass)
	var acts []store.Action
	if err := b.st.View(ctx, func(tx *store.Tx) (err error) { acts, err = tx.RecentActions(10); return err }); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range acts {
		found = found || strings.Contains(a.Detail, "setup Wi-Fi network")
	}
	if !found {
		t.Errorf("the claim is not in the actions log: %+v", acts)
	}
}
