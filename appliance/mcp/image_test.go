package mcp

import (
	"bytes"
	"context"
	"image"
	stdjpeg "image/jpeg"
	_ "image/png"
	"testing"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/hw/phone"
	"github.com/openlolo/openlolo/hw/sim"
)

func simFrame(tb testing.TB) *phone.Frame {
	ph, err := sim.New(sim.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ph.Close() })
	f, err := ph.Screenshot(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestEncodeScalesAndCaches(t *testing.T) {
	f := simFrame(t)
	c := newImageCache(2)
	cases := []struct {
		format string
		size   int
		w, h   int
	}{
		{"jpeg", 1536, 708, 1536}, {"png", 128, 59, 128}, {"jpeg", 4096, 1179, 2556},
	}
	for _, tc := range cases {
		e, err := c.encode(f, tc.format, tc.size)
		if err != nil {
			t.Fatal(err)
		}
		img, format, err := image.Decode(bytes.NewReader(e.data))
		if err != nil || format != tc.format || img.Bounds().Dx() != tc.w || img.Bounds().Dy() != tc.h || e.width != tc.w {
			t.Fatalf("%s %d: %v %s %v (%v)", tc.format, tc.size, img.Bounds(), format, e.mime, err)
		}
		again, _ := c.encode(f, tc.format, tc.size)
		if again != e {
			t.Fatalf("%s %d encoded twice for the same frame", tc.format, tc.size)
		}
	}
	if len(c.entries) != 2 {
		t.Fatalf("cache holds %d entries, want its limit 2", len(c.entries))
	}
	// A source JPEG at native size is passed through untouched.
	src := &phone.Frame{Image: f.Image, Seq: 99, JPEG: []byte("source jpeg")}
	if e, _ := c.encode(src, "jpeg", 4096); string(e.data) != "source jpeg" {
		t.Fatal("native-size JPEG was re-encoded")
	}
}

// BenchmarkEncode1536JPEG: a new 1179×2556 sim frame scaled to 1536 and
// encoded as JPEG q80 each time (Python's PIL, the anchor box's encoder,
// does it in 33 ms on this machine).
func BenchmarkEncode1536JPEG(b *testing.B) {
	b.Log("JPEG encoder:", jpegEncoder)
	f := simFrame(b)
	c := newImageCache(1)
	b.ReportAllocs()
	for i := range b.N {
		g := *f
		g.Seq = uint64(i + 1000)
		if _, err := c.encode(&g, "jpeg", 1536); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDownscale checks the fast scaler against x/image's on a real frame:
// the same size and close pixels (mean absolute difference under 3 of 255),
// and exact on flat colour.
func TestDownscale(t *testing.T) {
	f := simFrame(t)
	src := f.Image.(*image.RGBA)
	for _, size := range []image.Point{{708, 1536}, {59, 128}, {1179, 2556}, {1000, 2000}} {
		got := downscale(src, size.X, size.Y)
		want := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		draw.BiLinear.Scale(want, want.Bounds(), src, src.Bounds(), draw.Src, nil)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%v: bounds %v", size, got.Bounds())
		}
		var diff int
		for i := range got.Pix {
			d := int(got.Pix[i]) - int(want.Pix[i])
			diff += max(d, -d)
		}
		if mean := float64(diff) / float64(len(got.Pix)); mean > 3 {
			t.Errorf("%v: mean difference %.2f from x/image BiLinear", size, mean)
		}
	}
	flat := image.NewRGBA(image.Rect(0, 0, 300, 500))
	for i := range flat.Pix {
		flat.Pix[i] = []uint8{10, 200, 77, 255}[i%4]
	}
	for i, v := range downscale(flat, 77, 128).Pix {
		if v != []uint8{10, 200, 77, 255}[i%4] {
			t.Fatalf("flat colour changed at byte %d: %d", i, v)
		}
	}
}

func BenchmarkDownscale1536(b *testing.B) {
	f := simFrame(b)
	for range b.N {
		downscale(f.Image, 708, 1536)
	}
}

// BenchmarkEncode1536Baseline is the plain way beside it: x/image
// ApproxBiLinear and image/jpeg q80, on the same frame in the same run.
func BenchmarkEncode1536Baseline(b *testing.B) {
	f := simFrame(b)
	b.ReportAllocs()
	for range b.N {
		dst := image.NewRGBA(image.Rect(0, 0, 708, 1536))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), f.Image, f.Image.Bounds(), draw.Src, nil)
		var buf bytes.Buffer
		if err := stdjpeg.Encode(&buf, dst, &stdjpeg.Options{Quality: jpegQuality}); err != nil {
			b.Fatal(err)
		}
	}
}
