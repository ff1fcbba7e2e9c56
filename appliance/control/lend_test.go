package control_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"log/slog"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// lender lends the frames of a controltest phone as a backend that reuses
// its buffers does: once use returns, it spoils the lent pixels and JPEG,
// as the next picture drawn into them would.
type lender struct {
	phone.Phone
	jpeg  []byte // every lent frame's JPEG, when set
	lends int
}

func (l *lender) LendScreenshot(ctx context.Context, use func(*phone.Frame) error) error {
	f, err := l.Screenshot(ctx)
	if err != nil {
		return err
	}
	src := f.Image.(*image.RGBA)
	img := &image.RGBA{Pix: bytes.Clone(src.Pix), Stride: src.Stride, Rect: src.Rect}
	lent := *f
	lent.Image, lent.JPEG = img, bytes.Clone(l.jpeg)
	l.lends++
	err = use(&lent)
	for _, b := range [][]byte{img.Pix, lent.JPEG} {
		for i := range b {
			b[i] = 0xA5
		}
	}
	return err
}

// newLendEnv is newEnv over a phone that lends its frames.
func newLendEnv(t *testing.T, jpeg []byte) (*env, *lender) {
	var l *lender
	e := newEnvWith(t, control.Limits{}, func(c *control.Config) {
		l = &lender{Phone: c.Phone, jpeg: jpeg}
		c.Phone = l
	})
	return e, l
}

// Screen reads a lending phone through a lent frame: the picture is the
// one Screenshot's frame gives (nothing of the lent buffer, spoiled
// afterwards, shows), the frame becomes the owner's latest (the owner's
// tap takes no screenshot of its own) and the phone is asked once.
func TestScreenReadsALentFrame(t *testing.T) {
	e, l := newLendEnv(t, nil)
	ctx := context.Background()
	got, err := e.svc.Screen(ctx, picture.Square(64), 70)
	if err != nil {
		t.Fatal(err)
	}
	if l.lends != 1 {
		t.Fatalf("Screen lent %d frames, want 1", l.lends)
	}
	f, err := e.ph.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := picture.NewCache(1).Encode(picture.Frame{Seq: f.Seq, Epoch: f.Geometry.Epoch, Image: f.Image},
		picture.Spec{Format: api.FormatJPEG, Fit: picture.Square(64), Quality: 70})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, want.Data) {
		t.Fatalf("Screen's picture of a lent frame differs from the frame's own picture (%d and %d bytes)", len(got.Data), len(want.Data))
	}
	shots := e.ph.Screenshots()
	wantCode(t, outcome(e.svc.Invoke(ctx, ownerTouch(0.5, 0.5))), "")
	if n := e.ph.Screenshots() - shots; n != 0 {
		t.Fatalf("the owner's tap after a lent frame took %d screenshots, want 0 (it touches the lent frame)", n)
	}
}

// A lent frame's JPEG passed through as the picture is copied: the
// picture, kept in the cache and sent later, still holds it after the
// phone has reused the lent bytes.
func TestScreenCopiesALentJPEG(t *testing.T) {
	jpeg := []byte{0xFF, 0xD8, 'l', 'e', 'n', 't', 0xFF, 0xD9}
	e, _ := newLendEnv(t, jpeg)
	got, err := e.svc.Screen(context.Background(), picture.Square(1000), 70) // native size: passed through
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, jpeg) {
		t.Fatalf("Screen's picture is % x, want the lent JPEG % x", got.Data, jpeg)
	}
}

// A lending phone's failure is Screen's, as the phone's error.
func TestScreenLendFails(t *testing.T) {
	e, _ := newLendEnv(t, nil)
	e.ph.FailScreenshots(phone.ErrUnavailable)
	if _, err := e.svc.Screen(context.Background(), picture.Square(64), 70); !isCode(err, api.CodePhoneUnavailable) {
		t.Fatalf("Screen on a failing lender = %v, want %s", err, api.CodePhoneUnavailable)
	}
}

// hwJPEG is a hardware JPEG encoder that answers with fixed bytes, or
// fails.
type hwJPEG struct{ fail bool }

func (h *hwJPEG) EncodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	if h.fail {
		return nil, errors.New("the device is gone")
	}
	return []byte("hw jpeg"), nil
}

// Config.JPEG encodes the box's scaled pictures, the live view's among
// them; a picture it fails is encoded in software and logged.
func TestScreenUsesTheJPEGEncoder(t *testing.T) {
	hw := &hwJPEG{}
	var logs bytes.Buffer
	e := newEnvWith(t, control.Limits{}, func(c *control.Config) {
		c.JPEG = hw
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	ctx := context.Background()
	p, err := e.svc.Screen(ctx, picture.Square(64), 70)
	if err != nil || string(p.Data) != "hw jpeg" {
		t.Fatalf("Screen with a hardware encoder: %q, %v", p.Data, err)
	}
	hw.fail = true
	wantCode(t, outcome(e.svc.Invoke(ctx, ownerTouch(0.5, 0.5))), "") // a new screen
	p, err = e.svc.Screen(ctx, picture.Square(64), 70)
	if err != nil || !bytes.HasPrefix(p.Data, []byte("\xFF\xD8")) {
		t.Fatalf("Screen when the encoder fails: %.8q, %v; want a software JPEG", p.Data, err)
	}
	if !strings.Contains(logs.String(), "this picture is encoded in software") || !strings.Contains(logs.String(), "the device is gone") {
		t.Fatalf("the failure was not logged: %s", logs.String())
	}
}
