package sim

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/hw/hid"
)

// The figures issue 2 asks for, on a 1179×2556 frame: a full re-render,
// PNG and JPEG (quality 80) encodes, and downscaling to at most 1536.

// benchFrame renders the home screen at the default size.
func benchFrame(b *testing.B) *image.RGBA {
	b.Helper()
	p, err := New(Options{Clock: FixedClock(testTime)})
	if err != nil {
		b.Fatal(err)
	}
	return p.paint.render(p.ui, testTime)
}

func BenchmarkRender(b *testing.B) {
	screens := []struct {
		name  string
		setup func(testing.TB, *Phone)
	}{
		{"home", func(testing.TB, *Phone) {}},
		{"settings", func(t testing.TB, p *Phone) {
			c, _ := p.IconCenter("Settings")
			mouseTap(t, p, c)
		}},
		{"notes", func(t testing.TB, p *Phone) {
			c, _ := p.IconCenter("Notes")
			mouseTap(t, p, c)
			typeKeys(t, p, "Hello, box! This note has enough words to wrap over a few lines of the screen.")
		}},
	}
	for _, s := range screens {
		b.Run(s.name, func(b *testing.B) {
			p, err := New(Options{Clock: FixedClock(testTime)})
			if err != nil {
				b.Fatal(err)
			}
			s.setup(b, p)
			b.ReportAllocs()
			for b.Loop() {
				p.paint.render(p.ui, testTime)
			}
		})
	}
}

// BenchmarkRenderCold renders the home screen with the icon and font
// face caches emptied first: the first frame after New.
func BenchmarkRenderCold(b *testing.B) {
	p, err := New(Options{Clock: FixedClock(testTime)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		clear(p.paint.icons)
		clear(p.paint.faces)
		p.paint.render(p.ui, testTime)
	}
}

// BenchmarkScreenshotCached is a Screenshot with nothing changed: the
// cached frame.
func BenchmarkScreenshotCached(b *testing.B) {
	p, err := New(Options{Clock: FixedClock(testTime)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	for b.Loop() {
		if _, err := p.Screenshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	img := benchFrame(b)
	b.Run("png-default", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := png.Encode(&buf, img); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes")
	})
	b.Run("png-bestspeed", func(b *testing.B) {
		var buf bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(&buf, img); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes")
	})
	b.Run("jpeg-q80", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes")
	})
}

func BenchmarkDownscale(b *testing.B) {
	img := benchFrame(b)
	dst := fit(img.Bounds().Size(), 1536)
	b.Run("approxbilinear", func(b *testing.B) {
		for b.Loop() {
			out := image.NewRGBA(image.Rectangle{Max: dst})
			draw.ApproxBiLinear.Scale(out, out.Bounds(), img, img.Bounds(), draw.Src, nil)
		}
	})
	b.Run("catmullrom", func(b *testing.B) {
		for b.Loop() {
			out := image.NewRGBA(image.Rectangle{Max: dst})
			draw.CatmullRom.Scale(out, out.Bounds(), img, img.Bounds(), draw.Src, nil)
		}
	})
	b.Run("box-integer", func(b *testing.B) {
		k := boxFactor(img.Bounds().Size(), 1536)
		for b.Loop() {
			boxShrink(img, k)
		}
	})
	b.Run("approxbilinear+jpeg", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			out := image.NewRGBA(image.Rectangle{Max: dst})
			draw.ApproxBiLinear.Scale(out, out.Bounds(), img, img.Bounds(), draw.Src, nil)
			buf.Reset()
			if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 80}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("box-integer+jpeg", func(b *testing.B) {
		k := boxFactor(img.Bounds().Size(), 1536)
		var buf bytes.Buffer
		for b.Loop() {
			out := boxShrink(img, k)
			buf.Reset()
			if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 80}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTapThroughHost is one tap (three absolute-mouse reports)
// decoded by the host, without rendering.
func BenchmarkTapThroughHost(b *testing.B) {
	p, err := New(Options{Clock: FixedClock(testTime)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	x, y := hid.Scale(0.5), hid.Scale(0.5)
	reports := [][]byte{hid.AbsMouse(0, x, y, 0), hid.AbsMouse(hid.ButtonLeft, x, y, 0), hid.AbsMouse(0, x, y, 0)}
	for b.Loop() {
		for _, r := range reports {
			if err := p.WriteReport(ctx, hid.KindAbsMouse, r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// fit is size scaled down to fit in limit×limit, keeping the aspect.
func fit(size image.Point, limit int) image.Point {
	m := max(size.X, size.Y)
	if m <= limit {
		return size
	}
	return image.Pt(size.X*limit/m, size.Y*limit/m)
}

// boxFactor is the smallest integer factor that brings size within limit.
func boxFactor(size image.Point, limit int) int {
	m := max(size.X, size.Y)
	return (m + limit - 1) / limit
}

// boxShrink averages every k×k block of src into one pixel (edge blocks
// average what they have): a fast, integer-only downscale.
func boxShrink(src *image.RGBA, k int) *image.RGBA {
	sb := src.Bounds()
	w, h := (sb.Dx()+k-1)/k, (sb.Dy()+k-1)/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sums := make([]uint32, 4*w)
	counts := make([]uint32, w)
	for dy := range h {
		clear(sums)
		clear(counts)
		for sy := dy * k; sy < min((dy+1)*k, sb.Dy()); sy++ {
			row := src.Pix[sy*src.Stride : sy*src.Stride+4*sb.Dx()]
			for sx := 0; sx < sb.Dx(); sx++ {
				dx := sx / k
				i := 4 * sx
				sums[4*dx] += uint32(row[i])
				sums[4*dx+1] += uint32(row[i+1])
				sums[4*dx+2] += uint32(row[i+2])
				sums[4*dx+3] += uint32(row[i+3])
				counts[dx]++
			}
		}
		out := dst.Pix[dy*dst.Stride:]
		for dx := range w {
			n := counts[dx]
			for c := range 4 {
				out[4*dx+c] = uint8((sums[4*dx+c] + n/2) / n)
			}
		}
	}
	return dst
}

func TestBoxShrink(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 3))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 7)
	}
	got := boxShrink(src, 2)
	if got.Bounds().Size() != image.Pt(3, 2) {
		t.Fatalf("size %v, want 3x2", got.Bounds().Size())
	}
	// Pixel (1,0) averages source pixels (2,0),(3,0),(2,1),(3,1).
	for c := range 4 {
		sum := 0
		for _, p := range []image.Point{{2, 0}, {3, 0}, {2, 1}, {3, 1}} {
			sum += int(src.Pix[src.PixOffset(p.X, p.Y)+c])
		}
		if want, g := uint8((sum+2)/4), got.Pix[got.PixOffset(1, 0)+c]; g != want {
			t.Errorf("channel %d of (1,0) = %d, want %d", c, g, want)
		}
	}
	// Pixel (2,1) is the lone corner pixel (4,2).
	if g, w := got.Pix[got.PixOffset(2, 1)], src.Pix[src.PixOffset(4, 2)]; g != w {
		t.Errorf("corner = %d, want %d", g, w)
	}
	if got, want := fit(image.Pt(1179, 2556), 1536), image.Pt(708, 1536); got != want {
		t.Errorf("fit = %v, want %v", got, want)
	}
}
