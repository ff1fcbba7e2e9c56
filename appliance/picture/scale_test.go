package picture

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"slices"
	"testing"
	"time"
)

// bilinearBefore is the per-channel fixed-point bilinear scaler that
// bilinear replaced, kept as the reference of its quality and speed.
func bilinearBefore(src *image.RGBA, w, h int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xs, ys := taps(w, sw), taps(h, sh)
	for y, ty := range ys {
		r0 := src.Pix[ty.i0*src.Stride:]
		r1 := src.Pix[ty.i1*src.Stride:]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		fy := ty.f
		for x, tx := range xs {
			a0, a1 := 4*tx.i0, 4*tx.i1
			fx := tx.f
			for c := range 4 {
				top := int(r0[a0+c])*(256-fx) + int(r0[a1+c])*fx
				bot := int(r1[a0+c])*(256-fx) + int(r1[a1+c])*fx
				out[4*x+c] = uint8((top*(256-fy) + bot*fy + 1<<15) >> 16)
			}
		}
	}
	return dst
}

// psnr is the peak signal-to-noise ratio of b against a, in dB (+Inf when
// they are equal).
func psnr(a, b *image.RGBA) float64 {
	var se float64
	for i := range a.Pix {
		d := float64(a.Pix[i]) - float64(b.Pix[i])
		se += d * d
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(len(a.Pix))))
}

// The packed scaler gives the picture of the per-channel one it replaced:
// no byte more than 1 apart (one more rounding), PSNR above 50 dB.
func TestBilinearMatchesBefore(t *testing.T) {
	src := simFrame(t).Image.(*image.RGBA)
	for _, size := range []image.Point{{708, 1536}, {1000, 2000}, {59, 128}, {1179, 2556}} {
		got, want := bilinear(src, size.X, size.Y), bilinearBefore(src, size.X, size.Y)
		one := image.NewRGBA(got.Rect)
		bilinearRows(one, src, taps(size.X, src.Bounds().Dx()), taps(size.Y, src.Bounds().Dy()), 0, size.Y)
		if !bytes.Equal(one.Pix, got.Pix) {
			t.Fatalf("%v: the bands on several goroutines differ from one goroutine's picture", size)
		}
		for i := range got.Pix {
			if d := int(got.Pix[i]) - int(want.Pix[i]); d > 1 || d < -1 {
				t.Fatalf("%v: byte %d is %d, the scaler before made %d", size, i, got.Pix[i], want.Pix[i])
			}
		}
		if p := psnr(want, got); p < 50 {
			t.Errorf("%v: PSNR %.1f dB against the scaler before, want over 50", size, p)
		}
	}
}

