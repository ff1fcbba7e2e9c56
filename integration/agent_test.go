package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// TestAgentUsesText is an agent's task on the sim using only the tools,
// over the real box (HTTPS, OAuth, MCP) as a script would drive it: find
// "Notes" by its text, tap its centre on the answer's frame, type, find the
// typed text on the new screen, go home with the home shortcut.
// (openlolo_full_page, the capture step of issue 17's script, is not built
// yet.)
func TestAgentUsesText(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("no tesseract here (scripts/deps.sh installs it)")
	}
	tb := startBox(t, "", false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	find := func(q string) *api.FindTextResult {
		t.Helper()
		res, err := c.FindText(ctx, q)
		if err != nil {
			t.Fatalf("find_text %q: %v", q, err)
		}
		r, err := sdk.Decode[api.FindTextResult](res)
		if err != nil || len(r.Matches) != 1 {
			t.Fatalf("find_text %q: %+v, %v", q, r, err)
		}
		return r
	}
	r := find("Notes")
	m := r.Matches[0]
	if _, err := c.Tap(ctx, sdk.Frame{ID: r.FrameID, Epoch: r.GeometryEpoch}, m.CenterX, m.CenterY, nil); err != nil {
		t.Fatalf("tap %q at %v,%v: %v", m.Text, m.CenterX, m.CenterY, err)
	}
	if s := tb.Sim.Screen(); s != "notes" {
		t.Fatalf("after tapping the found Notes the phone shows %q", s)
	}
	if _, err := c.TypeText(ctx, "Pick up the parcel", nil); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	find("pick up the parcel")
	if _, err := c.CallTool(ctx, string(api.ToolShortcut), map[string]any{"shortcut": "home", "observe": false}); err != nil {
		t.Fatalf("shortcut home: %v", err)
	}
	if s := tb.Sim.Screen(); s != "home" {
		t.Fatalf("after the home shortcut the phone shows %q", s)
	}
}
