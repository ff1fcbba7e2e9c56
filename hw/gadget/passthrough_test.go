package gadget

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/capture"
)

// showJPEG serves one MJPEG frame, as a UVC dongle sends it: a w×h
// picture, bright inside the rectangle in (the phone) and black outside.
func (v *fakeVideo) showJPEG(t *testing.T, seq uint64, w, h int, in image.Rectangle) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if image.Pt(x, y).In(in) {
				img.Set(x, y, color.RGBA{200, 180, 160, 255})
			} else {
				img.Set(x, y, color.RGBA{0, 0, 0, 255})
			}
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	v.frame = &capture.Frame{Format: capture.Format{Pixel: capture.MJPEG, Width: w, Height: h}, Data: buf.Bytes(), Seq: seq, Captured: time.Now()}
	v.online = true
	v.mu.Unlock()
	return buf.Bytes()
}

// A capture device's MJPEG frame that is the phone's whole screen comes
// with the frame as it is (Frame.JPEG), so a picture wanted at native
// size is the device's own JPEG, never decoded and encoded again; a
// letterboxed one is cropped, so it has none.
func TestScreenshotPassesMJPEGThrough(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, "configured")
	v := &fakeVideo{}
	p := openFake(t, k, Android, v)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	whole := v.showJPEG(t, 1, 64, 128, image.Rect(0, 0, 64, 128))
	f, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.JPEG, whole) {
		t.Fatalf("Screenshot's JPEG is %d bytes, want the capture's own %d", len(f.JPEG), len(whole))
	}
	if b := f.Image.Bounds(); b.Dx() != 64 || b.Dy() != 128 {
		t.Errorf("Screenshot's picture is %v, want 64x128", b)
	}

	v.showJPEG(t, 2, 128, 128, image.Rect(32, 0, 96, 128)) // pillarboxed
	f, err = p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.JPEG != nil {
		t.Error("a letterboxed capture's JPEG was passed through; the phone's screen is only part of it")
	}
	if b := f.Image.Bounds(); b.Dx() < 60 || b.Dx() > 68 || b.Dy() != 128 {
		t.Errorf("the pillarboxed screen is %v, want about 64x128", b)
	}
}

// Options.DecodeJPEG decodes the MJPEG frames (the box gives
// libjpeg-turbo's), with the Huffman tables put in first; YUYV frames
// stay with capture.Decode.
func TestScreenshotDecodesMJPEGWithOptions(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, "configured")
	v := &fakeVideo{}
	var calls atomic.Int32
	opts := fakeOptions(t, k, Android, v)
	opts.DecodeJPEG = func(b []byte) (image.Image, error) {
		calls.Add(1)
		return jpeg.Decode(bytes.NewReader(b))
	}
	p, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v.showJPEG(t, 1, 64, 128, image.Rect(0, 0, 64, 128))
	if _, err := p.Screenshot(ctx); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Fatal("an MJPEG frame was not decoded with Options.DecodeJPEG")
	}
	n := calls.Load()
	v.show(2, 64, 32, 16, 32) // YUYV
	if _, err := p.Screenshot(ctx); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != n {
		t.Error("a YUYV frame went to Options.DecodeJPEG")
	}
	opts.DecodeJPEG = func([]byte) (image.Image, error) { return nil, errors.New("broken") }
	q, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	v.showJPEG(t, 3, 64, 128, image.Rect(0, 0, 64, 128))
	if _, err := q.Screenshot(ctx); err == nil || !strings.Contains(err.Error(), "decode MJPEG frame 3: broken") {
		t.Errorf("Screenshot with a failing decoder = %v, want the decoder's error named", err)
	}
}
