package picture

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	stdjpeg "image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/sim"
)

// simFrame is the simulated phone's 1179×2556 home screen.
func simFrame(tb testing.TB) Frame {
	ph, err := sim.New(sim.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ph.Close() })
	f, err := ph.Screenshot(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return Frame{Seq: f.Seq, Epoch: f.Geometry.Epoch, Image: f.Image, JPEG: f.JPEG}
}

// jpegAt is the screenshots' Spec: JPEG q80 with the longer side at most
// size.
func jpegAt(size int) Spec { return Spec{Format: api.FormatJPEG, Fit: Square(size), Quality: 80} }

func TestFit(t *testing.T) {
	for _, c := range []struct {
		w, h int
		box  Box
		ww   int
		wh   int
	}{
		{1179, 2556, Square(1536), 708, 1536},
		{2556, 1179, Square(1536), 1536, 708},
		{1179, 2556, Square(4096), 1179, 2556},
		{1000, 1000, Square(128), 128, 128},
		{5000, 3, Square(128), 128, 1},
		{1179, 2556, Box{W: 480}, 480, 2556 * 480 / 1179},
		{390, 844, Box{W: 480}, 390, 844},
		{1179, 2556, Box{H: 960}, 442, 960},
		{1179, 2556, Box{W: 200, H: 2000}, 200, 433},
		{1179, 2556, Box{W: 2000, H: 200}, 92, 200},
		{1179, 2556, Box{}, 1179, 2556},
		// Blocks: a whole-block reduction when it keeps 7/8 of the room.
		{1179, 2556, Box{W: 960, H: 960, Blocks: true}, 393, 852},
		{2556, 1179, Box{W: 960, H: 960, Blocks: true}, 852, 393},
		{1080, 1920, Box{W: 960, H: 960, Blocks: true}, 540, 960},
		{1179, 2556, Box{W: 1536, H: 1536, Blocks: true}, 708, 1536}, // 1278 is under 7/8 of 1536
		{2000, 1000, Box{W: 960, H: 960, Blocks: true}, 960, 480},    // 666 is under 7/8 of 960
		{390, 844, Box{W: 960, H: 960, Blocks: true}, 390, 844},
		{1179, 2556, Box{Blocks: true}, 1179, 2556},
	} {
		if w, h := c.box.Fit(c.w, c.h); w != c.ww || h != c.wh {
			t.Errorf("%+v.Fit(%d, %d) = %d×%d, want %d×%d", c.box, c.w, c.h, w, h, c.ww, c.wh)
		}
	}
	if w, h := Fit(1179, 2556, 960); w != 442 || h != 960 {
		t.Errorf("Fit(1179, 2556, 960) = %d×%d, want 442×960", w, h)
	}
}

