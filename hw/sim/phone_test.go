package sim

import (
	"bytes"
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// These are issue 2's acceptance tests for the simulated phone: every
// input goes through phone.Phone's methods, hence through hw/input's
// driver, HID report bytes and the host's descriptor-driven decoder.

// newVirtualPhone returns a phone whose clock moves only when the driver
// waits, so gestures keep their real durations and take no real time.
func newVirtualPhone(t *testing.T, profile input.Profile) *Phone {
	t.Helper()
	clk := &stepClock{t: testTime}
	return newTestPhone(t, Options{Clock: clk.Now, Sleep: clk.Sleep, Profile: profile})
}

func must(t *testing.T, _ phone.Report, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func tap(t *testing.T, p *Phone, at phone.Point) {
	t.Helper()
	r, err := p.Touch(context.Background(), phone.Tap(at, 80*time.Millisecond))
	must(t, r, err)
}

func tapApp(t *testing.T, p *Phone, name string) {
	t.Helper()
	c, ok := p.IconCenter(name)
	if !ok {
		t.Fatalf("IconCenter(%q): no such icon", name)
	}
	tap(t, p, c)
}

// swipe drags from a to b in 300 ms at 60 points per second.
func swipe(t *testing.T, p *Phone, a, b phone.Point) {
	t.Helper()
	r, err := p.Touch(context.Background(), phone.Swipe(a, b, 0, 300*time.Millisecond, 0, 60))
	must(t, r, err)
}

func key(t *testing.T, p *Phone, name string, mods phone.Modifier) {
	t.Helper()
	r, err := p.Key(context.Background(), phone.Key{Name: name, Mods: mods})
	must(t, r, err)
}

func typeText(t *testing.T, p *Phone, s string) {
	t.Helper()
	r, err := p.Type(context.Background(), s)
	must(t, r, err)
}

func press(t *testing.T, p *Phone, b phone.Button) {
	t.Helper()
	r, err := p.Press(context.Background(), b)
	must(t, r, err)
}

var profiles = []input.Profile{input.IOS, input.Android, input.IOSRelative}

func TestPhoneTapNotesIcon(t *testing.T) {
	for _, prof := range profiles {
		t.Run(prof.String(), func(t *testing.T) {
			t.Parallel()
			p := newVirtualPhone(t, prof)
			home := shot(t, p, "home")
			tapApp(t, p, "Notes")
			if got := p.Screen(); got != "notes" {
				t.Fatalf("Screen() = %q after tapping Notes, want notes", got)
			}
			notes := shot(t, p, "notes-"+prof.String())
			if notes.Seq <= home.Seq || bytes.Equal(pixels(t, home), pixels(t, notes)) {
				t.Errorf("the frame did not change: Seq %d→%d", home.Seq, notes.Seq)
			}
			if n := p.ReportCount(prof.Pointer()); n == 0 {
				t.Errorf("ReportCount(%s) = 0: the tap did not go through the %s function", prof.Pointer(), prof.Pointer())
			}
			for _, k := range hid.Kinds() {
				if k != prof.Pointer() && k != hid.KindKeyboard && k != hid.KindConsumer && p.ReportCount(k) != 0 {
					t.Errorf("ReportCount(%s) = %d, want 0 with the %s profile", k, p.ReportCount(k), prof)
				}
			}
		})
	}
}

func TestPhoneTypeInNotes(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	tapApp(t, p, "Notes")
	empty := shot(t, p, "notes-empty")
	typeText(t, p, "Hello, box!")
	if got := p.NoteText(); got != "Hello, box!" {
		t.Errorf("NoteText() = %q, want %q", got, "Hello, box!")
	}
	typed := shot(t, p, "notes-typed")
	if bytes.Equal(pixels(t, empty), pixels(t, typed)) {
		t.Error("typing did not change the frame")
	}
	key(t, p, "enter", 0)
	typeText(t, p, "Line 2x")
	key(t, p, "backspace", 0)
	if got, want := p.NoteText(), "Hello, box!\nLine 2"; got != want {
		t.Errorf("NoteText() = %q, want %q", got, want)
	}
	// Every printable ASCII character arrives as itself: the driver's
	// keymap and the host's layout agree.
	var all []byte
	for c := byte(0x20); c < 0x7f; c++ {
		all = append(all, c)
	}
	key(t, p, "enter", 0)
	typeText(t, p, string(all))
	if got, want := p.NoteText(), "Hello, box!\nLine 2\n"+string(all); got != want {
		t.Errorf("NoteText() = %q, want %q", got, want)
	}
}

func TestPhoneTypeUnsupportedText(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	tapApp(t, p, "Notes")
	before := p.ReportCount(hid.KindKeyboard)
	for _, text := range []string{"héllo", "tab\there", "emoji 🙂", "line\n"} {
		_, err := p.Type(context.Background(), text)
		if !errors.Is(err, phone.ErrUnsupportedText) {
			t.Errorf("Type(%q) = %v, want ErrUnsupportedText", text, err)
		}
	}
	if n := p.ReportCount(hid.KindKeyboard); n != before {
		t.Errorf("ReportCount(keyboard) = %d after refused text, want %d", n, before)
	}
	if got := p.NoteText(); got != "" {
		t.Errorf("NoteText() = %q, want nothing typed", got)
	}
}

func TestPhoneHome(t *testing.T) {
	ways := []struct {
		name    string
		profile input.Profile
		home    func(t *testing.T, p *Phone)
		kind    hid.Kind // the function the way uses
	}{
		{"press home (cmd+h)", input.IOS, func(t *testing.T, p *Phone) { press(t, p, phone.Home) }, hid.KindKeyboard},
		{"key cmd+h", input.IOS, func(t *testing.T, p *Phone) { key(t, p, "h", phone.Cmd) }, hid.KindKeyboard},
		{"press home (AC Home)", input.Android, func(t *testing.T, p *Phone) { press(t, p, phone.Home) }, hid.KindConsumer},
		{"swipe up from the bottom edge", input.IOS, func(t *testing.T, p *Phone) { swipe(t, p, pt(0.5, 0.995), pt(0.5, 0.55)) }, hid.KindAbsMouse},
		{"swipe up on the digitizer", input.Android, func(t *testing.T, p *Phone) { swipe(t, p, pt(0.5, 0.995), pt(0.5, 0.55)) }, hid.KindTouch},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			p := newVirtualPhone(t, w.profile)
			home := shot(t, p, "home")
			tapApp(t, p, "Notes")
			if p.Screen() != "notes" {
				t.Fatalf("Screen() = %q after tapping Notes", p.Screen())
			}
			n := p.ReportCount(w.kind)
			w.home(t, p)
			if got := p.Screen(); got != screenHome {
				t.Fatalf("Screen() = %q, want home", got)
			}
			if p.ReportCount(w.kind) == n {
				t.Errorf("no %s report was decoded", w.kind)
			}
			if !bytes.Equal(pixels(t, home), pixels(t, shot(t, p, "home-again"))) {
				t.Error("the home screen looks different after Home")
			}
		})
	}
}

