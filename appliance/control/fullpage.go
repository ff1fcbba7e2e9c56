package control

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// The drag between pages: down the middle from 70 % to 30 % of the height
// (clear of the home edge and the status bar), slowly, resting at the end
// before lifting so the page stops where the finger does (no momentum).
var (
	pageFrom = phone.Point{X: 0.5, Y: 0.7}
	pageTo   = phone.Point{X: 0.5, Y: 0.3}
)

const (
	pageDragTime = 500 * time.Millisecond
	pageDragHold = 250 * time.Millisecond
)

// Stopped reasons of openlolo_full_page.
const (
	StoppedEnd   = "end"   // a drag no longer moved the page
	StoppedPages = "pages" // max_pages reached
)

// Pages are a full-page answer's pictures, in the order of its image
// blocks: each page (when Send), then the stitched image (when Stitch).
type Pages struct {
	Shots  []Shot // each page as taken, with the format and size to send
	Send   bool
	Stitch *Stitch
}

// Stitch is the stitched image to compose from the pages' frames: the
// strips in order, scaled to Width×Height.
type Stitch struct {
	Strips        []Strip
	Width, Height int
	// PageHeight is a page's height at the stitched image's scale; a
	// strip's rows scale by PageHeight/NativeHeight.
	PageHeight, NativeHeight int
	Format                   api.ImageFormat
}

// Scale is row y of a native frame at the stitched image's scale.
func (st *Stitch) Scale(y int) int { return y * st.PageHeight / st.NativeHeight }

type fullPageOpts struct {
	opID   string
	pages  int
	output api.PageOutput
	format api.ImageFormat
	size   int
	settle float64
}

func checkFullPage(a api.FullPageArgs) (fullPageOpts, *Error) {
	var o fullPageOpts
	var e *Error
	if o.opID, e = opID(a.OperationID); e != nil {
		return o, e
	}
	if o.pages, e = api.Integer(api.ToolFullPage, "max_pages", a.MaxPages); e != nil {
		return o, e
	}
	o.output = api.PageOutput(strings.ToLower(string(a.Output)))
	if o.output == "" {
		o.output = api.DefaultPageOutput
	}
	if !slices.Contains(o.output.Enum(), string(o.output)) {
		return o, invalid("output must be pages, stitched or both, not %q", api.Clip(string(a.Output)))
	}
	if o.format, _, e = checkScreenshot(api.ScreenshotArgs{Format: a.Format}); e != nil {
		return o, e
	}
	if o.size, e = api.Integer(api.ToolFullPage, "max_size", a.MaxSize); e != nil {
		return o, e
	}
	if o.settle, e = api.Number(api.ToolFullPage, "settle", a.Settle); e != nil {
		return o, e
	}
	return o, nil
}

// FullPage is openlolo_full_page: it captures the screen, then drags the
// page up without momentum and captures again until a drag no longer
// moves it (its bottom) or max_pages are taken. Each later page's overlap
// with the one before is found in the pixels (rows compared; the shift
// and the fixed header and footer), so the pages stitch into one image.
// Every page becomes the caller's latest frame in turn; the last is the
// answer's current frame, for the next tap. It runs as one input under
// the rules (control, pause, queue, journal); the images are not
// journaled, so a replay answers without them.
func (s *Service) FullPage(ctx context.Context, c Client, a api.FullPageArgs) Reply[api.FullPageResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.FullPageResult](e)
	}
	o, e := checkFullPage(a)
	if e != nil {
		return refuseInput[api.FullPageResult](e)
	}
	if info := s.ph.Info(); !info.Touch || !info.Screenshot {
		return refuseInput[api.FullPageResult](api.Errorf(api.CodeUnsupported, "openlolo_full_page needs touch and screenshots, which this phone's %s backend does not both have", info.Backend))
	}
	a.OperationID = ""
	var pics *Pages
	ans := Do(ctx, s, Call[api.FullPageResult]{Client: c, Tool: api.ToolFullPage, OperationID: o.opID, Args: a, Input: true,
		Run: func(ctx context.Context) (*api.FullPageResult, error) {
			res, p, err := s.fullPage(ctx, c, o)
			pics = p
			return res, err
		}})
	if ans.Status != api.StatusOK || ans.Replayed {
		pics = nil
	}
	return Reply[api.FullPageResult]{Answer: ans, Pages: pics}
}

