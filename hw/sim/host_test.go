package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// These tests drive the simulated host with raw HID reports built by
// hw/hid's encoders; the tests in phone_test.go go through phone.Phone.

// TestScreens walks through every screen and saves each frame (see
// -sim.png) so a person can look at them.
func TestScreens(t *testing.T) {
	p := newTestPhone(t, Options{})
	shot(t, p, "home")
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	typeKeys(t, p, "Hello, box!")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	typeKeys(t, p, "A long line that has to wrap because it is wider than the screen of the phone.")
	shot(t, p, "notes")
	chord(t, p, hid.LeftGUI, hid.KeySpace)
	typeKeys(t, p, "s")
	shot(t, p, "spotlight")
	chord(t, p, hid.LeftGUI, keyH)
	c, _ = p.IconCenter("Settings")
	mouseTap(t, p, c)
	shot(t, p, "settings")
	mouseDrag(t, p, pt(0.5, 0.8), pt(0.5, 0.3), 10)
	shot(t, p, "settings-scrolled")
	button(t, p, hid.ConsumerHome)
	c, _ = p.IconCenter("Safari")
	mouseTap(t, p, c)
	shot(t, p, "safari-start")
	typeKeys(t, p, "example.com/hello")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	shot(t, p, "safari-page")
	button(t, p, hid.ConsumerVolumeUp)
	shot(t, p, "volume")
	button(t, p, hid.ConsumerHome)
	c, _ = p.IconCenter("Maps")
	mouseTap(t, p, c)
	shot(t, p, "maps")
	button(t, p, hid.ConsumerPower)
	if f := shot(t, p, "locked"); !allBlack(f.Image.(*image.RGBA)) {
		t.Error("locked screen is not black")
	}
}

func allBlack(img *image.RGBA) bool {
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 0 || img.Pix[i+1] != 0 || img.Pix[i+2] != 0 {
			return false
		}
	}
	return true
}

// TestTapOpensEveryApp taps each icon with each pointer function the
// host knows: the absolute mouse (iOS), the digitizer (Android) and the
// relative mouse (homed in the top-left corner first).
func TestTapOpensEveryApp(t *testing.T) {
	pointers := map[string]func(t testing.TB, p *Phone, at phone.Point){
		"absmouse": mouseTap,
		"touch": func(t testing.TB, p *Phone, at phone.Point) {
			x, y := hid.Scale(at.X), hid.Scale(at.Y)
			write(t, p, hid.KindTouch, hid.Touch(hid.TouchState{Contact: true, X: x, Y: y}))
			write(t, p, hid.KindTouch, hid.Touch(hid.TouchState{X: x, Y: y}))
		},
		"relmouse": func(t testing.TB, p *Phone, at phone.Point) {
			for range 40 { // home: far up and left
				write(t, p, hid.KindRelMouse, hid.RelMouse(0, -127, -127, 0))
			}
			// One count is one point: walk there in steps of at most 100.
			l := p.ui.lay
			dx, dy := at.X*float64(l.size.X)/l.s, at.Y*float64(l.size.Y)/l.s
			for dx > 0.5 || dy > 0.5 {
				sx, sy := min(dx, 100), min(dy, 100)
				write(t, p, hid.KindRelMouse, hid.RelMouse(0, int8(sx+0.5), int8(sy+0.5), 0))
				dx -= float64(int8(sx + 0.5))
				dy -= float64(int8(sy + 0.5))
			}
			write(t, p, hid.KindRelMouse, hid.RelMouse(hid.ButtonLeft, 0, 0, 0))
			write(t, p, hid.KindRelMouse, hid.RelMouse(0, 0, 0, 0))
		},
	}
	for name, tap := range pointers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newTestPhone(t, Options{})
			for _, a := range catalog() {
				c, ok := p.IconCenter(a.name)
				if !ok {
					t.Fatalf("IconCenter(%q) not found", a.name)
				}
				tap(t, p, c)
				if got, want := p.Screen(), appKey(a); got != want {
					t.Errorf("after tapping %s at %v: Screen() = %q, want %q", a.name, c, got, want)
				}
				button(t, p, hid.ConsumerHome)
			}
		})
	}
}

