package control_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// longNote is a note of n numbered lines, each different.
func longNote(n int) string {
	var b strings.Builder
	b.WriteString("Packing list")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\nLine %d: item %d", i, i*7)
	}
	return b.String()
}

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }
func sp(v string) *string   { return &v }

// openNote opens Notes on svc's sim, pastes text and scrolls to the top
// with a tap on the status bar, as an agent would.
func openNote(t *testing.T, svc *control.Service, ph *sim.Phone, c control.Client, text string) {
	t.Helper()
	ctx := context.Background()
	if rep := svc.LaunchApp(ctx, c, api.LaunchAppArgs{InputOptions: quiet, BundleID: "com.apple.mobilenotes"}); rep.Error != nil {
		t.Fatal(rep.Error)
	}
	if rep := svc.SendText(ctx, c, api.SendTextArgs{InputOptions: quiet, Text: &text}); rep.Error != nil {
		t.Fatal(rep.Error)
	}
	shot := svc.Screenshot(ctx, c, api.ScreenshotArgs{})
	if shot.Error != nil {
		t.Fatal(shot.Error)
	}
	x, y := 0.5, 0.01
	if rep := svc.Tap(ctx, c, api.TapArgs{InputOptions: quiet, FrameArgs: api.FrameArgs{FrameID: shot.Shot.ID,
		GeometryEpoch: api.Epoch(shot.Shot.Epoch), X: &x, Y: &y}}); rep.Error != nil {
		t.Fatal(rep.Error)
	}
	if s, _ := ph.NoteScroll(); s != 0 {
		t.Fatalf("the status-bar tap left the note at %d", s)
	}
}

// native composes the stitched image at the frames' own size from the
// plan, as mcp does at the answer's scale.
func native(p *control.Pages) *image.RGBA {
	b := p.Shots[0].Frame.Image.Bounds()
	total := 0
	for _, s := range p.Stitch.Strips {
		total += s.Y1 - s.Y0
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), total))
	y := 0
	for _, s := range p.Stitch.Strips {
		draw.Draw(out, image.Rect(0, y, b.Dx(), y+s.Y1-s.Y0), p.Shots[s.Page].Frame.Image, image.Pt(0, s.Y0), draw.Src)
		y += s.Y1 - s.Y0
	}
	return out
}

// TestFullPageStitchesTheNote: a note three screens tall is captured page
// by page to its end; every overlap is found in the pixels, the shifts add
// up to how far the note scrolled, and the stitched page is row for row
// the note as a phone tall enough to show it whole draws it.
func TestFullPageStitchesTheNote(t *testing.T) {
	ctx := context.Background()
	svc, ph := textService(t, nil, control.Limits{})
	note := longNote(80)
	openNote(t, svc, ph, alice, note)
	rep := svc.FullPage(ctx, alice, api.FullPageArgs{Output: api.OutputBoth, MaxSize: ip(2048), Settle: fp(0)})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	r := rep.Result
	scroll, limit := ph.NoteScroll()
	if scroll != limit || r.Stopped != control.StoppedEnd || r.PageCount < 3 || r.Swipes != r.PageCount {
		t.Fatalf("stopped %q after %d pages and %d drags at %d of %d", r.Stopped, r.PageCount, r.Swipes, scroll, limit)
	}
	sum := 0
	for i, p := range r.Pages {
		if i > 0 && !p.Matched {
			t.Errorf("page %d: overlap not found", i)
		}
		if p.Image != i || p.Width != 944 || p.Height != 2048 {
			t.Errorf("page %d: image %d, %dx%d", i, p.Image, p.Width, p.Height)
		}
		sum += p.Shift
	}
	if sum != limit {
		t.Errorf("the shifts add up to %d, the note scrolled %d", sum, limit)
	}
	if r.Current == nil || r.Current.FrameID != r.Pages[len(r.Pages)-1].FrameID {
		t.Fatalf("current %+v is not the last page", r.Current)
	}
	if e := svc.CheckFrame(alice, control.FrameRef{ID: r.Current.FrameID, Epoch: r.Current.GeometryEpoch}); e != nil {
		t.Errorf("a tap on the current frame: %v", e)
	}
	if rep.Pages == nil || len(rep.Pages.Shots) != r.PageCount || !rep.Pages.Send || rep.Pages.Stitch == nil {
		t.Fatalf("pictures %+v", rep.Pages)
	}
	if st := r.Stitched; st == nil || st.Image != r.PageCount || st.Width != 944 || st.Height != rep.Pages.Stitch.Height {
		t.Fatalf("stitched %+v", r.Stitched)
	}

	got := native(rep.Pages)
	tall, err := sim.New(sim.Options{Clock: sim.FixedClock(simTime), Size: image.Pt(sim.DefaultWidth, sim.MaxSide)})
	if err != nil {
		t.Fatal(err)
	}
	defer tall.Close()
	if _, err := phone.LaunchApp(ctx, tall, phone.App{ID: "com.apple.mobilenotes", Name: "Notes"}); err != nil {
		t.Fatal(err)
	}
	if _, err := phone.Paste(ctx, tall, note); err != nil {
		t.Fatal(err)
	}
	whole, err := tall.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := whole.Image.(*image.RGBA)
	rows := got.Rect.Dy() - r.Footer
	if rows <= 2*sim.DefaultHeight || rows > want.Rect.Dy() {
		t.Fatalf("the stitched page has %d rows above its footer", rows)
	}
	for y := range rows {
		a := got.Pix[y*got.Stride : y*got.Stride+4*got.Rect.Dx()]
		b := want.Pix[y*want.Stride : y*want.Stride+4*want.Rect.Dx()]
		if !bytes.Equal(a, b) {
			t.Fatalf("stitched row %d of %d differs from the whole note's", y, rows)
		}
	}
}