func TestEncodeScalesAndCaches(t *testing.T) {
	f := simFrame(t)
	c := NewCache(2)
	cases := []struct {
		spec Spec
		w, h int
	}{
		{jpegAt(1536), 708, 1536}, {Spec{Format: api.FormatPNG, Fit: Square(128)}, 59, 128}, {jpegAt(4096), 1179, 2556},
		{Spec{Format: api.FormatJPEG, Fit: Box{W: 480}, Quality: 75}, 480, 1040},
	}
	for _, tc := range cases {
		p, err := c.Encode(f, tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		img, format, err := image.Decode(bytes.NewReader(p.Data))
		if err != nil || format != string(tc.spec.Format) || img.Bounds().Dx() != tc.w || img.Bounds().Dy() != tc.h ||
			p.Width != tc.w || p.Height != tc.h || p.Seq != f.Seq || p.MIME() != "image/"+format {
			t.Fatalf("%+v: %v %s %+v (%v)", tc.spec, img.Bounds(), format, p, err)
		}
		again, _ := c.Encode(f, tc.spec)
		if again != p {
			t.Fatalf("%+v encoded twice for the same frame", tc.spec)
		}
	}
	if len(c.entries) != 2 {
		t.Fatalf("cache holds %d entries, want its limit 2", len(c.entries))
	}
	// A source JPEG at native size is passed through untouched.
	src := Frame{Image: f.Image, Seq: 99, JPEG: []byte("source jpeg")}
	if p, _ := c.Encode(src, jpegAt(4096)); string(p.Data) != "source jpeg" {
		t.Fatal("native-size JPEG was re-encoded")
	}
	// A new picture of the same frame is encoded again.
	g := f
	g.Seq++
	if p, _ := c.Encode(g, jpegAt(1536)); p.Seq != g.Seq {
		t.Fatalf("a new frame's picture has seq %d, want %d", p.Seq, g.Seq)
	}
}

// A frame without pixels, and a format that is neither jpeg nor png, are
// refused.
func TestEncodeRefuses(t *testing.T) {
	c := NewCache(1)
	for name, f := range map[string]Frame{"no image": {}, "empty": {Image: image.NewRGBA(image.Rect(0, 0, 0, 0))}} {
		if _, err := c.Encode(f, jpegAt(960)); err != ErrEmpty {
			t.Errorf("%s: %v, want ErrEmpty", name, err)
		}
	}
	if _, err := Encode(image.NewRGBA(image.Rect(0, 0, 4, 4)), "gif", 80); err == nil {
		t.Error("a gif was encoded")
	}
}

// The live view's pictures: fitted into the size on the longer side, a
// smaller one kept as it is.
func TestEncodeJPEGForLive(t *testing.T) {
	ph, err := sim.New(sim.Options{Size: image.Pt(1179, 2556)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	sf, err := ph.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := Frame{Seq: sf.Seq, Image: sf.Image}
	for _, c := range []struct{ max, w, h int }{{960, 442, 960}, {4096, 1179, 2556}} {
		p, err := NewCache(1).Encode(f, Spec{Format: api.FormatJPEG, Fit: Square(c.max), Quality: 70})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := stdjpeg.DecodeConfig(bytes.NewReader(p.Data))
		if err != nil || cfg.Width != c.w || cfg.Height != c.h {
			t.Fatalf("max %d: %dx%d (%v), want %dx%d", c.max, cfg.Width, cfg.Height, err, c.w, c.h)
		}
	}
}

// BenchmarkEncode1536JPEG: a new 1179×2556 sim frame scaled to 1536 and
// encoded as JPEG q80 each time (Python's PIL, the anchor box's encoder,
// does it in 33 ms on this machine).
func BenchmarkEncode1536JPEG(b *testing.B) {
	b.Log("JPEG encoder:", Encoder)
	f := simFrame(b)
	c := NewCache(1)
	b.ReportAllocs()
	for i := range b.N {
		g := f
		g.Seq = uint64(i + 1000)
		if _, err := c.Encode(g, jpegAt(1536)); err != nil {
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
		got := Downscale(src, size.X, size.Y)
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
	for i, v := range Downscale(flat, 77, 128).Pix {
		if v != []uint8{10, 200, 77, 255}[i%4] {
			t.Fatalf("flat colour changed at byte %d: %d", i, v)
		}
	}
}

// A sub-image is scaled from its own pixels, not from its parent's
// corner, and another image type gives the picture its RGBA copy gives;
// a destination that does not start at the origin is filled too.
func TestDownscaleSubImageAndTypes(t *testing.T) {
	full := image.NewRGBA(image.Rect(0, 0, 400, 600))
	for y := range 600 {
		for x := range 400 {
			v := uint8(0)
			if x >= 200 {
				v = 255
			}
			full.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	// The right half is white: scaled, it stays white.
	for i, v := range Downscale(full.SubImage(image.Rect(200, 0, 400, 600)), 50, 150).Pix {
		if v != 255 {
			t.Fatalf("sub-image of white: byte %d is %d", i, v)
		}
	}
	nrgba := image.NewNRGBA(full.Rect)
	copy(nrgba.Pix, full.Pix)
	a, b := Downscale(full, 97, 145), Downscale(nrgba, 97, 145)
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Fatal("NRGBA scaled to another picture than the same RGBA")
	}
	big := image.NewRGBA(image.Rect(0, 0, 200, 300))
	dst := big.SubImage(image.Rect(100, 150, 197, 295)).(*image.RGBA)
	Scale(dst, full)
	for y := range 145 {
		for x := range 97 {
			if dst.RGBAAt(100+x, 150+y) != a.RGBAAt(x, y) {
				t.Fatalf("Scale into a sub-image: pixel %d,%d is %v, want %v", x, y, dst.RGBAAt(100+x, 150+y), a.RGBAAt(x, y))
			}
		}
	}
}

func BenchmarkDownscale1536(b *testing.B) {
	f := simFrame(b)
	for range b.N {
		Downscale(f.Image, 708, 1536)
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
		if err := stdjpeg.Encode(&buf, dst, &stdjpeg.Options{Quality: 80}); err != nil {
			b.Fatal(err)
		}
	}
}

// DecodeJPEG gives back the picture that was encoded, within JPEG's
// loss, and a clear error for bytes that are no JPEG.
func TestDecodeJPEG(t *testing.T) {
	f := simFrame(t)
	data, err := Encode(f.Image, api.FormatJPEG, 90)
	if err != nil {
		t.Fatal(err)
	}
	img, err := DecodeJPEG(data)
	if err != nil {
		t.Fatalf("DecodeJPEG: %v", err)
	}
	if img.Bounds() != f.Image.Bounds() {
		t.Fatalf("decoded %v, want %v", img.Bounds(), f.Image.Bounds())
	}
	var diff, n uint64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r0, g0, b0, _ := img.At(x, y).RGBA()
			r1, g1, b1, _ := f.Image.At(x, y).RGBA()
			diff += absDiff(r0, r1) + absDiff(g0, g1) + absDiff(b0, b1)
			n += 3
		}
	}
	if mean := diff / n >> 8; mean > 4 {
		t.Errorf("decoded picture differs by %d levels on average, want JPEG's few", mean)
	}
	for _, bad := range [][]byte{nil, []byte("not a jpeg")} {
		if _, err := DecodeJPEG(bad); err == nil || !strings.Contains(err.Error(), "picture: decode JPEG") {
			t.Errorf("DecodeJPEG(%q) = %v, want a picture: decode JPEG error", bad, err)
		}
	}
}

func absDiff(a, b uint32) uint64 {
	if a > b {
		return uint64(a - b)
	}
	return uint64(b - a)
}

// fakeHW is a JPEGEncoder that answers with fixed bytes, or fails.
type fakeHW struct {
	calls int
	fail  error
}

func (h *fakeHW) EncodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	h.calls++
	if h.fail != nil {
		return nil, h.fail
	}
	return []byte("hw " + img.Rect.String()), nil
}

// A Cache with a JPEGEncoder encodes its scaled JPEG pictures there; PNG
// and an unscaled picture of an image that is not RGBA stay in software.
// A picture the encoder fails is encoded in software, and after
// MaxJPEGFailures failures in a row the encoder is asked no more.
func TestCacheJPEGEncoder(t *testing.T) {
	f := simFrame(t)
	c := NewCache(8)
	hw := &fakeHW{}
	var fails []bool
	c.UseJPEGEncoder(hw, func(err error, dropped bool) { fails = append(fails, dropped) })
	p, err := c.Encode(f, jpegAt(1536))
	if err != nil || string(p.Data) != "hw (0,0)-(708,1536)" {
		t.Fatalf("a scaled JPEG: %q, %v; want the encoder's", p.Data, err)
	}
	if p, err := c.Encode(f, Spec{Format: api.FormatPNG, Fit: Square(128)}); err != nil || !bytes.HasPrefix(p.Data, []byte("\x89PNG")) {
		t.Fatalf("a PNG: %.8q, %v", p.Data, err)
	}
	ycc := Frame{Seq: 50, Image: image.NewYCbCr(image.Rect(0, 0, 40, 80), image.YCbCrSubsampleRatio420)}
	if p, err := c.Encode(ycc, jpegAt(1536)); err != nil || !bytes.HasPrefix(p.Data, []byte("\xFF\xD8")) {
		t.Fatalf("an unscaled YCbCr picture: %.8q, %v", p.Data, err)
	}
	if hw.calls != 1 {
		t.Fatalf("the encoder was asked %d times, want 1", hw.calls)
	}

	hw.fail = errors.New("the device is gone")
	for i := range MaxJPEGFailures + 1 {
		g := f
		g.Seq += uint64(i + 1)
		p, err := c.Encode(g, jpegAt(1536))
		if err != nil {
			t.Fatal(err)
		}
		img, err := stdjpeg.Decode(bytes.NewReader(p.Data))
		if err != nil || img.Bounds().Dx() != 708 {
			t.Fatalf("picture %d after a failure: %v, %v; want the software JPEG", i, err, img)
		}
	}
	if hw.calls != 1+MaxJPEGFailures || len(fails) != MaxJPEGFailures || fails[MaxJPEGFailures-2] || !fails[MaxJPEGFailures-1] {
		t.Fatalf("the failing encoder was asked %d times and reported %v; want %d failures, the last one dropping it", hw.calls-1, fails, MaxJPEGFailures)
	}
}