// TestHome returns to the home screen from an app in each of the three
// ways.
func TestHome(t *testing.T) {
	ways := map[string]func(t *testing.T, p *Phone){
		"cmd+h":    func(t *testing.T, p *Phone) { chord(t, p, hid.LeftGUI, keyH) },
		"AC Home":  func(t *testing.T, p *Phone) { button(t, p, hid.ConsumerHome) },
		"swipe up": func(t *testing.T, p *Phone) { mouseDrag(t, p, pt(0.5, 0.995), pt(0.5, 0.6), 12) },
	}
	for name, home := range ways {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newTestPhone(t, Options{})
			before := shot(t, p, "home-before")
			c, _ := p.IconCenter("Notes")
			mouseTap(t, p, c)
			if p.Screen() != "notes" {
				t.Fatalf("Screen() = %q after tapping Notes", p.Screen())
			}
			home(t, p)
			if got := p.Screen(); got != screenHome {
				t.Fatalf("Screen() = %q, want home", got)
			}
			after := shot(t, p, "home-after")
			if !bytes.Equal(pixels(t, before), pixels(t, after)) {
				t.Error("the home screen after Home differs from the one before")
			}
		})
	}
}

// TestSwipeUpAwayFromEdgeIsNotHome pins the edge rule: a swipe up that
// starts in the middle of an app does not go home.
func TestSwipeUpAwayFromEdgeIsNotHome(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	mouseDrag(t, p, pt(0.5, 0.8), pt(0.5, 0.3), 12)
	if got := p.Screen(); got != "notes" {
		t.Errorf("Screen() = %q, want notes", got)
	}
}

func TestSpotlight(t *testing.T) {
	open := map[string]func(t *testing.T, p *Phone){
		"cmd+space":  func(t *testing.T, p *Phone) { chord(t, p, hid.LeftGUI, hid.KeySpace) },
		"swipe down": func(t *testing.T, p *Phone) { mouseDrag(t, p, pt(0.5, 0.3), pt(0.5, 0.6), 12) },
		"AC Search":  func(t *testing.T, p *Phone) { button(t, p, hid.ConsumerSearch) },
		"search pill": func(t *testing.T, p *Phone) {
			r := p.ui.lay.searchPill()
			mouseTap(t, p, pt(float64(r.Min.X+r.Max.X)/2/float64(p.ui.lay.size.X), float64(r.Min.Y+r.Max.Y)/2/float64(p.ui.lay.size.Y)))
		},
	}
	for name, o := range open {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newTestPhone(t, Options{})
			o(t, p)
			if got := p.Screen(); got != screenSpotlight {
				t.Fatalf("Screen() = %q, want spotlight", got)
			}
			empty := shot(t, p, "spotlight-empty")
			typeKeys(t, p, "saf")
			if got := p.Query(); got != "saf" {
				t.Errorf("Query() = %q, want saf", got)
			}
			typed := shot(t, p, "spotlight-saf")
			if bytes.Equal(pixels(t, empty), pixels(t, typed)) {
				t.Error("typing in Spotlight did not change the picture")
			}
			write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
			if got := p.Screen(); got != "safari" {
				t.Errorf("Screen() = %q after Enter, want safari", got)
			}
		})
	}
}

func TestSpotlightSearch(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"saf", []string{"Safari"}},
		{"SET", []string{"Settings"}},
		{"st", []string{"Stocks", "App Store"}}, // prefix, then word
		{"o", []string{"Photos", "Clock", "Notes", "Stocks", "App Store", "Calculator", "Phone"}}, // contains
		{" notes ", []string{"Notes"}},
		{"zzz", nil},
		{"", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, a := range search(catalog(), tc.query) {
			got = append(got, a.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

func TestNotesEditing(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	typeKeys(t, p, "Hi")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	typeKeys(t, p, "there~")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyBackspace))
	write(t, p, hid.KindKeyboard, hid.Keyboard(0))
	// Ctrl and Alt chords type nothing.
	chord(t, p, hid.LeftCtrl, hid.KeyA)
	chord(t, p, hid.LeftAlt, hid.KeyA)
	if got, want := p.NoteText(), "Hi\nthere"; got != want {
		t.Errorf("NoteText() = %q, want %q", got, want)
	}
}

// TestKeyHeldIsOnePress: a key held over several reports types once, as
// on a host that does no key repeat.
func TestKeyHeldIsOnePress(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	for range 3 {
		write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyA))
	}
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyA, hid.KeyA+1))
	write(t, p, hid.KindKeyboard, hid.Keyboard(0))
	if got := p.NoteText(); got != "ab" {
		t.Errorf("NoteText() = %q, want ab", got)
	}
}

