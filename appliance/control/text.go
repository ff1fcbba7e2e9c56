package control

import (
	"context"
	"image"
	"math"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/ocr"
)

// FindText is openlolo_find_text: it takes a screenshot (the caller's
// latest frame from now on, as openlolo_screenshot's), reads its text with
// the OCR engine at the default screenshot size, and answers the matches
// of the query, or every line without one, as fractions of that frame.
func (s *Service) FindText(ctx context.Context, c Client, a api.FindTextArgs) Reply[api.FindTextResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.FindTextResult](e))
	}
	if e := api.Length(api.ToolFindText, "query", a.Query); e != nil {
		return reply(Fail[api.FindTextResult](e))
	}
	if s.ocr == nil {
		return reply(Fail[api.FindTextResult](api.Errorf(api.CodeUnsupported,
			"this box runs without an OCR engine; install tesseract-ocr and tesseract-ocr-eng (or update the box to an image that ships them) and restart it; until then read the screen from openlolo_screenshot")))
	}
	shot, err := s.TakeFrame(ctx, c)
	if err != nil {
		return reply(Fail[api.FindTextResult](PhoneError(err)))
	}
	lines, size, e := s.readLines(ctx, shot)
	if e != nil {
		return reply(Fail[api.FindTextResult](e))
	}
	res := &api.FindTextResult{FrameID: shot.ID, GeometryEpoch: shot.Epoch, Query: a.Query,
		Matches: []api.TextBox{}, Lines: []api.TextBox{}, Engine: s.ocr.Name()}
	if a.Query == "" {
		for _, l := range lines {
			res.Lines = append(res.Lines, textBox(l.Text, l.Conf, l.Box, size))
		}
	} else {
		for _, m := range ocr.Find(lines, a.Query) {
			res.Matches = append(res.Matches, textBox(m.Text, m.Conf, m.Box, size))
		}
	}
	return reply(OK(res))
}

// textBox places r (pixels of an image of the given size) as fractions,
// rounded to 4 places (a tenth of a pixel on a 1536 frame), the confidence
// to 2.
func textBox(text string, conf float64, r image.Rectangle, size image.Point) api.TextBox {
	fx := func(v int) float64 { return round(float64(v)/float64(size.X), 4) }
	fy := func(v int) float64 { return round(float64(v)/float64(size.Y), 4) }
	return api.TextBox{Text: text, Confidence: round(conf, 2),
		X: fx(r.Min.X), Y: fy(r.Min.Y), Width: fx(r.Dx()), Height: fy(r.Dy()),
		CenterX: round(float64(r.Min.X+r.Max.X)/2/float64(size.X), 4), CenterY: round(float64(r.Min.Y+r.Max.Y)/2/float64(size.Y), 4)}
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