// fullPage is FullPage's run.
func (s *Service) fullPage(ctx context.Context, c Client, o fullPageOpts) (*api.FullPageResult, *Pages, error) {
	start := time.Now()
	first, firstSig, err := s.stillFrame(ctx, c, o.settle > 0)
	if err != nil {
		return nil, nil, err
	}
	shots := []Shot{first}
	// latest is the last frame taken for c: its latest, which a tap after
	// full_page names. It is the last page's, or the newer frame of the
	// same page that found the end.
	latest := first
	sigs := []signature{firstSig}
	shifts, matched := []int{0}, []bool{false}
	header, footer := -1, -1
	res := &api.FullPageResult{Stopped: StoppedPages}
	drag := phone.Swipe(pageFrom, pageTo, phone.SwipeDwell, pageDragTime, pageDragHold, phone.SwipeRate)
	for len(shots) < o.pages {
		if _, err := s.ph.Touch(ctx, drag); err != nil {
			return nil, nil, err
		}
		res.Swipes++
		if err := phone.Sleep(ctx, seconds(o.settle)); err != nil {
			return nil, nil, err
		}
		shot, sg, err := s.stillFrame(ctx, c, o.settle > 0)
		if err != nil {
			return nil, nil, err
		}
		latest = shot
		if shot.Frame.Geometry.Epoch != first.Frame.Geometry.Epoch || shot.Frame.Image.Bounds() != first.Frame.Image.Bounds() {
			return nil, nil, api.Errorf(api.CodeCaptureFailed, "the screen's geometry changed during the capture (a rotation?); take a screenshot and call openlolo_full_page again")
		}
		prev := sigs[len(sigs)-1]
		if shot.Frame.Seq == shots[len(shots)-1].Frame.Seq || !moved(prev, sg) {
			res.Stopped = StoppedEnd
			break
		}
		h, f := chrome(prev, sg)
		height := len(sg.rows)
		expect := int(float64(height)*(pageFrom.Y-pageTo.Y) + 0.5)
		sh, ok := overlap(prev, sg, h, f, expect)
		if !ok {
			sh = min(expect, max(1, height-h-f))
		}
		if header < 0 || h < header {
			header = h
		}
		if footer < 0 || f < footer {
			footer = f
		}
		shots, sigs = append(shots, shot), append(sigs, sg)
		shifts, matched = append(shifts, sh), append(matched, ok)
	}
	header, footer = max(header, 0), max(footer, 0)
	pics := &Pages{Shots: shots, Send: o.output != api.OutputStitched}
	for i, sh := range shots {
		sh.Format, sh.MaxSize = o.format, o.size
		shots[i] = sh
		b := sh.Frame.Image.Bounds()
		w, h := picture.Fit(b.Dx(), b.Dy(), o.size)
		p := api.Page{Frame: *sh.Result(w, h), Shift: shifts[i], Matched: matched[i], Image: -1}
		if pics.Send {
			p.Image = i
		}
		res.Pages = append(res.Pages, p)
	}
	b := latest.Frame.Image.Bounds()
	w, h := picture.Fit(b.Dx(), b.Dy(), o.size)
	latest.Format, latest.MaxSize = o.format, o.size
	res.Current = latest.Result(w, h)
	res.PageCount, res.Header, res.Footer = len(shots), header, footer
	if o.output != api.OutputPages {
		b := first.Frame.Image.Bounds()
		w, ph := picture.Fit(b.Dx(), b.Dy(), o.size)
		st := &Stitch{Strips: stitchPlan(b.Dy(), footer, shifts), Width: w, PageHeight: ph, NativeHeight: b.Dy(), Format: o.format}
		total := 0
		for _, sp := range st.Strips {
			total += sp.Y1 - sp.Y0
		}
		st.Height = st.Scale(total)
		pics.Stitch = st
		idx := 0
		if pics.Send {
			idx = len(shots)
		}
		res.Stitched = &api.StitchedImage{Width: st.Width, Height: st.Height, Format: o.format, Image: idx}
	}
	res.TookMS = time.Since(start).Milliseconds()
	return res, pics, nil
}

// The wait for a page to hold still after its drag and settle: captures
// probeEvery apart until two in a row show the same picture (below the
// status bar), at most stillMax.
const (
	probeEvery = 250 * time.Millisecond
	stillMax   = 3 * time.Second
)

// stillFrame takes c's next frame and, when wait, keeps taking frames
// until the picture holds still (an iOS page still decelerating or
// bouncing back at its end would otherwise be captured mid-move), or
// stillMax has passed; it returns the last frame and its signature.
func (s *Service) stillFrame(ctx context.Context, c Client, wait bool) (Shot, signature, error) {
	shot, err := s.TakeFrame(ctx, c)
	if err != nil {
		return Shot{}, signature{}, err
	}
	sg := sign(shot.Frame.Image)
	if !wait {
		return shot, sg, nil
	}
	for deadline := time.Now().Add(stillMax); time.Now().Before(deadline); {
		if err := phone.Sleep(ctx, probeEvery); err != nil {
			return Shot{}, signature{}, err
		}
		next, err := s.TakeFrame(ctx, c)
		if err != nil {
			return Shot{}, signature{}, err
		}
		nsg := sign(next.Frame.Image)
		still := next.Frame.Seq == shot.Frame.Seq || !moved(sg, nsg)
		shot, sg = next, nsg
		if still {
			break
		}
	}
	return shot, sg, nil
}