func TestPhoneSpotlightOpensSafari(t *testing.T) {
	opens := []struct {
		name string
		open func(t *testing.T, p *Phone)
	}{
		{"cmd+space", func(t *testing.T, p *Phone) { key(t, p, "space", phone.Cmd) }},
		{"swipe down", func(t *testing.T, p *Phone) { swipe(t, p, pt(0.5, 0.3), pt(0.5, 0.6)) }},
	}
	for _, o := range opens {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			p := newVirtualPhone(t, input.IOS)
			o.open(t, p)
			if got := p.Screen(); got != screenSpotlight {
				t.Fatalf("Screen() = %q, want spotlight", got)
			}
			typeText(t, p, "saf")
			shot(t, p, "spotlight-saf")
			key(t, p, "enter", 0)
			if got := p.Screen(); got != "safari" {
				t.Errorf("Screen() = %q, want safari", got)
			}
		})
	}
}

func TestPhoneOpenURLInSafari(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	tapApp(t, p, "Safari")
	typeText(t, p, "example.com/path")
	key(t, p, "enter", 0)
	if got, want := p.URL(), "https://example.com/path"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
	// A second URL: cmd+L selects the address, typing replaces it.
	key(t, p, "l", phone.Cmd)
	typeText(t, p, "https://go.dev/doc")
	key(t, p, "enter", 0)
	if got, want := p.URL(), "https://go.dev/doc"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
}

