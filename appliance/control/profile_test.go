package control_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/profiles"
	"github.com/openlolo/openlolo/phone"
)

func params(s string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// TestAppProfiles: the list is the phone's platform's, filtered by query,
// says which apps the catalog has; one profile by bundle id (any case).
func TestAppProfiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		all := e.svc.AppProfiles(ctx, alice, api.AppProfilesArgs{})
		wantCode(t, all.Answer, "")
		if all.Result.Platform != api.PlatformIOS || all.Result.Matched != len(all.Result.Profiles) || all.Result.Matched < 15 {
			t.Fatalf("list %+v", all.Result)
		}
		for _, p := range all.Result.Profiles {
			if p.Platform != api.PlatformIOS {
				t.Errorf("an %s profile on an iOS phone: %s", p.Platform, p.BundleID)
			}
			if p.InCatalog != (p.BundleID == "com.apple.mobilenotes" || p.BundleID == "com.apple.mobilesafari" || p.BundleID == "com.apple.Preferences") {
				t.Errorf("%s in_catalog %v", p.BundleID, p.InCatalog)
			}
		}
		maps := e.svc.AppProfiles(ctx, alice, api.AppProfilesArgs{Query: "MAPS"})
		if wantCode(t, maps.Answer, ""); maps.Result.Matched != 2 || !slices.Contains(maps.Result.Profiles[0].Links, "search") {
			t.Fatalf("query maps: %+v", maps.Result)
		}
		wantCode(t, e.svc.AppProfiles(ctx, alice, api.AppProfilesArgs{Query: strings.Repeat("q", api.MaxQuery+1)}).Answer, api.CodeInvalidArguments)

		one := e.svc.AppProfile(ctx, alice, api.AppProfileArgs{BundleID: "com.apple.maps"})
		if wantCode(t, one.Answer, ""); one.Result.Profile.BundleID != "com.apple.Maps" || one.Result.InCatalog || len(one.Result.Profile.Links[0].Params) == 0 {
			t.Fatalf("profile %+v", one.Result)
		}
		wantCode(t, e.svc.AppProfile(ctx, alice, api.AppProfileArgs{}).Answer, api.CodeInvalidArguments)
		wantCode(t, e.svc.AppProfile(ctx, alice, api.AppProfileArgs{BundleID: strings.Repeat("a", api.MaxAppRef+1)}).Answer, api.CodeInvalidArguments)
		wantCode(t, e.svc.AppProfile(ctx, alice, api.AppProfileArgs{BundleID: "com.example.nothing"}).Answer, api.CodeProfileNotFound)
	})
}