// TestFullPageStops: max_pages ends the capture without another drag; a
// page that does not scroll is one page; stitched alone sends no page
// images; a replay answers without images and drags nothing.
func TestFullPageStops(t *testing.T) {
	ctx := context.Background()
	svc, ph := textService(t, nil, control.Limits{})
	openNote(t, svc, ph, alice, longNote(80))
	rep := svc.FullPage(ctx, alice, api.FullPageArgs{MaxPages: ip(2), Output: api.OutputStitched, MaxSize: ip(256), Settle: fp(0),
		OperationID: "20000000-0000-4000-8000-000000000001"})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	r := rep.Result
	if r.Stopped != control.StoppedPages || r.PageCount != 2 || r.Swipes != 1 || rep.Pages.Send || r.Stitched == nil || r.Stitched.Image != 0 {
		t.Fatalf("max_pages 2: %+v", r)
	}
	for _, p := range r.Pages {
		if p.Image != -1 {
			t.Errorf("output stitched names page image %d", p.Image)
		}
	}
	scrolled, _ := ph.NoteScroll()
	again := svc.FullPage(ctx, alice, api.FullPageArgs{MaxPages: ip(2), Output: api.OutputStitched, MaxSize: ip(256), Settle: fp(0),
		OperationID: "20000000-0000-4000-8000-000000000001"})
	if s, _ := ph.NoteScroll(); !again.Replayed || again.Pages != nil || s != scrolled {
		t.Fatalf("replay: replayed %v, pictures %v, scrolled %d→%d", again.Replayed, again.Pages != nil, scrolled, s)
	}
	one := svc.FullPage(ctx, alice, api.FullPageArgs{MaxPages: ip(1), Settle: fp(0)})
	if one.Error != nil || one.Result.PageCount != 1 || one.Result.Swipes != 0 || one.Result.Stitched != nil || one.Result.Stopped != control.StoppedPages {
		t.Fatalf("max_pages 1: %+v %v", one.Result, one.Error)
	}
	// The home screen does not scroll: one page, stopped at the end.
	if rep := svc.Button(ctx, alice, api.ButtonArgs{InputOptions: quiet, Button: "home"}); rep.Error != nil {
		t.Fatal(rep.Error)
	}
	home := svc.FullPage(ctx, alice, api.FullPageArgs{Settle: fp(0)})
	if home.Error != nil || home.Result.PageCount != 1 || home.Result.Swipes != 1 || home.Result.Stopped != control.StoppedEnd {
		t.Fatalf("home: %+v %v", home.Result, home.Error)
	}
}