func TestPhoneSwipeScrollsSettings(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	tapApp(t, p, "Settings")
	if got := p.Screen(); got != "settings" {
		t.Fatalf("Screen() = %q, want settings", got)
	}
	prev := shot(t, p, "settings-top")
	_, limit := p.SettingsScroll()
	for i := 1; ; i++ {
		swipe(t, p, pt(0.5, 0.8), pt(0.5, 0.3))
		f := shot(t, p, "settings-swiped")
		s, _ := p.SettingsScroll()
		if s > limit || s < 0 {
			t.Fatalf("swipe %d scrolled to %d, outside 0..%d", i, s, limit)
		}
		if s < limit {
			if f.Seq == prev.Seq || bytes.Equal(pixels(t, prev), pixels(t, f)) {
				t.Fatalf("swipe %d did not change the frame (scroll %d of %d)", i, s, limit)
			}
		} else {
			// At the end: one more identical swipe must not move anything.
			swipe(t, p, pt(0.5, 0.8), pt(0.5, 0.3))
			end := shot(t, p, "settings-end")
			if s2, _ := p.SettingsScroll(); s2 != limit || end.Seq != f.Seq || !bytes.Equal(pixels(t, f), pixels(t, end)) {
				t.Errorf("a swipe at the end scrolled to %d (max %d), Seq %d→%d", s2, limit, f.Seq, end.Seq)
			}
			return
		}
		if i > 20 {
			t.Fatalf("20 swipes did not reach the end (scroll %d of %d)", s, limit)
		}
		prev = f
	}
}

// TestPhoneFramesDeterministic: two phones given the same inputs under
// the fixed clock show byte-identical frames with the same Seq.
func TestPhoneFramesDeterministic(t *testing.T) {
	run := func() *phone.Frame {
		p := newTestPhone(t, Options{})
		tapApp(t, p, "Notes")
		typeText(t, p, "Deterministic.")
		key(t, p, "h", phone.Cmd)
		tapApp(t, p, "Settings")
		swipe(t, p, pt(0.5, 0.8), pt(0.5, 0.4))
		return shot(t, p, "deterministic")
	}
	a, b := run(), run()
	if a.Seq != b.Seq || !bytes.Equal(pixels(t, a), pixels(t, b)) {
		t.Errorf("frames differ: Seq %d vs %d", a.Seq, b.Seq)
	}
}

func TestPhoneButtons(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	tapApp(t, p, "Notes")
	press(t, p, phone.Lock)
	if got := p.Screen(); got != screenLocked {
		t.Fatalf("Screen() = %q after lock, want locked", got)
	}
	if f := shot(t, p, "locked"); !allBlack(f.Image.(*image.RGBA)) {
		t.Error("the locked screen is not black")
	}
	press(t, p, phone.Home)
	if got := p.Screen(); got != screenHome {
		t.Errorf("Screen() = %q after home on the locked phone, want home", got)
	}
	plain := shot(t, p, "plain")
	press(t, p, phone.VolumeUp)
	press(t, p, phone.Mute)
	if bytes.Equal(pixels(t, plain), pixels(t, shot(t, p, "volume-hud"))) {
		t.Error("volume and mute showed no HUD")
	}
	for _, b := range []phone.Button{phone.Back, phone.AppSwitch, "eject"} {
		n := p.ReportCount(hid.KindConsumer)
		if _, err := p.Press(context.Background(), b); !errors.Is(err, phone.ErrUnsupportedButton) {
			t.Errorf("Press(%q) = %v, want ErrUnsupportedButton", b, err)
		}
		if p.ReportCount(hid.KindConsumer) != n {
			t.Errorf("Press(%q) sent a report", b)
		}
	}
	if _, err := p.Key(context.Background(), phone.Key{Name: "hyper"}); !errors.Is(err, phone.ErrUnsupportedKey) {
		t.Errorf("Key(hyper) = %v, want ErrUnsupportedKey", err)
	}
	if err := p.ReleaseAll(context.Background()); err != nil {
		t.Errorf("ReleaseAll: %v", err)
	}
}

func TestPhoneClosed(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checks := map[string]error{}
	_, checks["Touch"] = p.Touch(ctx, phone.Tap(pt(0.5, 0.5), 0))
	_, checks["Type"] = p.Type(ctx, "a")
	_, checks["Key"] = p.Key(ctx, phone.Key{Name: "a"})
	_, checks["Press"] = p.Press(ctx, phone.Home)
	checks["ReleaseAll"] = p.ReleaseAll(ctx)
	_, checks["Screenshot"] = p.Screenshot(ctx)
	checks["LendScreenshot"] = p.LendScreenshot(ctx, func(*phone.Frame) error {
		t.Error("LendScreenshot lent a frame after Close")
		return nil
	})
	for name, err := range checks {
		if !errors.Is(err, phone.ErrUnavailable) {
			t.Errorf("%s after Close = %v, want ErrUnavailable", name, err)
		}
	}
}

func TestPhoneCancelledTouch(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Touch(ctx, phone.Tap(pt(0.5, 0.5), 0)); !errors.Is(err, context.Canceled) {
		t.Errorf("Touch with a cancelled ctx = %v, want context.Canceled", err)
	}
	if got := p.Screen(); got != screenHome {
		t.Errorf("Screen() = %q, want home", got)
	}
}
