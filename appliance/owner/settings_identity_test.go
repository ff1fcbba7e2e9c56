package owner_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// fakeIdentity stands for the box behind owner.Identity: each rename or
// rotation makes a new fingerprint. The box's own test (appliance) shows
// the real one serving the new certificate.
type fakeIdentity struct {
	mu    sync.Mutex
	name  string
	certs int
}

func identityOf(f *fakeIdentity) owner.Identity {
	if f == nil {
		return nil
	}
	return f
}

func (f *fakeIdentity) info() owner.BoxInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	fp := fmt.Sprintf("AB:%02X", f.certs)
	return owner.BoxInfo{BoxInfo: api.BoxInfo{Name: f.name, Version: "v0.0.0-test"}, Fingerprint: strings.ToLower(strings.ReplaceAll(fp, ":", "")), FingerprintColon: fp, Backend: "sim"}
}

func (f *fakeIdentity) CheckName(name string) error {
	if name == "" || strings.ToLower(name) != name || strings.ContainsAny(name, " ._") {
		return errors.New("appliance: box name " + fmt.Sprintf("%q", name) + " is not a DNS label: use 1 to 63 lower-case letters, digits and inner hyphens, e.g. openlolo-kitchen")
	}
	return nil
}

func (f *fakeIdentity) Rename(_ context.Context, name string) (owner.BoxInfo, error) {
	f.mu.Lock()
	f.name, f.certs = name, f.certs+1
	f.mu.Unlock()
	return f.info(), nil
}

func (f *fakeIdentity) RotateCert(context.Context) (owner.BoxInfo, error) {
	f.mu.Lock()
	f.certs++
	f.mu.Unlock()
	return f.info(), nil
}

// TestRenameFromSettings: the form needs the form token; a bad name is
// refused with the rule and renames nothing; a good one shows the new
// address and fingerprint, and Activity records it.
func TestRenameFromSettings(t *testing.T) {
	id := &fakeIdentity{name: "openlolo-test"}
	b, c := claimedBox(t, boxOpts{identity: id})
	_, page := ownertest.Get(t, c, b.url, "/settings")
	if !strings.Contains(page, `action="/settings/rename"`) || !strings.Contains(page, "must pin the new one again") {
		t.Fatalf("Settings has no rename form with the warning: %q", ownertest.Text(page))
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/rename", url.Values{"name": {"openlolo-kitchen"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("without the form token: %d, want 403", res.StatusCode)
	}
	for _, bad := range []string{"", "Kitchen", "my box", "box.local"} {
		res, body := ownertest.PostForm(t, c, b.url, "/settings/rename", url.Values{"csrf": {tok}, "name": {bad}})
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "keeps its name") || !strings.Contains(body, "not a DNS label") {
			t.Fatalf("name %q: %d %q, want 400 with the rule", bad, res.StatusCode, ownertest.Text(body))
		}
	}
	if got := id.info(); got.Name != "openlolo-test" || got.FingerprintColon != "AB:00" {
		t.Fatalf("refused names changed the box: %+v", got)
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/rename", url.Values{"csrf": {tok}, "name": {"openlolo-kitchen"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "https://openlolo-kitchen.local/") || !strings.Contains(body, "fingerprint AB:01") || !strings.Contains(body, "must pin it again") {
		t.Fatalf("rename: %d %q, want the new address and fingerprint", res.StatusCode, ownertest.Text(body))
	}
	ownerAction(t, b, "renamed the box from “openlolo-test” to “openlolo-kitchen”; new certificate fingerprint AB:01")
}

// TestRotateCertFromSettings: without the ticked confirmation nothing
// changes; with it the page shows the new fingerprint and Activity
// records the owner's action.
func TestRotateCertFromSettings(t *testing.T) {
	id := &fakeIdentity{name: "openlolo-test"}
	b, c := claimedBox(t, boxOpts{identity: id})
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/rotate-cert", url.Values{"confirm": {"rotate"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("without the form token: %d, want 403", res.StatusCode)
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/rotate-cert", url.Values{"csrf": {tok}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "certificate is unchanged") || id.info().FingerprintColon != "AB:00" {
		t.Fatalf("unconfirmed: %d %q, want 400 and no new certificate", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/rotate-cert", url.Values{"csrf": {tok}, "confirm": {"rotate"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "fingerprint AB:01") || !strings.Contains(body, "must pin it again") {
		t.Fatalf("rotate: %d %q, want the new fingerprint", res.StatusCode, ownertest.Text(body))
	}
	ownerAction(t, b, "made a new LAN certificate; fingerprint AB:01")
}

// TestSettingsWithoutIdentity: a box without Config.Identity offers no
// rename and refuses the form.
func TestSettingsWithoutIdentity(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	if _, page := ownertest.Get(t, c, b.url, "/settings"); strings.Contains(page, `action="/settings/rename"`) {
		t.Fatal("Settings offers a rename without Config.Identity")
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/rename", url.Values{"csrf": {tok}, "name": {"openlolo-kitchen"}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("rename without Identity: %d, want 409", res.StatusCode)
	}
}

// ownerAction fails t unless the actions log Activity lists holds the
// owner's action with detail.
func ownerAction(t *testing.T, b *box, detail string) {
	t.Helper()
	var acts []store.Action
	if err := b.st.View(context.Background(), func(tx *store.Tx) (err error) { acts, err = tx.RecentActions(20); return err }); err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.Actor == "owner" && a.Detail == detail {
			return
		}
	}
	t.Fatalf("no owner action %q in the actions log: %+v", detail, acts)
}