// TestFullPageRefusals: a test per code full_page gives before or while it
// runs.
func TestFullPageRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args api.FullPageArgs
		lim  control.Limits
		prep func(svc *control.Service, ph *sim.Phone)
		code api.Code
	}{
		{name: "no pages", args: api.FullPageArgs{MaxPages: ip(0)}, code: api.CodeInvalidArguments},
		{name: "too many pages", args: api.FullPageArgs{MaxPages: ip(21)}, code: api.CodeInvalidArguments},
		{name: "output", args: api.FullPageArgs{Output: "pdf"}, code: api.CodeInvalidArguments},
		{name: "format", args: api.FullPageArgs{Format: "gif"}, code: api.CodeInvalidArguments},
		{name: "size", args: api.FullPageArgs{MaxSize: ip(4096)}, code: api.CodeInvalidArguments},
		{name: "settle", args: api.FullPageArgs{Settle: fp(6)}, code: api.CodeInvalidArguments},
		{name: "operation id", args: api.FullPageArgs{OperationID: "x"}, code: api.CodeInvalidArguments},
		{name: "paused", prep: func(svc *control.Service, _ *sim.Phone) { svc.Pause(ctx, "test") }, code: api.CodePaused},
		{name: "busy", prep: func(svc *control.Service, _ *sim.Phone) {
			svc.Control(ctx, bob, api.ControlArgs{Command: api.CommandAcquire})
		}, code: api.CodeControlBusy},
		{name: "rate", lim: control.Limits{CallsPerMinute: 1}, prep: func(svc *control.Service, _ *sim.Phone) {
			svc.Status(ctx, alice, api.StatusArgs{})
		}, code: api.CodeRateLimited},
		{name: "phone gone", prep: func(_ *control.Service, ph *sim.Phone) { ph.Close() }, code: api.CodePhoneUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, ph := textService(t, nil, tc.lim)
			if tc.prep != nil {
				tc.prep(svc, ph)
			}
			tc.args.Settle = cmpOr(tc.args.Settle, fp(0))
			rep := svc.FullPage(ctx, alice, tc.args)
			if rep.Error == nil || rep.Error.Code != tc.code {
				t.Fatalf("got %+v, want %s", rep.Outcome, tc.code)
			}
			if rep.Pages != nil {
				t.Error("a refused full page has pictures")
			}
		})
	}
	// A phone without touch.
	svc := serviceOn(t, &noTouch{Phone: newSim(t)})
	if rep := svc.FullPage(ctx, alice, api.FullPageArgs{}); rep.Error == nil || rep.Error.Code != api.CodeUnsupported || *rep.Dispatched {
		t.Fatalf("no touch: %+v", rep.Outcome)
	}
}

func cmpOr(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}

// noTouch is the sim described as a phone without touch input.
type noTouch struct{ *sim.Phone }

func (n *noTouch) Info() phone.Info { i := n.Phone.Info(); i.Touch = false; return i }

// gadget is the sim described as a USB gadget phone: no clipboard.
type gadget struct{ *sim.Phone }

func (g *gadget) Info() phone.Info {
	i := g.Phone.Info()
	i.Backend, i.Can = "gadget", phone.Capabilities{}
	return i
}

// simTime is textService's clock.
var simTime = time.Date(2026, 1, 2, 9, 41, 0, 0, time.UTC)

func newSim(t *testing.T) *sim.Phone {
	t.Helper()
	ph, err := sim.New(sim.Options{Clock: sim.FixedClock(simTime)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ph.Close() })
	return ph
}

// serviceOn is a Service on ph with a store in a temp dir.
func serviceOn(t *testing.T, ph phone.Phone) *control.Service {
	t.Helper()
	return serviceWith(t, control.Config{Phone: ph})
}

// serviceWith is a Service of cfg with a store in a temp dir, stopped at
// the end of the test.
func serviceWith(t testing.TB, cfg control.Config) *control.Service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Store = st
	svc, err := control.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// bouncy is the sim with a page that keeps moving after each drag, as an
// iOS page bounces back at its end: the next two screenshots after a touch
// show the picture lower down (80, then 40 rows), each a new frame.
type bouncy struct {
	*sim.Phone
	mu   sync.Mutex
	left int
	seq  uint64
}

