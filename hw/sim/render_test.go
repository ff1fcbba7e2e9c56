package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/phone"
)

// updateScreens rewrites testdata/screens.sha256 from what the sim draws.
var updateScreens = flag.Bool("sim.update", false, "rewrite testdata/screens.sha256 with the pictures' digests")

// screenCase is one picture of the golden digests: the state it shows.
type screenCase struct {
	name string
	size image.Point // zero: the default
	set  func(st *state)
}

// scrollingNote is enough text to scroll the note past the navigation bar.
var scrollingNote = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 60) + "\nlast line"

// screenCases are the pictures whose digests testdata/screens.sha256
// holds, in the order one phone shows them (so a cache carried from one
// picture to the next is exercised too).
func screenCases() []screenCase {
	var typed []screenCase
	for i := range 12 {
		typed = append(typed, screenCase{name: fmt.Sprintf("notes-typing-%02d", i), set: func(st *state) {
			st.screen, st.note = "notes", "Hello, box! Typing"+strings.Repeat("ab ", i)
		}})
	}
	cases := []screenCase{
		{name: "home", set: func(*state) {}},
		{name: "home-hud", set: func(st *state) { st.hud, st.volume = true, 11 }},
		{name: "home-muted", set: func(st *state) { st.hud, st.muted = true, true }},
		{name: "home-again", set: func(*state) {}},
		{name: "locked", set: func(st *state) { st.locked = true }},
		{name: "spotlight", set: func(st *state) { st.screen = screenSpotlight }},
		{name: "spotlight-query", set: func(st *state) { st.screen, st.query = screenSpotlight, "se" }},
		{name: "spotlight-none", set: func(st *state) { st.screen, st.query = screenSpotlight, "zzz" }},
		{name: "notes-empty", set: func(st *state) { st.screen = "notes" }},
		{name: "notes-long", set: func(st *state) { st.screen, st.note = "notes", scrollingNote }},
		{name: "notes-long-scrolled", set: func(st *state) {
			st.screen, st.note, st.noteFree, st.noteScroll = "notes", scrollingNote, true, 400
		}},
		{name: "notes-long-hud", set: func(st *state) { st.screen, st.note, st.hud = "notes", scrollingNote, true }},
		{name: "settings", set: func(st *state) { st.screen = "settings" }},
		{name: "settings-scrolled", set: func(st *state) { st.screen, st.scroll = "settings", 300 }},
		{name: "settings-airplane", set: func(st *state) { st.screen, st.airplane = "settings", true }},
		{name: "safari", set: func(st *state) { st.screen = "safari" }},
		{name: "safari-editing", set: func(st *state) { st.screen, st.editing, st.url = "safari", true, "example.org/a/page" }},
		{name: "safari-selall", set: func(st *state) {
			st.screen, st.editing, st.url, st.selAll = "safari", true, "example.org", true
		}},
		{name: "safari-page", set: func(st *state) { st.screen, st.page = "safari", "https://www.example.org/some/long/path?with=query" }},
		{name: "clock-app", set: func(st *state) { st.screen = "clock" }},
		{name: "small-home", size: image.Pt(390, 844), set: func(*state) {}},
		{name: "small-notes", size: image.Pt(390, 844), set: func(st *state) { st.screen, st.note = "notes", "small" }},
		{name: "home-last", set: func(*state) {}},
	}
	return append(typed, cases...)
}

// TestScreensGolden checks every picture of screenCases against the
// digests in testdata/screens.sha256, so a faster drawing draws the same
// pixels. Run with -sim.update to rewrite the file after a deliberate
// change of the look (and look at the pictures with -sim.png).
func TestScreensGolden(t *testing.T) {
	got := screenDigests(t, func(p *Phone, name string) []byte { return pixels(t, shot(t, p, name)) })
	path := filepath.Join("testdata", "screens.sha256")
	if *updateScreens {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkDigests(t, got, path)
}

// TestLendScreenshotGolden draws every picture of screenCases through
// LendScreenshot: each one into the buffer the one before was drawn into,
// so a screen that leaves a pixel unpainted shows what was there and its
// digest differs. The buffer is the same one all along while the size
// stays.
func TestLendScreenshotGolden(t *testing.T) {
	var (
		buf  *byte
		size image.Point
	)
	got := screenDigests(t, func(p *Phone, name string) []byte {
		var pix []byte
		err := p.LendScreenshot(context.Background(), func(f *phone.Frame) error {
			pix = bytes.Clone(pixels(t, f))
			if b := f.Image.Bounds().Size(); b == size && &pixels(t, f)[0] != buf {
				t.Errorf("%s: lent a new buffer for a picture of the same size", name)
			} else {
				buf, size = &pixels(t, f)[0], b
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: LendScreenshot: %v", name, err)
		}
		return pix
	})
	checkDigests(t, got, filepath.Join("testdata", "screens.sha256"))
}

// screenDigests sets one phone to each of screenCases in turn and lists
// the digest of the pixels take gives for each.
func screenDigests(t *testing.T, take func(p *Phone, name string) []byte) string {
	p := newTestPhone(t, Options{})
	var got strings.Builder
	for _, c := range screenCases() {
		size := c.size
		if size == (image.Point{}) {
			size = image.Pt(DefaultWidth, DefaultHeight)
		}
		if err := p.SetSize(size); err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		st := state{screen: screenHome, volume: maxVol / 2}
		c.set(&st)
		p.ui.st = st
		p.mu.Unlock()
		fmt.Fprintf(&got, "%x  %s\n", sha256.Sum256(take(p, c.name)), c.name)
	}
	return got.String()
}

// checkDigests compares got with the digests in the file at path.
func checkDigests(t *testing.T, got, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("pictures differ from %s (run with -sim.png DIR to see them):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
