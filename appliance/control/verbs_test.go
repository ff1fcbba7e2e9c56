package control_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/phone"
)

var noObserve = false

// TestRecipesFollowCapabilities: launch_app and open_url use the keyboard
// recipes on a phone without native support, and the backend's own
// methods on one that reports them; which URL schemes open follows too.
func TestRecipesFollowCapabilities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		opts := api.InputOptions{Observe: &noObserve}
		// Settings is one of the apps a new box asks about (asks_test.go
		// tests that); here it launches without asking.
		if err := e.svc.SetBoxMarks(ctx, nil); err != nil {
			t.Fatal(err)
		}

		a := e.svc.LaunchApp(ctx, alice, api.LaunchAppArgs{InputOptions: opts, BundleID: "com.apple.mobilenotes"})
		wantCode(t, a.Answer, "")
		if e.ph.Typed() != "Notes" || len(e.ph.Opened()) != 0 || a.Result.App.Name != "Notes" {
			t.Fatalf("keyboard recipe: typed %q, opened %v, app %+v", e.ph.Typed(), e.ph.Opened(), a.Result.App)
		}
		u := e.svc.OpenURL(ctx, alice, api.OpenURLArgs{InputOptions: opts, URL: "https://example.com/x"})
		wantCode(t, u.Answer, "")
		if e.ph.Typed() != "NotesSafarihttps://example.com/x" {
			t.Fatalf("URL recipe typed %q", e.ph.Typed())
		}
		wantCode(t, e.svc.OpenURL(ctx, alice, api.OpenURLArgs{InputOptions: opts, URL: "myapp://open/1"}).Answer, api.CodeUnsupported)

		e.ph.SetNative(phone.Capabilities{LaunchApp: true, OpenURL: true})
		inputs := e.ph.Inputs()
		wantCode(t, e.svc.LaunchApp(ctx, alice, api.LaunchAppArgs{InputOptions: opts, Name: "Settings"}).Answer, "")
		wantCode(t, e.svc.OpenURL(ctx, alice, api.OpenURLArgs{InputOptions: opts, URL: "myapp://open/1"}).Answer, "")
		if got := e.ph.Opened(); !slices.Equal(got, []string{"com.apple.Preferences", "myapp://open/1"}) || e.ph.Inputs() != inputs+2 {
			t.Fatalf("native: opened %v, %d inputs (want 2 more than %d)", got, e.ph.Inputs(), inputs)
		}
		caps := e.svc.Capabilities(ctx, alice, api.CapabilitiesArgs{})
		if !caps.Result.Native.LaunchApp || !slices.Equal(caps.Result.OpenURL, []string{"*"}) {
			t.Fatalf("capabilities %+v", caps.Result)
		}
	})
}

// TestInputObservation: an input verb takes the observation screenshot
// after it (and it becomes the caller's latest frame); with observe=false
// it takes none.
func TestInputObservation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		r := e.svc.Key(ctx, alice, api.KeyArgs{Key: "a"})
		wantCode(t, r.Answer, "")
		if r.Shot == nil || r.Result.Reports == 0 {
			t.Fatalf("key answer %+v, shot %v", r.Answer, r.Shot)
		}
		ref := control.FrameRef{ID: r.Shot.ID, Epoch: r.Shot.Epoch}
		if err := e.svc.CheckFrame(alice, ref); err != nil {
			t.Fatalf("the observation is not alice's latest frame: %v", err)
		}
		if r := e.svc.Key(ctx, alice, api.KeyArgs{Key: "b", InputOptions: api.InputOptions{Observe: &noObserve}}); r.Shot != nil {
			t.Fatal("observe=false took a screenshot")
		}
	})
}
