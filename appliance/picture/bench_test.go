package picture

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"testing"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/api"
)

// BenchmarkLiveEncode is one picture of the box page's live stream at its
// default size (the sim's 1179×2556 frame fitted into 960, JPEG q70):
// this package's scaler and encoder (libjpeg-turbo under -tags
// turbojpeg) against the stream's former fallback (x/image/draw's
// ApproxBiLinear and image/jpeg) in the same run.
func BenchmarkLiveEncode(b *testing.B) {
	f := simFrame(b)
	c := NewCache(1)
	spec := Spec{Format: api.FormatJPEG, Fit: Square(960), Quality: 70}
	b.Run("box", func(b *testing.B) {
		var n int
		for i := 0; b.Loop(); i++ {
			g := f
			g.Seq = uint64(i + 1000) // a new frame each time: no cache hit
			p, err := c.Encode(g, spec)
			if err != nil {
				b.Fatal(err)
			}
			n = len(p.Data)
		}
		b.ReportMetric(float64(n), "bytes/frame")
	})
	b.Run("fallback", func(b *testing.B) {
		var n int
		for b.Loop() {
			w, h := spec.Fit.Fit(f.Image.Bounds().Dx(), f.Image.Bounds().Dy())
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.ApproxBiLinear.Scale(dst, dst.Bounds(), f.Image, f.Image.Bounds(), draw.Src, nil)
			var buf bytes.Buffer
			if err := stdjpeg.Encode(&buf, dst, &stdjpeg.Options{Quality: spec.Quality}); err != nil {
				b.Fatal(err)
			}
			n = buf.Len()
		}
		b.ReportMetric(float64(n), "bytes/frame")
	})
}

// BenchmarkPageJPEG is the Status page's still picture: a phone-sized
// frame (1179×2556) scaled to 480 wide and encoded at q75, once per new
// screen.
func BenchmarkPageJPEG(b *testing.B) {
	f := simFrame(b)
	c := NewCache(1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g := f
		g.Seq = uint64(i + 1000)
		if _, err := c.Encode(g, Spec{Format: api.FormatJPEG, Fit: Box{W: 480}, Quality: 75}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJPEG is a capture device's MJPEG frame decoded (the sim's
// 1179×2556 screen at JPEG q90, about a 1080p frame's pixels): DecodeJPEG
// (libjpeg-turbo under -tags turbojpeg) against image/jpeg in the same run.
func BenchmarkDecodeJPEG(b *testing.B) {
	data, err := Encode(simFrame(b).Image, api.FormatJPEG, 90)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("box", func(b *testing.B) {
		for b.Loop() {
			if _, err := DecodeJPEG(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("image-jpeg", func(b *testing.B) {
		for b.Loop() {
			if _, err := stdjpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