// BenchmarkScreenshot1536 is a new-frame screenshot (1179×2556 → 708×1536
// JPEG q80 with this build's encoder) the way it was before and the way it
// is now, in the same run. before is the previous path (per-channel
// scaler into a new picture, then the encoder); now is Cache.Encode
// with a new frame each time; now-1g is the new scaler on one goroutine
// into a reused picture (the share of the gain that is not the second
// core's). Each iteration runs every variant once, in turn, so a shared
// machine's load falls on all of them alike; the metrics are the medians
// (ms) and the ratios to before.
func BenchmarkScreenshot1536(b *testing.B) {
	b.Log("JPEG encoder:", Encoder)
	f := simFrame(b)
	src := f.Image.(*image.RGBA)
	c := NewCache(1)
	one := image.NewRGBA(image.Rect(0, 0, 708, 1536))
	encode := func(img image.Image) {
		var buf bytes.Buffer
		if err := encodeJPEG(&buf, img, 80); err != nil {
			b.Fatal(err)
		}
	}
	seq := uint64(1000)
	variants := []struct {
		name  string
		scale func() image.Image // nil: shot does it all
		shot  func()
	}{
		{"before", func() image.Image { return bilinearBefore(src, 708, 1536) }, nil},
		{"now", func() image.Image {
			s := c.scratchRGBA(708, 1536)
			defer c.scratch.Put(s)
			return Scale(s, src)
		}, func() {
			g := f
			seq++
			g.Seq = seq
			if _, err := c.Encode(g, jpegAt(1536)); err != nil {
				b.Fatal(err)
			}
		}},
		{"now-1g", func() image.Image {
			bilinearRows(one, src, taps(708, src.Bounds().Dx()), taps(1536, src.Bounds().Dy()), 0, 1536)
			return one
		}, nil},
	}
	scaleT := make([][]time.Duration, len(variants))
	shotT := make([][]time.Duration, len(variants))
	for b.Loop() {
		for i, v := range variants {
			t0 := time.Now()
			img := v.scale()
			scaleT[i] = append(scaleT[i], time.Since(t0))
			t0 = time.Now()
			if v.shot != nil {
				v.shot()
			} else {
				v.scale()
				encode(img)
			}
			shotT[i] = append(shotT[i], time.Since(t0))
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1e6
	}
	var base [2]float64
	for i, v := range variants {
		s, t := median(scaleT[i]), median(shotT[i])
		b.ReportMetric(s, v.name+"-downscale-ms")
		b.ReportMetric(t, v.name+"-screenshot-ms")
		if i == 0 {
			base = [2]float64{s, t}
			continue
		}
		b.ReportMetric(s/base[0], v.name+"/before-downscale")
		b.ReportMetric(t/base[1], v.name+"/before-screenshot")
	}
	b.ReportMetric(0, "ns/op") // an iteration is all variants: not a figure
}

// boxReduceBefore is the per-channel block average that boxReduce
// replaced, kept as the reference of its result.
func boxReduceBefore(src *image.RGBA, k int) *image.RGBA {
	w, h := src.Rect.Dx()/k, src.Rect.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	n := k * k
	for y := range h {
		for x := range w {
			for c := range 4 {
				sum := 0
				for dy := range k {
					for dx := range k {
						sum += int(src.Pix[(y*k+dy)*src.Stride+4*(x*k+dx)+c])
					}
				}
				dst.Pix[y*dst.Stride+4*x+c] = uint8((sum + n/2) / n)
			}
		}
	}
	return dst
}

// A whole-block picture (Box.Blocks) is the block average itself, with no
// sampling after it, into the caller's picture.
func TestScaleWholeBlocks(t *testing.T) {
	src := simFrame(t).Image.(*image.RGBA)
	w, h := Box{W: 960, H: 960, Blocks: true}.Fit(src.Rect.Dx(), src.Rect.Dy())
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if used := scale(dst, src, nil); used != nil {
		t.Error("a whole-block reduction went through a second picture")
	}
	if want := boxReduceBefore(src, 3); !bytes.Equal(dst.Pix, want.Pix) || dst.Rect != want.Rect {
		t.Errorf("the %d×%d picture is not the 3×3 block average", w, h)
	}
}

// The two-pixels-at-a-time block average gives, byte for byte, the
// per-channel one, for even and odd blocks, up to the largest.
func TestBoxReduceMatchesBefore(t *testing.T) {
	src := simFrame(t).Image.(*image.RGBA)
	for _, k := range []int{2, 3, 7, 15, 16} {
		if got, want := boxReduce(src, k), boxReduceBefore(src, k); !bytes.Equal(got.Pix, want.Pix) || got.Rect != want.Rect {
			t.Errorf("k=%d: the picture differs from the per-channel average", k)
		}
	}
	noise := image.NewRGBA(image.Rect(0, 0, 301, 203)) // every byte value, and a ragged edge
	for i := range noise.Pix {
		noise.Pix[i] = uint8(i*131 + i/7)
	}
	for _, k := range []int{2, 3, 4} {
		if got, want := boxReduce(noise, k), boxReduceBefore(noise, k); !bytes.Equal(got.Pix, want.Pix) || got.Rect != want.Rect {
			t.Errorf("noise, k=%d: the picture differs from the per-channel average", k)
		}
	}
	white := image.NewRGBA(image.Rect(0, 0, maxBox+1, maxBox))
	for i := range white.Pix {
		white.Pix[i] = 255
	}
	if got := boxReduce(white, maxBox); got.Rect.Dx() != 1 || !bytes.Equal(got.Pix, []byte{255, 255, 255, 255}) {
		t.Errorf("a white %d-block averages to %v, want one white pixel", maxBox, got.Pix)
	}
}

// BenchmarkReduce is the block average of the sim's 1179×2556 frame by
// 2 (the live view before Box.Blocks, then sampled to 442×960) and by 3
// (the live view's whole-block picture, 393×852, with nothing after it).
func BenchmarkReduce(b *testing.B) {
	src := simFrame(b).Image.(*image.RGBA)
	for _, k := range []int{2, 3} {
		dst := image.NewRGBA(image.Rect(0, 0, src.Rect.Dx()/k, src.Rect.Dy()/k))
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				boxReduceInto(dst, src, k)
			}
		})
	}
}
