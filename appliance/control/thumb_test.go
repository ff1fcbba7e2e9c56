package control_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

func thumbOf(t *testing.T, st *store.Store, id string) (store.Thumb, error) {
	t.Helper()
	var th store.Thumb
	err := st.View(context.Background(), func(tx *store.Tx) error {
		var err error
		th, err = tx.OperationThumb("", id)
		return err
	})
	return th, err
}

// An input with an observation stores a small JPEG of that screen for the
// Activity page (Recent lists its size); one without an observation, and
// one refused (paused), store none.
func TestInputThumbnail(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	r := e.svc.Key(ctx, alice, api.KeyArgs{Key: "a"})
	wantCode(t, r.Answer, "")
	ops, err := e.svc.Recent(ctx, 10) // flushes the calls queue
	if err != nil {
		t.Fatal(err)
	}
	th, err := thumbOf(t, e.st, r.OperationID)
	if err != nil {
		t.Fatalf("thumbnail of an observed input: %v", err)
	}
	img, err := jpeg.Decode(bytes.NewReader(th.JPEG))
	if err != nil {
		t.Fatalf("the thumbnail is not a JPEG: %v", err)
	}
	b, nb := img.Bounds(), r.Shot.Frame.Image.Bounds()
	if max(b.Dx(), b.Dy()) != control.ThumbSize || b.Dx() != th.Width || b.Dy() != th.Height ||
		(b.Dx() < b.Dy()) != (nb.Dx() < nb.Dy()) {
		t.Fatalf("thumbnail %v (stored as %d×%d) of a %v screen: want the long side %d, the same shape",
			b, th.Width, th.Height, nb, control.ThumbSize)
	}
	if len(ops) != 1 || ops[0].ID != r.OperationID || ops[0].ThumbWidth != th.Width || ops[0].ThumbHeight != th.Height {
		t.Fatalf("Recent = %+v, want the key with its %d×%d thumbnail", ops, th.Width, th.Height)
	}

	quiet := e.svc.Key(ctx, alice, api.KeyArgs{Key: "b", InputOptions: api.InputOptions{Observe: &noObserve}})
	wantCode(t, quiet.Answer, "")
	if err := e.svc.OwnerPause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	refused := e.svc.Key(ctx, alice, api.KeyArgs{Key: "c"})
	wantCode(t, refused.Answer, api.CodePaused)
	if err := e.svc.FlushCalls(ctx); err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"observe=false": quiet.OperationID, "refused": refused.OperationID} {
		if _, err := thumbOf(t, e.st, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s input: thumbnail err %v, want ErrNotFound", name, err)
		}
	}
}

// Thumbnail refuses a frame without a picture.
func TestThumbnailEmpty(t *testing.T) {
	for name, f := range map[string]*phone.Frame{"nil": nil, "no image": {}, "empty": {Image: image.NewRGBA(image.Rect(0, 0, 0, 0))}} {
		if _, err := control.Thumbnail(f); err == nil {
			t.Errorf("Thumbnail(%s) = nil error", name)
		}
	}
}

// A screen of one-pixel stripes (text at 15× reduction is much like it)
// becomes an even grey, not black or white stripes sampled apart; also
// from a sub-image, and from a non-RGBA image.
func TestThumbnailAverages(t *testing.T) {
	full := image.NewRGBA(image.Rect(0, 0, 1090, 2400))
	for y := range 2400 {
		for x := range 1090 {
			v := uint8(255 * (x % 2))
			full.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	sub := full.SubImage(image.Rect(10, 0, 1090, 2400))
	nrgba := image.NewNRGBA(image.Rect(0, 0, 1080, 2400))
	for y := range 2400 {
		for x := range 1080 {
			v := uint8(255 * (x % 2))
			nrgba.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	for name, img := range map[string]image.Image{"rgba": full, "sub-image": sub, "nrgba": nrgba} {
		th, err := control.Thumbnail(&phone.Frame{Image: img})
		if err != nil {
			t.Fatal(err)
		}
		got, err := jpeg.Decode(bytes.NewReader(th.JPEG))
		if err != nil {
			t.Fatal(err)
		}
		b := got.Bounds()
		for _, p := range []image.Point{{b.Dx() / 2, b.Dy() / 2}, {b.Dx() / 3, b.Dy() / 4}, {b.Dx() - 3, b.Dy() - 3}} {
			r, _, _, _ := got.At(p.X, p.Y).RGBA()
			if v := r >> 8; v < 100 || v > 156 {
				t.Errorf("%s: thumbnail pixel %v = %d, want about 128 (the stripes averaged)", name, p, v)
			}
		}
	}
}

// BenchmarkThumbnail is the cost of one thumbnail of a 1080×2400 screen
// (what the writer pays per observed input, off the call's path), with
// the bytes it stores.
func BenchmarkThumbnail(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for y := range 2400 {
		for x := range 1080 {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	// The same picture as NRGBA (another type than the capture's): it was
	// x/image's BiLinear before package picture; now it is converted to
	// RGBA and scaled as that (the name stays for comparison).
	nrgba := image.NewNRGBA(img.Rect)
	copy(nrgba.Pix, img.Pix)
	for _, c := range []struct {
		name string
		img  image.Image
	}{{"rgba", img}, {"baseline-bilinear", nrgba}} {
		b.Run(c.name, func(b *testing.B) {
			f := &phone.Frame{Image: c.img}
			var n int
			for b.Loop() {
				th, err := control.Thumbnail(f)
				if err != nil {
					b.Fatal(err)
				}
				n = len(th.JPEG)
			}
			b.ReportMetric(float64(n), "bytes/thumb")
		})
	}
}
