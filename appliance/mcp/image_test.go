package mcp

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"testing"

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
// encoded as JPEG q80 each time (DESIGN §8: PIL does it in 33 ms here).
func BenchmarkEncode1536JPEG(b *testing.B) {
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
