package integration

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// TestAgentUsesText is an agent's task on the sim using only the tools,
// over the real box (HTTPS, OAuth, MCP) as a script would drive it: find
// "Notes" by its text, tap its centre on the answer's frame, type, find the
// typed text on the new screen, paste Unicode with send_text and read it
// back from the clipboard, paste the rest of a note three screens tall,
// scroll to its top (a tap on the status bar), capture it with
// openlolo_full_page and find its last line on the current frame, go home
// with the home shortcut.
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

	const unicode = "héllo ✓ 日本"
	sent, err := c.SendText(ctx, " "+unicode, &sdk.InputOptions{Observe: new(bool)})
	if err != nil {
		t.Fatalf("send_text: %v", err)
	}
	if r, err := sdk.Decode[api.SendTextResult](sent); err != nil || !r.ClipboardReplaced || r.Characters != 11 {
		t.Fatalf("send_text: %+v, %v", r, err)
	}
	clip, err := c.Clipboard(ctx)
	if err != nil {
		t.Fatalf("clipboard: %v", err)
	}
	if r, err := sdk.Decode[api.ClipboardResult](clip); err != nil || r.Text != " "+unicode {
		t.Fatalf("clipboard reads %+v, %v", r, err)
	}
	var rest strings.Builder
	for i := 1; i <= 70; i++ {
		fmt.Fprintf(&rest, "\nItem %d of the list: %d boxes", i, i*3)
	}
	if _, err := c.SendText(ctx, rest.String(), &sdk.InputOptions{Observe: new(bool)}); err != nil {
		t.Fatalf("send_text the list: %v", err)
	}
	if got, want := tb.Sim.NoteText(), "Pick up the parcel "+unicode+rest.String(); got != want {
		t.Fatalf("the note is %q, want %q", got, want)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{MaxSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tap(ctx, shot.Frame, 0.5, 0.01, &sdk.InputOptions{Observe: new(bool)}); err != nil {
		t.Fatalf("tap the status bar: %v", err)
	}
	settle := 0.0
	pageRes, err := c.FullPage(ctx, api.FullPageArgs{Output: api.OutputBoth, Settle: &settle})
	if err != nil {
		t.Fatalf("full_page: %v", err)
	}
	page, err := sdk.Decode[api.FullPageResult](pageRes)
	if err != nil || page.PageCount < 2 || page.Stopped != "end" || len(pageRes.Images) != page.PageCount+1 || page.Stitched == nil {
		t.Fatalf("full_page: %+v (%d images), %v", page, len(pageRes.Images), err)
	}
	t.Logf("full_page: %d pages, stitched %dx%d, %d ms", page.PageCount, page.Stitched.Width, page.Stitched.Height, page.TookMS)
	// The last page is the screen now: the note's last line is on it.
	find("item 70 of the list")
	if _, err := c.CallTool(ctx, string(api.ToolShortcut), map[string]any{"shortcut": "home", "observe": false}); err != nil {
		t.Fatalf("shortcut home: %v", err)
	}
	if s := tb.Sim.Screen(); s != "home" {
		t.Fatalf("after the home shortcut the phone shows %q", s)
	}
}