func TestSafariOpensURL(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Safari")
	mouseTap(t, p, c)
	typeKeys(t, p, "example.org/a?b=c")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	if got, want := p.URL(), "https://example.org/a?b=c"; got != want {
		t.Fatalf("URL() = %q, want %q", got, want)
	}
	// cmd+L focuses the address bar with the URL selected; typing
	// replaces it.
	chord(t, p, hid.LeftGUI, keyL)
	shot(t, p, "safari-selected")
	typeKeys(t, p, "https://go.dev/")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	if got, want := p.URL(), "https://go.dev/"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
}

func TestSettingsScrollsWithinBounds(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Settings")
	mouseTap(t, p, c)
	prev := shot(t, p, "settings-0")
	_, limit := p.SettingsScroll()
	if limit <= 0 {
		t.Fatalf("Settings cannot scroll: max %d", limit)
	}
	for i := 1; ; i++ {
		mouseDrag(t, p, pt(0.5, 0.8), pt(0.5, 0.3), 10)
		f := shot(t, p, "settings-scrolled")
		s, _ := p.SettingsScroll()
		if s > limit {
			t.Fatalf("scrolled to %d, past the bound %d", s, limit)
		}
		if bytes.Equal(pixels(t, prev), pixels(t, f)) != (f.Seq == prev.Seq) {
			t.Fatalf("swipe %d: Seq %d→%d disagrees with the pixels", i, prev.Seq, f.Seq)
		}
		if f.Seq == prev.Seq {
			if s != limit {
				t.Fatalf("swipe %d did not scroll, but the list is at %d of %d", i, s, limit)
			}
			break
		}
		if i > 20 {
			t.Fatal("20 swipes never reached the end of the list")
		}
		prev = f
	}
	// Swiping down scrolls back to the top and no further.
	for range 20 {
		mouseDrag(t, p, pt(0.5, 0.3), pt(0.5, 0.8), 10)
	}
	if s, _ := p.SettingsScroll(); s != 0 {
		t.Errorf("after swiping down: scroll %d, want 0", s)
	}
}

func TestLockAndWake(t *testing.T) {
	p := newTestPhone(t, Options{})
	c, _ := p.IconCenter("Notes")
	button(t, p, hid.ConsumerPower)
	if got := p.Screen(); got != screenLocked {
		t.Fatalf("Screen() = %q after power, want locked", got)
	}
	// The tap that wakes the phone is swallowed, as on a phone.
	mouseTap(t, p, c)
	if got := p.Screen(); got != screenHome {
		t.Fatalf("Screen() = %q after a waking tap, want home", got)
	}
	button(t, p, hid.ConsumerPower)
	button(t, p, hid.ConsumerPower)
	if got := p.Screen(); got != screenHome {
		t.Errorf("Screen() = %q after power twice, want home", got)
	}
	mouseTap(t, p, c)
	button(t, p, hid.ConsumerPower)
	button(t, p, hid.ConsumerHome)
	if got := p.Screen(); got != screenHome {
		t.Errorf("Screen() = %q after Home on the locked screen, want home", got)
	}
	// A key only wakes the phone; cmd+h wakes it and goes home.
	mouseTap(t, p, c)
	button(t, p, hid.ConsumerPower)
	typeKeys(t, p, "x")
	if got, note := p.Screen(), p.NoteText(); got != "notes" || note != "" {
		t.Errorf("after a waking key: Screen() = %q, NoteText() = %q; want notes and nothing typed", got, note)
	}
	button(t, p, hid.ConsumerPower)
	chord(t, p, hid.LeftGUI, keyH)
	if got := p.Screen(); got != screenHome {
		t.Errorf("Screen() = %q after cmd+h on the locked screen, want home", got)
	}
}

func TestVolumeHUD(t *testing.T) {
	p := newTestPhone(t, Options{})
	plain := shot(t, p, "plain")
	button(t, p, hid.ConsumerVolumeDown)
	hud := shot(t, p, "hud")
	if bytes.Equal(pixels(t, plain), pixels(t, hud)) {
		t.Error("volume down did not show the HUD")
	}
	if got := p.ui.st.volume; got != maxVol/2-1 {
		t.Errorf("volume %d, want %d", got, maxVol/2-1)
	}
	chord(t, p, 0, hid.KeyEscape) // any other input hides the HUD
	if !bytes.Equal(pixels(t, plain), pixels(t, shot(t, p, "plain-again"))) {
		t.Error("the HUD did not go away")
	}
}