// TestOpenLink: a link's URL is built from checked, encoded parameters and
// opened through open_url's path (Safari's address bar here, the phone's
// own opener where it has one); each refusal has its code and nothing
// reaches the phone.
func TestOpenLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		opts := api.InputOptions{Observe: &noObserve}
		link := func(c control.Client, id, name, ps string) control.Reply[api.OpenLinkResult] {
			return e.svc.OpenLink(ctx, c, api.OpenLinkArgs{InputOptions: opts, BundleID: id, Link: name, Params: params(ps)})
		}
		r := link(alice, "com.apple.Maps", "search", `{"query":"coffee & cake","zoom":15}`)
		wantCode(t, r.Answer, "")
		want := "https://maps.apple.com/?q=coffee%20%26%20cake&z=15"
		if r.Result.URL != want || r.Result.App.Name != "Maps" || r.Dispatched == nil || !*r.Dispatched {
			t.Fatalf("open_link %+v", r.Result)
		}
		if typed := e.ph.Typed(); typed != "Safari"+want {
			t.Fatalf("the Safari recipe typed %q", typed)
		}
		inputs := e.ph.Inputs()
		for _, tc := range []struct {
			c            control.Client
			id, name, ps string
			code         api.Code
		}{
			{alice, "com.apple.Maps", "", `{}`, api.CodeInvalidArguments},
			{alice, "", "search", `{}`, api.CodeInvalidArguments},
			{alice, "com.apple.Maps", strings.Repeat("l", api.MaxLinkName+1), `{}`, api.CodeInvalidArguments},
			{alice, "com.example.nothing", "search", `{}`, api.CodeProfileNotFound},
			{alice, "com.apple.Maps", "teleport", `{}`, api.CodeLinkNotFound},
			{alice, "com.apple.Maps", "search", `{}`, api.CodeLinkParams},
			{alice, "com.apple.Maps", "search", `{"query":"x","zoom":"far"}`, api.CodeLinkParams},
			{alice, "com.apple.Maps", "search", `{"query":"x","color":"red"}`, api.CodeLinkParams},
			{alice, "com.apple.Maps", "search_app", `{"query":"x"}`, api.CodeUnsupported},  // maps: needs a native opener
			{alice, "com.whatsapp", "chat", `{"phone":"4930123456"}`, api.CodeUnsupported}, // an Android profile
			{bob, "com.apple.Maps", "search", `{"query":"x"}`, api.CodeControlBusy},
		} {
			r := link(tc.c, tc.id, tc.name, tc.ps)
			wantCode(t, r.Answer, tc.code)
			if r.Dispatched == nil || *r.Dispatched {
				t.Errorf("%s %s: dispatched %v", tc.name, tc.ps, r.Dispatched)
			}
		}
		if u := link(alice, "com.apple.Maps", "search_app", `{"query":"x"}`); !strings.Contains(u.Error.Message, "web links open here: search, directions") {
			t.Errorf("UNSUPPORTED does not name the web links: %s", u.Error.Message)
		}
		if e.ph.Inputs() != inputs {
			t.Fatalf("refused links reached the phone: %d inputs, want %d", e.ph.Inputs(), inputs)
		}

		// The same operation_id with other parameters conflicts.
		id := "20000000-0000-4000-8000-000000000001"
		o := api.InputOptions{Observe: &noObserve, OperationID: id}
		wantCode(t, e.svc.OpenLink(ctx, alice, api.OpenLinkArgs{InputOptions: o, BundleID: "com.apple.Maps", Link: "search", Params: params(`{"query":"a"}`)}).Answer, "")
		o.OperationID = id
		wantCode(t, e.svc.OpenLink(ctx, alice, api.OpenLinkArgs{InputOptions: o, BundleID: "com.apple.Maps", Link: "search", Params: params(`{"query":"b"}`)}).Answer, api.CodeOperationConflict)

		// A phone that opens any scheme gets the maps: link itself.
		e.ph.SetNative(phone.Capabilities{OpenURL: true})
		wantCode(t, link(alice, "com.apple.Maps", "search_app", `{"query":"x y"}`).Answer, "")
		if got := e.ph.Opened(); !slices.Equal(got, []string{"maps://?q=x%20y"}) {
			t.Fatalf("native open: %v", got)
		}
		if err := e.svc.Pause(ctx, "owner"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, link(alice, "com.apple.Maps", "search", `{"query":"x"}`).Answer, api.CodePaused)
	})
}

// TestOwnerProfiles: a Service with a profiles.Store serves the owner's
// file and notices when it changes; a bad file leaves the shipped ones.
func TestOwnerProfiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), profiles.FileName)
	if err := os.WriteFile(path, []byte(`{"profiles": [{"bundle_id": "com.apple.mobilenotes", "name": "Notes", "platform": "ios",
  "links": [{"name": "shop", "description": "x", "url": "https://example.com/notes/{id}", "params": [{"name": "id", "type": "integer", "required": true}]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := profiles.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		e.stop()
		e.start(control.Limits{}, func(c *control.Config) { c.Profiles = store })
		ctx := context.Background()
		p := e.svc.AppProfile(ctx, alice, api.AppProfileArgs{BundleID: "com.apple.mobilenotes"})
		if wantCode(t, p.Answer, ""); p.Result.Profile.Source != api.SourceOwner || p.Result.Profile.Links[0].Name != "shop" {
			t.Fatalf("owner's profile %+v", p.Result.Profile)
		}
		r := e.svc.OpenLink(ctx, alice, api.OpenLinkArgs{InputOptions: api.InputOptions{Observe: &noObserve}, BundleID: "com.apple.mobilenotes", Link: "shop", Params: params(`{"id":"42"}`)})
		if wantCode(t, r.Answer, ""); r.Result.URL != "https://example.com/notes/42" {
			t.Fatalf("owner's link opened %q", r.Result.URL)
		}
	})
}
