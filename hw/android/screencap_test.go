package android

import (
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/openlolo/openlolo/hw/adb/adbtest"
)

func header(w, h, format uint32, colorspace bool) []byte {
	b := make([]byte, 12, 16)
	binary.LittleEndian.PutUint32(b[0:], w)
	binary.LittleEndian.PutUint32(b[4:], h)
	binary.LittleEndian.PutUint32(b[8:], format)
	if colorspace {
		b = binary.LittleEndian.AppendUint32(b, 1)
	}
	return b
}

func TestDecodeScreencap(t *testing.T) {
	t.Parallel()
	// One 2×1 picture (a red and a blue pixel) in each format.
	red, blue := color.NRGBA{0xff, 0, 0, 0xff}, color.NRGBA{0, 0, 0xff, 0xff}
	for _, tc := range []struct {
		name       string
		format     uint32
		px         []byte
		colorspace bool
	}{
		{"RGBA_8888 with colour space", FormatRGBA8888, []byte{0xff, 0, 0, 0x80, 0, 0, 0xff, 0x10}, true},
		{"RGBA_8888 old header", FormatRGBA8888, []byte{0xff, 0, 0, 0xff, 0, 0, 0xff, 0xff}, false},
		{"RGBX_8888", FormatRGBX8888, []byte{0xff, 0, 0, 0, 0, 0, 0xff, 0}, true},
		{"BGRA_8888", FormatBGRA8888, []byte{0, 0, 0xff, 0xff, 0xff, 0, 0, 0xff}, true},
		{"RGB_888", FormatRGB888, []byte{0xff, 0, 0, 0, 0, 0xff}, false},
		{"RGB_565", FormatRGB565, []byte{0x00, 0xf8, 0x1f, 0x00}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img, err := DecodeScreencap(append(header(2, 1, tc.format, tc.colorspace), tc.px...))
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, 2, 1) {
				t.Fatalf("bounds %v", img.Bounds())
			}
			for x, want := range []color.NRGBA{red, blue} {
				if got := color.NRGBAModel.Convert(img.At(x, 0)); got != want {
					t.Errorf("pixel %d = %v, want %v", x, got, want)
				}
			}
		})
	}
}

func TestDecodeScreencapErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"short", []byte{1, 2, 3}},
		{"zero size", header(0, 10, FormatRGBA8888, true)},
		{"huge size", header(100000, 100000, FormatRGBA8888, true)},
		{"unknown format", append(header(1, 1, 9, true), 0, 0, 0, 0)},
		{"truncated rows", append(header(2, 2, FormatRGBA8888, true), make([]byte, 15)...)},
		{"PNG instead of raw", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeScreencap(tc.in); !errors.Is(err, ErrScreencap) {
				t.Fatalf("err = %v, want ErrScreencap", err)
			}
		})
	}
}

func TestScreencapRoundTrip(t *testing.T) {
	t.Parallel()
	src := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := range src.Pix {
		src.Pix[i] = byte(i * 7)
	}
	for i := 3; i < len(src.Pix); i += 4 {
		src.Pix[i] = 0xff
	}
	img, err := DecodeScreencap(adbtest.EncodeScreencap(src))
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			if a, b := color.NRGBAModel.Convert(img.At(x, y)), src.At(x, y); a != b {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, a, b)
			}
		}
	}
}

func FuzzDecodeScreencap(f *testing.F) {
	f.Add(append(header(1, 1, FormatRGBA8888, true), 1, 2, 3, 4))
	f.Add(append(header(1, 2, FormatRGB565, false), 1, 2, 3, 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := DecodeScreencap(b)
		if err == nil && img.Bounds().Dx()*img.Bounds().Dy() > len(b) {
			t.Fatalf("%v from %d bytes", img.Bounds(), len(b))
		}
	})
}

// BenchmarkDecodeScreencap: a 1080×2400 phone screen, raw RGBA_8888.
func BenchmarkDecodeScreencap(b *testing.B) {
	src := image.NewNRGBA(image.Rect(0, 0, 1080, 2400))
	raw := adbtest.EncodeScreencap(src)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := DecodeScreencap(raw); err != nil {
			b.Fatal(err)
		}
	}
}
