package control_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/hw/sim"
)

// engineFunc is an OCR engine made of a function: the failures the real
// one can have, on demand.
type engineFunc func(ctx context.Context, img image.Image) ([]ocr.Word, error)

func (f engineFunc) Name() string { return "test engine" }
func (f engineFunc) Recognize(ctx context.Context, img image.Image) ([]ocr.Word, error) {
	return f(ctx, img)
}

func textService(t *testing.T, eng ocr.Engine, lim control.Limits) (*control.Service, *sim.Phone) {
	t.Helper()
	return simService(t, nil, eng, lim)
}

func realEngine(t *testing.T) ocr.Engine {
	t.Helper()
	e := ocr.Tesseract{}
	if err := e.Check(context.Background()); err != nil {
		t.Skipf("no OCR engine here (scripts/deps.sh installs it): %v", err)
	}
	return e
}

// TestFindTextTapsNotes: the match's centre, tapped with the answer's
// frame, opens Notes; without a query the lines come top to bottom.
func TestFindTextTapsNotes(t *testing.T) {
	svc, ph := textService(t, realEngine(t), control.Limits{})
	ctx := context.Background()
	rep := svc.FindText(ctx, alice, api.FindTextArgs{Query: "notes"})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	r := rep.Result
	if len(r.Matches) != 1 || r.Matches[0].Text != "Notes" || r.Matches[0].Confidence < 0.5 || r.Engine != "tesseract" {
		t.Fatalf("matches %+v engine %q, want one Notes", r.Matches, r.Engine)
	}
	m := r.Matches[0]
	tap := svc.Tap(ctx, alice, api.TapArgs{FrameArgs: api.FrameArgs{FrameID: r.FrameID, GeometryEpoch: api.Epoch(r.GeometryEpoch),
		X: &m.CenterX, Y: &m.CenterY}, InputOptions: api.InputOptions{Observe: new(bool)}})
	if tap.Error != nil {
		t.Fatalf("tap on the answer's frame: %v", tap.Error)
	}
	if ph.Screen() != "notes" {
		t.Errorf("after tapping %v the screen is %q, want notes", m, ph.Screen())
	}
	all := svc.FindText(ctx, alice, api.FindTextArgs{})
	if all.Error != nil || len(all.Result.Lines) < 2 || len(all.Result.Matches) != 0 {
		t.Fatalf("lines: %+v", all)
	}
	for i := 1; i < len(all.Result.Lines); i++ {
		if a, b := all.Result.Lines[i-1], all.Result.Lines[i]; a.CenterY > b.CenterY+b.Height/2 {
			t.Errorf("line %q above %q", b.Text, a.Text)
		}
	}
}

// TestFindTextCodes: a test per code find_text can give.
func TestFindTextCodes(t *testing.T) {
	ctx := context.Background()
	noEngine := engineFunc(func(context.Context, image.Image) ([]ocr.Word, error) {
		return nil, fmt.Errorf("%w: the tesseract program is not installed", ocr.ErrNoEngine)
	})
	broken := engineFunc(func(context.Context, image.Image) ([]ocr.Word, error) {
		return nil, errors.New("ocr: tesseract: signal: segmentation fault")
	})
	cases := []struct {
		name string
		eng  ocr.Engine
		lim  control.Limits
		args api.FindTextArgs
		prep func(svc *control.Service, ph *sim.Phone)
		code api.Code
		says string
	}{
		{name: "no engine configured", eng: nil, code: api.CodeUnsupported, says: "tesseract-ocr"},
		{name: "program missing", eng: ocr.Tesseract{Path: "/nonexistent/tesseract"}, code: api.CodeUnsupported, says: "install"},
		{name: "engine says no engine", eng: noEngine, code: api.CodeUnsupported, says: "openlolo_screenshot"},
		{name: "engine fails", eng: broken, code: api.CodeInternal, says: "segmentation fault"},
		{name: "query too long", eng: broken, args: api.FindTextArgs{Query: strings.Repeat("q", api.MaxQuery+1)}, code: api.CodeInvalidArguments, says: "query"},
		{name: "phone gone", eng: broken, prep: func(_ *control.Service, ph *sim.Phone) { ph.Close() }, code: api.CodePhoneUnavailable},
		{name: "rate limited", eng: broken, lim: control.Limits{CallsPerMinute: 1}, prep: func(svc *control.Service, _ *sim.Phone) {
			svc.FindText(ctx, alice, api.FindTextArgs{})
		}, code: api.CodeRateLimited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, ph := textService(t, tc.eng, tc.lim)
			if tc.prep != nil {
				tc.prep(svc, ph)
			}
			rep := svc.FindText(ctx, alice, tc.args)
			if rep.Error == nil || rep.Error.Code != tc.code || !strings.Contains(rep.Error.Message, tc.says) {
				t.Fatalf("got %+v, want %s saying %q", rep.Error, tc.code, tc.says)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		slow := engineFunc(func(ctx context.Context, _ image.Image) ([]ocr.Word, error) {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		})
		svc, _ := textService(t, slow, control.Limits{})
		if rep := svc.FindText(cctx, alice, api.FindTextArgs{}); rep.Error == nil || rep.Error.Code != api.CodeCancelled {
			t.Fatalf("got %+v, want CANCELLED", rep.Error)
		}
	})
}

// The boxes come back as fractions of the frame, whatever its size.
func TestFindTextFractions(t *testing.T) {
	var got image.Point
	eng := engineFunc(func(_ context.Context, img image.Image) ([]ocr.Word, error) {
		got = img.Bounds().Size()
		w, h := got.X, got.Y
		return []ocr.Word{{Text: "Sign", Conf: 0.9, Box: image.Rect(w/4, h/2, w/2, h/2+h/10), Line: 1}}, nil
	})
	svc, _ := textService(t, eng, control.Limits{})
	rep := svc.FindText(context.Background(), alice, api.FindTextArgs{Query: "SIGN"})
	if rep.Error != nil || len(rep.Result.Matches) != 1 {
		t.Fatalf("%+v", rep)
	}
	if max(got.X, got.Y) != api.DefaultMaxSize {
		t.Errorf("engine read a %v image, want the longer side %d", got, api.DefaultMaxSize)
	}
	m := rep.Result.Matches[0]
	if m.X < 0.249 || m.X > 0.251 || m.Y != 0.5 || m.CenterX < 0.374 || m.CenterX > 0.376 || m.Confidence != 0.9 {
		t.Errorf("match %+v, want x 0.25 y 0.5 centre 0.375", m)
	}
}
