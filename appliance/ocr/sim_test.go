package ocr_test

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// engine returns the real tesseract, skipping the test where it is not
// installed (scripts/deps.sh installs it, so CI runs these).
func engine(t testing.TB) ocr.Tesseract {
	t.Helper()
	e := ocr.Tesseract{}
	if err := e.Check(context.Background()); err != nil {
		if errors.Is(err, ocr.ErrNoEngine) {
			t.Skipf("no OCR engine here: %v", err)
		}
		t.Fatal(err)
	}
	return e
}

func newSim(t testing.TB) *sim.Phone {
	t.Helper()
	p, err := sim.New(sim.Options{Clock: sim.FixedClock(time.Date(2026, 1, 2, 9, 41, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// frame1536 is the sim's screen as the box's default screenshot: the
// longer side scaled to 1536.
func frame1536(t testing.TB, p *sim.Phone) image.Image {
	t.Helper()
	f, err := p.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := f.Image.Bounds()
	h := 1536
	w := b.Dx() * h / b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), f.Image, b, draw.Src, nil)
	return dst
}

func centre(r image.Rectangle, size image.Point) phone.Point {
	return phone.Point{X: float64(r.Min.X+r.Max.X) / 2 / float64(size.X), Y: float64(r.Min.Y+r.Max.Y) / 2 / float64(size.Y)}
}

func inside(c, lo, hi phone.Point) bool {
	return c.X >= lo.X && c.X <= hi.X && c.Y >= lo.Y && c.Y <= hi.Y
}

// TestHomeScreenLabels: every grid icon's label is found, and the centre
// of its box is inside that icon's label area as the sim lays it out.
func TestHomeScreenLabels(t *testing.T) {
	e := engine(t)
	p := newSim(t)
	img := frame1536(t, p)
	words, err := e.Recognize(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	lines := ocr.Lines(words)
	for _, l := range lines {
		t.Logf("%q %.2f %v", l.Text, l.Conf, l.Box)
	}
	found := 0
	for _, a := range p.Info().Apps {
		lo, hi, ok := p.LabelRect(a.Name)
		if !ok {
			continue // dock apps have no label
		}
		ms := ocr.Find(lines, a.Name)
		hit := false
		for _, m := range ms {
			if inside(centre(m.Box, img.Bounds().Size()), lo, hi) {
				hit = true
			}
		}
		if !hit {
			t.Errorf("label %q: no match inside its label area %v..%v (matches %v)", a.Name, lo, hi, ms)
			continue
		}
		found++
	}
	t.Logf("home screen: %d labels found inside their areas", found)
}

// TestNotesText: in Notes, the typed note's words are found inside the
// note's text area, and the title bar's "Notes" and "Done" are read.
func TestNotesText(t *testing.T) {
	e := engine(t)
	p := newSim(t)
	ctx := context.Background()
	notes, _ := p.IconCenter("Notes")
	if _, err := p.Touch(ctx, phone.Tap(notes, 80*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	const typed = "Buy oat milk and 12 eggs"
	if _, err := p.Type(ctx, typed); err != nil {
		t.Fatal(err)
	}
	img := frame1536(t, p)
	words, err := e.Recognize(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	lines := ocr.Lines(words)
	for _, l := range lines {
		t.Logf("%q %.2f %v", l.Text, l.Conf, l.Box)
	}
	lo, hi := p.NoteRect()
	for _, q := range []string{typed, "oat milk", "12 eggs"} {
		ms := ocr.Find(lines, q)
		if len(ms) != 1 {
			t.Errorf("%q: %d matches, want 1: %v", q, len(ms), ms)
			continue
		}
		if c := centre(ms[0].Box, img.Bounds().Size()); !inside(c, lo, hi) {
			t.Errorf("%q: centre %v outside the note %v..%v", q, c, lo, hi)
		}
	}
	for _, q := range []string{"Notes", "Done"} {
		if ms := ocr.Find(lines, q); len(ms) == 0 {
			t.Errorf("title bar %q not found", q)
		} else if c := centre(ms[0].Box, img.Bounds().Size()); c.Y > lo.Y {
			t.Errorf("title bar %q at %v, below the note's top %v", q, c, lo.Y)
		}
	}
}