// TestBadReports: reports the host cannot decode fail the write with
// ErrInputFailed and are not counted.
func TestBadReports(t *testing.T) {
	p := newTestPhone(t, Options{})
	tests := []struct {
		kind   hid.Kind
		report []byte
	}{
		{hid.KindKeyboard, []byte{0, 0, 4}},
		{hid.KindConsumer, nil},
		{hid.KindTouch, hid.AbsMouse(0, 1, 1, 0)},
		{hid.KindTouch, append([]byte{9}, hid.Touch(hid.TouchState{})[1:]...)},
		{hid.Kind(99), []byte{0}},
	}
	for _, tc := range tests {
		err := p.WriteReport(context.Background(), tc.kind, tc.report)
		if !errors.Is(err, phone.ErrInputFailed) {
			t.Errorf("WriteReport(%s, % x) = %v, want ErrInputFailed", tc.kind, tc.report, err)
		}
		if n := p.ReportCount(tc.kind); n != 0 {
			t.Errorf("ReportCount(%s) = %d after a bad report, want 0", tc.kind, n)
		}
	}
	write(t, p, hid.KindConsumer, hid.Consumer(0))
	if n := p.ReportCount(hid.KindConsumer); n != 1 {
		t.Errorf("ReportCount(consumer) = %d, want 1", n)
	}
}

// stepClock is a clock tests move by hand.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Sleep moves the clock on by d at once: the driver's pacing takes no
// real time, and the host sees the gesture's real durations.
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.add(d)
	}
	return ctx.Err()
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestFramesDeterministic(t *testing.T) {
	inputs := func(t *testing.T, p *Phone) {
		c, _ := p.IconCenter("Notes")
		mouseTap(t, p, c)
		typeKeys(t, p, "Same input, same frame.")
	}
	a := newTestPhone(t, Options{})
	b := newTestPhone(t, Options{})
	inputs(t, a)
	inputs(t, b)
	fa, fb := shot(t, a, "a"), shot(t, b, "b")
	if !bytes.Equal(pixels(t, fa), pixels(t, fb)) {
		t.Error("two phones given the same inputs show different pictures")
	}
	if fa.Seq != fb.Seq {
		t.Errorf("Seq %d vs %d for the same inputs", fa.Seq, fb.Seq)
	}
	// No change, no new frame: the same Seq and the same bytes.
	again := shot(t, a, "a-again")
	if again.Seq != fa.Seq || !bytes.Equal(pixels(t, fa), pixels(t, again)) {
		t.Errorf("a second screenshot of the same state: Seq %d→%d", fa.Seq, again.Seq)
	}
	// Input that changes nothing (a key on a screen that ignores it) is
	// no new frame either.
	chord(t, a, hid.LeftCtrl, hid.KeyA)
	if f := shot(t, a, "a-ctrl"); f.Seq != fa.Seq {
		t.Errorf("an ignored key moved Seq %d→%d", fa.Seq, f.Seq)
	}
}

func TestClockMinuteChangesStatusBar(t *testing.T) {
	clk := &stepClock{t: testTime}
	p := newTestPhone(t, Options{Clock: clk.Now, Sleep: clk.Sleep})
	f1 := shot(t, p, "clock-1")
	clk.add(20 * time.Second) // still 9:41
	f2 := shot(t, p, "clock-2")
	if f2.Seq != f1.Seq || !bytes.Equal(pixels(t, f1), pixels(t, f2)) {
		t.Errorf("within the same minute the frame changed (Seq %d→%d)", f1.Seq, f2.Seq)
	}
	clk.add(time.Minute) // 9:42
	f3 := shot(t, p, "clock-3")
	if f3.Seq == f2.Seq {
		t.Error("a new minute did not make a new frame")
	}
	d := diffRect(f2.Image.(*image.RGBA), f3.Image.(*image.RGBA))
	if d.Empty() || d.Max.Y > p.ui.lay.px(statusH) {
		t.Errorf("pixels changed in %v, want only inside the status bar (0..%d)", d, p.ui.lay.px(statusH))
	}
}

