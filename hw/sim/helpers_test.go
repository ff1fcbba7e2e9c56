package sim

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// pngDir, when set, is where tests save the frames they look at, so a
// person can see them: go test ./hw/sim -sim.png /tmp/frames
var pngDir = flag.String("sim.png", "", "write the frames tests look at as PNG files to this directory")

// testTime is the fixed clock of the tests: 9:41, as on Apple's pictures.
var testTime = time.Date(2026, 11, 29, 9, 41, 0, 0, time.UTC)

// newTestPhone returns a simulated phone on a fixed clock, closed at the
// end of the test.
func newTestPhone(t *testing.T, opts Options) *Phone {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = FixedClock(testTime)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// shot takes a screenshot and, with -sim.png, saves it as name.png.
func shot(t testing.TB, p *Phone, name string) *phone.Frame {
	t.Helper()
	f, err := p.Screenshot(context.Background())
	if err != nil {
		t.Fatalf("Screenshot: %v", err)
	}
	if *pngDir != "" {
		var buf bytes.Buffer
		if err := png.Encode(&buf, f.Image); err != nil {
			t.Fatalf("png: %v", err)
		}
		if err := os.MkdirAll(*pngDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*pngDir, name+".png"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// pixels returns a frame's bytes, for comparing pictures.
func pixels(t *testing.T, f *phone.Frame) []byte {
	t.Helper()
	img, ok := f.Image.(*image.RGBA)
	if !ok {
		t.Fatalf("frame image is %T, want *image.RGBA", f.Image)
	}
	return img.Pix
}

// write sends one report to the host and fails the test on error.
func write(t testing.TB, p *Phone, k hid.Kind, report []byte) {
	t.Helper()
	if err := p.WriteReport(context.Background(), k, report); err != nil {
		t.Fatalf("WriteReport(%s, % x): %v", k, report, err)
	}
}

// mouseTap taps at pt with absolute-mouse reports: move, press, release.
func mouseTap(t testing.TB, p *Phone, pt phone.Point) {
	t.Helper()
	x, y := hid.Scale(pt.X), hid.Scale(pt.Y)
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, x, y, 0))
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0))
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, x, y, 0))
}

// mouseDrag drags from a to b in n steps with the absolute mouse.
func mouseDrag(t testing.TB, p *Phone, a, b phone.Point, n int) {
	t.Helper()
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, hid.Scale(a.X), hid.Scale(a.Y), 0))
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		x, y := hid.Scale(a.X+(b.X-a.X)*f), hid.Scale(a.Y+(b.Y-a.Y)*f)
		write(t, p, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0))
	}
	write(t, p, hid.KindAbsMouse, hid.AbsMouse(0, hid.Scale(b.X), hid.Scale(b.Y), 0))
}

// typeKeys types printable ASCII with keyboard reports, using hw/hid's
// keymap on the sending side.
func typeKeys(t testing.TB, p *Phone, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		k, shift, ok := hid.CharKey(s[i])
		if !ok {
			t.Fatalf("no key for %q", s[i])
		}
		var mods hid.Modifiers
		if shift {
			mods = hid.LeftShift
		}
		write(t, p, hid.KindKeyboard, hid.Keyboard(mods, k))
		write(t, p, hid.KindKeyboard, hid.Keyboard(0))
	}
}

// chord presses key with mods and releases it.
func chord(t testing.TB, p *Phone, mods hid.Modifiers, k hid.Key) {
	t.Helper()
	write(t, p, hid.KindKeyboard, hid.Keyboard(mods))
	write(t, p, hid.KindKeyboard, hid.Keyboard(mods, k))
	write(t, p, hid.KindKeyboard, hid.Keyboard(0))
}

// button presses and releases a consumer usage.
func button(t testing.TB, p *Phone, u uint16) {
	t.Helper()
	write(t, p, hid.KindConsumer, hid.Consumer(u))
	write(t, p, hid.KindConsumer, hid.Consumer(hid.ConsumerNone))
}

func pt(x, y float64) phone.Point { return phone.Point{X: x, Y: y} }