func (b *bouncy) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	r, err := b.Phone.Touch(ctx, g)
	b.mu.Lock()
	b.left = 2
	b.mu.Unlock()
	return r, err
}

func (b *bouncy) Screenshot(ctx context.Context) (*phone.Frame, error) {
	f, err := b.Phone.Screenshot(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || b.left == 0 {
		return f, err
	}
	off := 40 * b.left
	b.left--
	b.seq++
	src := f.Image.(*image.RGBA)
	img := image.NewRGBA(src.Rect)
	copy(img.Pix[off*img.Stride:], src.Pix[:len(src.Pix)-off*src.Stride])
	return &phone.Frame{Image: img, Seq: 1<<40 + b.seq, Geometry: f.Geometry, Captured: f.Captured}, nil
}

// TestFullPageWaitsForStillness: with a settle, each page is captured only
// once the picture holds still, so no page is a picture of the page still
// bouncing after its drag and the overlaps add up; without one (settle 0)
// the bounce is captured, which shows the fake bounces.
func TestFullPageWaitsForStillness(t *testing.T) {
	ctx := context.Background()
	for _, settle := range []float64{0.01, 0} {
		b := &bouncy{Phone: newSim(t)}
		svc := serviceOn(t, b)
		openNote(t, svc, b.Phone, alice, longNote(60))
		rep := svc.FullPage(ctx, alice, api.FullPageArgs{Settle: fp(settle), MaxSize: ip(256)})
		if rep.Error != nil {
			t.Fatal(rep.Error)
		}
		sum, matched, bounced := 0, true, 0
		for i, p := range rep.Result.Pages {
			sum += p.Shift
			matched = matched && (i == 0 || p.Matched)
			if rep.Pages.Shots[i].Frame.Seq >= 1<<40 {
				bounced++
			}
		}
		_, limit := b.NoteScroll()
		if settle > 0 && (sum != limit || !matched || bounced > 0 || rep.Result.Stopped != control.StoppedEnd) {
			t.Errorf("settle %g: %d pages captured mid-bounce; the shifts add up to %d of %d (all matched %v), stopped %s",
				settle, bounced, sum, limit, matched, rep.Result.Stopped)
		}
		if settle == 0 && bounced == 0 {
			t.Errorf("without a settle no page was captured mid-bounce: the fake does not bounce")
		}
	}
}

// ticking is the sim whose every screenshot is a new frame of the same
// picture, as when a status bar clock or a fading scroll indicator
// changes between captures: the capture that finds the page's end is then
// a newer frame than the last page.
type ticking struct {
	*sim.Phone
	mu sync.Mutex
	n  uint64
}

func (p *ticking) Screenshot(ctx context.Context) (*phone.Frame, error) {
	f, err := p.Phone.Screenshot(ctx)
	if err != nil {
		return f, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	g := *f
	g.Seq = 1<<40 + p.n
	return &g, nil
}

// TestFullPageCurrentIsTheLatest: full_page's current frame is the
// caller's latest, the one a tap is to name, even when the capture that
// found the end (and so is no page) is a newer frame than the last page;
// it named the last page, and the tap an agent made on it was
// FRAME_EXPIRED.
func TestFullPageCurrentIsTheLatest(t *testing.T) {
	ph := &ticking{Phone: newSim(t)}
	svc := serviceOn(t, ph)
	openNote(t, svc, ph.Phone, alice, longNote(60))
	rep := svc.FullPage(context.Background(), alice, api.FullPageArgs{Settle: fp(0), MaxSize: ip(256)})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	r := rep.Result
	if r.Stopped != control.StoppedEnd || r.Current == nil {
		t.Fatalf("stopped %q, current %+v", r.Stopped, r.Current)
	}
	if e := svc.CheckFrame(alice, control.FrameRef{ID: r.Current.FrameID, Epoch: r.Current.GeometryEpoch}); e != nil {
		t.Fatalf("a tap on full_page's current frame: %v", e)
	}
	if last := r.Pages[len(r.Pages)-1]; r.Current.FrameID == last.FrameID || r.Current.Width != last.Width || r.Current.Height != last.Height {
		t.Errorf("current %+v, want the newer frame at the last page's size (%dx%d)", r.Current, last.Width, last.Height)
	}
}