// diffRect is the smallest rectangle holding every pixel that differs.
func diffRect(a, b *image.RGBA) image.Rectangle {
	var r image.Rectangle
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			i := a.PixOffset(x, y)
			if !bytes.Equal(a.Pix[i:i+4], b.Pix[i:i+4]) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// TestTapTiming: a long contact is not a tap, a short one is.
func TestTapTiming(t *testing.T) {
	clk := &stepClock{t: testTime}
	p := newTestPhone(t, Options{Clock: clk.Now, Sleep: clk.Sleep})
	c, _ := p.IconCenter("Notes")
	x, y := hid.Scale(c.X), hid.Scale(c.Y)
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0))
	clk.add(tapTime + time.Millisecond)
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, x, y, 0))
	if got := p.Screen(); got != screenHome {
		t.Errorf("a %v press opened %q, want no tap", tapTime+time.Millisecond, got)
	}
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0))
	clk.add(tapTime)
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, x, y, 0))
	if got := p.Screen(); got != "notes" {
		t.Errorf("a %v press: Screen() = %q, want notes", tapTime, got)
	}
}

func TestSetSize(t *testing.T) {
	p := newTestPhone(t, Options{Size: image.Pt(600, 1300)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := p.Subscribe(ctx)
	if e := <-ev; e.Kind != phone.Attached || e.State.Geometry.Epoch != 1 {
		t.Fatalf("first event %+v, want attached at epoch 1", e)
	}
	f1 := shot(t, p, "small")
	if err := p.SetSize(image.Pt(800, 1400)); err != nil {
		t.Fatal(err)
	}
	if e := <-ev; e.Kind != phone.GeometryChanged || e.State.Geometry != (phone.Geometry{Width: 800, Height: 1400, Epoch: 2}) {
		t.Errorf("event %+v, want geometry 800x1400 epoch 2", e)
	}
	if e := <-ev; e.Kind != phone.NewFrame || e.Seq != f1.Seq+1 {
		t.Errorf("event %+v, want frame %d", e, f1.Seq+1)
	}
	f2 := shot(t, p, "bigger")
	if got := f2.Image.Bounds().Size(); got != image.Pt(800, 1400) || f2.Geometry.Epoch != 2 {
		t.Errorf("frame %v epoch %d, want 800x1400 epoch 2", got, f2.Geometry.Epoch)
	}
	if got := p.Info().Native; got != image.Pt(800, 1400) {
		t.Errorf("Info().Native = %v", got)
	}
	for _, bad := range []image.Point{{0, 100}, {100, 5000}, {9000, 9000}} {
		if err := p.SetSize(bad); err == nil {
			t.Errorf("SetSize(%v) succeeded", bad)
		}
		if _, err := New(Options{Size: bad}); err == nil {
			t.Errorf("New(Size %v) succeeded", bad)
		}
	}
}

func TestSubscribeAndClose(t *testing.T) {
	p := newTestPhone(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ev := p.Subscribe(ctx)
	if e := <-ev; e.Kind != phone.Attached || !e.State.Ready {
		t.Fatalf("first event %+v, want attached and ready", e)
	}
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	e := <-ev
	if e.Kind != phone.NewFrame {
		t.Fatalf("event %+v, want a new frame", e)
	}
	if f := shot(t, p, "notes"); f.Seq != e.Seq {
		t.Errorf("screenshot Seq %d, event said %d", f.Seq, e.Seq)
	}
	cancel()
	for range ev { // closed when ctx ends
	}
	ev2 := p.Subscribe(context.Background())
	<-ev2
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if e := <-ev2; e.Kind != phone.Detached || e.State.Ready {
		t.Errorf("event %+v, want detached", e)
	}
	if _, ok := <-ev2; ok {
		t.Error("subscription open after Close")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if s := p.State(); s.Ready || s.Code != "closed" {
		t.Errorf("State() = %+v after Close", s)
	}
	if _, err := p.Screenshot(context.Background()); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Screenshot after Close: %v, want ErrUnavailable", err)
	}
	if err := p.WriteReport(context.Background(), hid.KindConsumer, hid.Consumer(0)); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("WriteReport after Close: %v, want ErrUnavailable", err)
	}
	if err := p.SetSize(image.Pt(500, 500)); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("SetSize after Close: %v, want ErrUnavailable", err)
	}
}

func TestInfo(t *testing.T) {
	p := newTestPhone(t, Options{})
	info := p.Info()
	if info.Backend != "sim" || info.Platform != phone.IOS || info.Native != image.Pt(DefaultWidth, DefaultHeight) ||
		!info.Keyboard || !info.Touch || !info.Screenshot {
		t.Errorf("Info() = %+v", info)
	}
	for _, b := range []phone.Button{phone.Home, phone.Lock, phone.VolumeUp, phone.VolumeDown, phone.Mute} {
		if !info.HasButton(b) {
			t.Errorf("Info() lacks button %s", b)
		}
	}
	ids := map[string]string{}
	for _, a := range info.Apps {
		ids[a.Name] = a.ID
	}
	for name, id := range map[string]string{
		"Notes": "com.apple.mobilenotes", "Safari": "com.apple.mobilesafari", "Settings": "com.apple.Preferences",
		"Messages": "com.apple.MobileSMS", "Photos": "com.apple.mobileslideshow", "Clock": "com.apple.mobiletimer",
	} {
		if ids[name] != id {
			t.Errorf("app %s has id %q, want %q", name, ids[name], id)
		}
	}
	if _, ok := p.IconCenter("No Such App"); ok {
		t.Error("IconCenter found an app that does not exist")
	}
	if _, err := p.Press(context.Background(), phone.Back); !errors.Is(err, phone.ErrUnsupportedButton) {
		t.Errorf("Press(back) = %v, want ErrUnsupportedButton", err)
	}
}

// TestClockWatcher: the turn of a minute makes a new frame and tells
// subscribers, with no input; Close stops the watcher.
func TestClockWatcher(t *testing.T) {
	clk := &stepClock{t: testTime.Add(50 * time.Second)}
	p := newTestPhone(t, Options{Clock: clk.Now, Sleep: clk.Sleep})
	fire := make(chan time.Time)
	waits := make(chan time.Duration, 1)
	stopped := make(chan struct{})
	go func() {
		p.watchClock(func(d time.Duration) <-chan time.Time { waits <- d; return fire })
		close(stopped)
	}()
	ev := p.Subscribe(t.Context())
	<-ev // attached
	if d := <-waits; d != 10*time.Second+10*time.Millisecond {
		t.Errorf("watcher waits %v, want 10.01s (to the next minute)", d)
	}
	before := shot(t, p, "before-minute")
	clk.add(10 * time.Second)
	fire <- time.Time{}
	e := <-ev
	if e.Kind != phone.NewFrame || e.Seq != before.Seq+1 {
		t.Errorf("event %+v, want frame %d", e, before.Seq+1)
	}
	<-waits
	p.Close()
	<-stopped
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want image.Point
		ok   bool
	}{
		{"1179x2556", image.Pt(1179, 2556), true},
		{" 600X1300 ", image.Pt(600, 1300), true},
		{"200x200", image.Pt(200, 200), true},
		{"1179", image.Point{}, false},
		{"1179x", image.Point{}, false},
		{"ax2556", image.Point{}, false},
		{"100x2556", image.Point{}, false},
		{"1179x9000", image.Point{}, false},
		{"-5x300", image.Point{}, false},
		{"", image.Point{}, false},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestCapturedIsNow: a cached frame is still a picture of now.
func TestCapturedIsNow(t *testing.T) {
	clk := &stepClock{t: testTime}
	p := newTestPhone(t, Options{Clock: clk.Now, Sleep: clk.Sleep})
	f1 := shot(t, p, "first")
	clk.add(5 * time.Second)
	f2 := shot(t, p, "second")
	if f2.Seq != f1.Seq || !f2.Captured.Equal(testTime.Add(5*time.Second)) {
		t.Errorf("second frame: Seq %d (first %d), Captured %v; want the same Seq, captured now", f2.Seq, f1.Seq, f2.Captured)
	}
}

func TestNewFailures(t *testing.T) {
	if _, err := New(Options{Profile: input.Profile(99)}); err == nil {
		t.Error("New with an unknown profile succeeded")
	}
	if _, err := newFunction(hid.Function{Kind: hid.KindKeyboard, Name: "keyboard", Descriptor: []byte{0xc0}}); err == nil {
		t.Error("enumerating a function whose descriptor does not parse succeeded")
	}
	p := newTestPhone(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.WriteReport(ctx, hid.KindConsumer, hid.Consumer(0)); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteReport with a cancelled ctx = %v, want context.Canceled", err)
	}
	if _, err := p.Screenshot(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Screenshot with a cancelled ctx = %v, want context.Canceled", err)
	}
	if n := p.ReportCount(hid.KindConsumer); n != 0 {
		t.Errorf("ReportCount(consumer) = %d, want 0", n)
	}
}

// center is the centre of r as screen fractions.
func center(p *Phone, r image.Rectangle) phone.Point {
	s := p.ui.lay.size
	return pt(float64(r.Min.X+r.Max.X)/2/float64(s.X), float64(r.Min.Y+r.Max.Y)/2/float64(s.Y))
}

func TestTapsInsideScreens(t *testing.T) {
	p := newTestPhone(t, Options{})
	// Spotlight: tapping the second result opens it.
	chord(t, p, hid.LeftGUI, hid.KeySpace)
	typeKeys(t, p, "st")
	mouseTap(t, p, center(p, p.ui.lay.resultRect(1)))
	if got := p.Screen(); got != "app store" {
		t.Errorf("tapping the second result for \"st\": Screen() = %q, want app store", got)
	}
	// Spotlight with no results: a tap below the field dismisses it.
	chord(t, p, hid.LeftGUI, hid.KeySpace)
	typeKeys(t, p, strings.Repeat("nothing matches this ", 4))
	shot(t, p, "spotlight-long")
	mouseTap(t, p, pt(0.5, 0.7))
	if got := p.Screen(); got != screenHome {
		t.Errorf("tap outside an empty Spotlight: Screen() = %q, want home", got)
	}
	// Safari: a tap on the address bar focuses it with the URL selected,
	// a tap on the page takes the focus away.
	c, _ := p.IconCenter("Safari")
	mouseTap(t, p, c)
	typeKeys(t, p, "example.com/"+strings.Repeat("long/", 20))
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	shot(t, p, "safari-long")
	field := center(p, p.ui.lay.fieldRect())
	mouseTap(t, p, field)
	if st := p.ui.st; !st.editing || !st.selAll || st.url != p.URL() {
		t.Errorf("after tapping the address bar: editing %v, selected %v, text %q", st.editing, st.selAll, st.url)
	}
	mouseTap(t, p, pt(0.5, 0.6))
	if st := p.ui.st; st.editing {
		t.Error("a tap on the page kept the address bar focused")
	}
	mouseTap(t, p, field)
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyBackspace))
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEscape))
	if st := p.ui.st; st.editing || st.url != "" || p.URL() == "" {
		t.Errorf("backspace on the selection then escape: editing %v, text %q, page %q", st.editing, st.url, p.URL())
	}
	// Typing words (no dot) searches.
	mouseTap(t, p, field)
	typeKeys(t, p, "openlolo box")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	if got, want := p.URL(), "https://www.google.com/search?q=openlolo+box"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
}

func TestRealClock(t *testing.T) {
	if err := phone.Sleep(t.Context(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := phone.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep with a cancelled ctx = %v", err)
	}
	if err := phone.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) with a cancelled ctx = %v", err)
	}
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(p.now()); d < 0 || d > time.Minute {
		t.Errorf("the default clock is %v off the system clock", d)
	}
	p.Close()
}

// TestOtherSizes: on a small, a large and a landscape screen every icon
// is on the screen and a tap on it opens its app.
func TestOtherSizes(t *testing.T) {
	for _, size := range []image.Point{{390, 844}, {600, 1300}, {1290, 2796}, {2556, 1179}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			t.Parallel()
			p := newTestPhone(t, Options{Size: size})
			shot(t, p, fmt.Sprintf("home-%dx%d", size.X, size.Y))
			for _, a := range catalog() {
				c, ok := p.IconCenter(a.name)
				if !ok {
					t.Fatalf("IconCenter(%q) = %v, not on the screen", a.name, c)
				}
				mouseTap(t, p, c)
				if got := p.Screen(); got != appKey(a) {
					t.Errorf("tap on %s at %v: Screen() = %q", a.name, c, got)
				}
				button(t, p, hid.ConsumerHome)
			}
		})
	}
}
