package mcp_test

import (
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// TestAppProfilesOnSim: the profile tools through the real endpoint (the
// device flow's token, the go-sdk client over HTTPS) on the simulated
// iPhone: the list and one profile, a deep link that the phone really
// opens (its Safari shows the built URL), and each refusal's code.
func TestAppProfilesOnSim(t *testing.T) {
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "profiles agent", "phone:read phone:control"))

	_, list := call(t, cs, "openlolo_app_profiles", map[string]any{"query": "notes"})
	mustOK(t, "app_profiles", list)
	ps, _ := list["profiles"].([]any)
	if len(ps) != 1 || ps[0].(map[string]any)["in_catalog"] != true || list["platform"] != "ios" {
		t.Fatalf("app_profiles notes: %v", list)
	}
	_, one := call(t, cs, "openlolo_app_profile", map[string]any{"bundle_id": "com.apple.Maps"})
	mustOK(t, "app_profile", one)
	if p, _ := one["profile"].(map[string]any); p["name"] != "Maps" || one["in_catalog"] != true {
		t.Fatalf("app_profile Maps: %v", one)
	}

	res, link := call(t, cs, "openlolo_open_link", map[string]any{"bundle_id": "com.apple.Maps", "link": "directions",
		"params": map[string]any{"to": "Alexanderplatz 1, Berlin", "mode": "w"}})
	mustOK(t, "open_link", link)
	want := "https://maps.apple.com/?daddr=Alexanderplatz%201%2C%20Berlin&dirflg=w"
	if link["url"] != want || link["dispatched"] != true {
		t.Fatalf("open_link answered %v", link)
	}
	if got := b.sim.URL(); got != want || b.sim.Screen() != "safari" {
		t.Fatalf("the sim shows %s at %q, want safari at %q", b.sim.Screen(), got, want)
	}
	if obs, _ := link["observation"].(map[string]any); obs["frame_id"] == nil || len(res.Content) != 2 {
		t.Errorf("open_link's observation: %v, %d blocks", link["observation"], len(res.Content))
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		code api.Code
	}{
		{"openlolo_app_profiles", map[string]any{"query": strings.Repeat("q", api.MaxQuery+1)}, api.CodeInvalidArguments},
		{"openlolo_app_profile", map[string]any{"bundle_id": "com.example.none"}, api.CodeProfileNotFound},
		{"openlolo_app_profile", map[string]any{"bundle_id": 5}, api.CodeInvalidArguments},
		{"openlolo_open_link", map[string]any{"bundle_id": "com.example.none", "link": "x"}, api.CodeProfileNotFound},
		{"openlolo_open_link", map[string]any{"bundle_id": "com.apple.Maps", "link": "fly"}, api.CodeLinkNotFound},
		{"openlolo_open_link", map[string]any{"bundle_id": "com.apple.Maps", "link": "directions", "params": map[string]any{"to": "x", "mode": "fly"}}, api.CodeLinkParams},
		{"openlolo_open_link", map[string]any{"bundle_id": "com.apple.mobilenotes", "link": "open"}, api.CodeUnsupported},
		{"openlolo_open_link", map[string]any{"bundle_id": "com.apple.Maps", "link": "search", "params": "coffee"}, api.CodeInvalidArguments},
	} {
		_, sc := call(t, cs, tc.tool, tc.args)
		if code(sc) != tc.code {
			t.Errorf("%s %v: %v, want %s", tc.tool, tc.args, sc, tc.code)
		}
	}
	if b.sim.URL() != want {
		t.Errorf("a refused link changed the page to %q", b.sim.URL())
	}

	ro := b.session(t, b.token(t, "reader", "phone:read"))
	if _, sc := call(t, ro, "openlolo_open_link", map[string]any{"bundle_id": "com.apple.Maps", "link": "search", "params": map[string]any{"query": "x"}}); code(sc) != api.CodeScopeRequired {
		t.Errorf("open_link with phone:read only: %v", sc)
	}
}
