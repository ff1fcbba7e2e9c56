package control

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// listTries is how many times Elements takes a frame and reads the
// phone's tree when the screen turns in between.
const listTries = 3

// listed is the elements of one frame as the caller was given them: every
// kept element with its id, the source and the note. They are stored with
// the caller's frame (clientFrame) so that a tap by element and a cursor
// resolve against exactly what was listed.
type listed struct {
	source   api.ElementSource
	note     string
	elements []api.Element
}

// Elements is openlolo_elements: the elements of the screen now, from the
// phone's own tree where the backend has one ([phone.ElementLister]), else
// the text lines OCR reads on the picture. The frame they were read on
// becomes the caller's latest (as openlolo_screenshot's), and their ids
// are stored with it; a cursor pages through that same list.
func (s *Service) Elements(ctx context.Context, c Client, a api.ElementsArgs) Reply[api.ElementsResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.ElementsResult](e))
	}
	f, e := checkElements(a)
	if e != nil {
		return reply(Fail[api.ElementsResult](e))
	}
	var ref FrameRef
	var l *listed
	if a.Cursor != "" {
		if ref, l, e = s.cursorList(c, f.cursorFrame); e != nil {
			return reply(Fail[api.ElementsResult](e))
		}
	} else {
		shot, got, e := s.listElements(ctx, c)
		if e != nil {
			return reply(Fail[api.ElementsResult](e))
		}
		ref, l = FrameRef{ID: shot.ID, Epoch: shot.Epoch}, got
	}
	return reply(OK(f.page(ref, l)))
}

// elementsFilter is openlolo_elements' checked arguments.
type elementsFilter struct {
	query       string // folded
	clickable   bool
	limit       int
	cursorFrame string
	offset      int
}

func checkElements(a api.ElementsArgs) (elementsFilter, *Error) {
	if e := api.Length(api.ToolElements, "query", a.Query); e != nil {
		return elementsFilter{}, e
	}
	if e := api.Length(api.ToolElements, "cursor", a.Cursor); e != nil {
		return elementsFilter{}, e
	}
	limit, e := api.Integer(api.ToolElements, "limit", a.Limit)
	if e != nil {
		return elementsFilter{}, e
	}
	f := elementsFilter{query: fold(a.Query), clickable: api.Bool(api.ToolElements, "clickable_only", a.ClickableOnly), limit: limit}
	if a.Cursor != "" {
		frame, off, ok := strings.Cut(a.Cursor, "/")
		n, err := strconv.Atoi(off)
		if !ok || err != nil || n < 0 || frame == "" {
			return elementsFilter{}, invalid("cursor %q is not a next_cursor this box gave; call openlolo_elements without cursor", api.Clip(a.Cursor))
		}
		f.cursorFrame, f.offset = frame, n
	}
	return f, nil
}

// page is the answer: the elements of l that pass f, from f's offset, at
// most f.limit of them, and the cursor of the next page.
func (f elementsFilter) page(ref FrameRef, l *listed) *api.ElementsResult {
	res := &api.ElementsResult{FrameID: ref.ID, GeometryEpoch: ref.Epoch, Source: l.source, Note: l.note, Elements: []api.Element{}}
	clickable := f.clickable
	if clickable && l.source == api.SourceOCR {
		clickable = false
		res.Note = joinNote(res.Note, "OCR cannot tell what reacts to a tap, so clickable_only was ignored.")
	}
	for _, el := range l.elements {
		if clickable && !el.Clickable {
			continue
		}
		if f.query != "" && !strings.Contains(fold(el.Text), f.query) && !strings.Contains(fold(el.Label), f.query) &&
			!strings.Contains(fold(el.Identifier), f.query) {
			continue
		}
		if res.Total >= f.offset && len(res.Elements) < f.limit {
			res.Elements = append(res.Elements, el)
		}
		res.Total++
	}
	if next := f.offset + len(res.Elements); next < res.Total {
		res.NextCursor = ref.ID + "/" + strconv.Itoa(next)
	}
	return res
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// fold is s as queries compare it: lower case, runs of spaces as one.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// cursorList is the list stored with c's latest frame, which the cursor's
// frame must be.
func (s *Service) cursorList(c Client, frameID string) (FrameRef, *listed, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cf, ok := s.frames[c.ID]
	if !ok || cf.listed == nil || s.frameID(cf.seq) != frameID {
		return FrameRef{}, nil, api.Errorf(api.CodeCursorExpired,
			"the cursor's frame is no longer your latest with a list of elements; call openlolo_elements without cursor")
	}
	return FrameRef{ID: frameID, Epoch: api.FormatEpoch(cf.epoch)}, cf.listed, nil
}

// listElements reads the screen's elements and stores them with the frame
// they were read on, which becomes c's latest.
func (s *Service) listElements(ctx context.Context, c Client) (Shot, *listed, *Error) {
	var shot Shot
	var l *listed
	var e *Error
	var failed error // the tree's, when it could not be read
	if lister, ok := s.ph.(phone.ElementLister); ok && s.ph.Info().Can.Elements {
		shot, l, e, failed = s.treeElements(ctx, c, lister)
	}
	if l == nil && e == nil {
		shot, l, e = s.ocrElements(ctx, c)
		if l != nil && failed != nil {
			l.note = joinNote(fmt.Sprintf("The phone's element tree could not be read (%v), so these are the text lines OCR read on the screen.", failed), l.note)
		}
	}
	if e != nil {
		return Shot{}, nil, e
	}
	s.mu.Lock()
	if cf := s.frames[c.ID]; cf.seq == shot.Frame.Seq && cf.epoch == shot.Frame.Geometry.Epoch {
		cf.listed = l
		s.frames[c.ID] = cf
	}
	s.mu.Unlock()
	return shot, l, nil
}

// treeElements takes a frame, then reads the backend's tree, whose
// bounds are in the geometry it names: when that is not the frame's (the
// phone turned in between), it reads both again. It compares geometries,
// not pictures: a backend may number every capture anew, so a second look
// would always differ, and it would cost a capture. A failed read answers
// no list but the read's error (failed): the caller falls back to OCR.
func (s *Service) treeElements(ctx context.Context, c Client, lister phone.ElementLister) (_ Shot, _ *listed, _ *Error, failed error) {
	var shot Shot
	var tree phone.ElementList
	for range listTries {
		var err error
		if shot, err = s.TakeFrame(ctx, c); err != nil {
			return Shot{}, nil, PhoneError(err), nil
		}
		tree, err = lister.Elements(ctx)
		if ctx.Err() != nil {
			return Shot{}, nil, api.Errorf(api.CodeCancelled, "the call ended before the elements were read: %v", ctx.Err()), nil
		}
		if err != nil {
			s.log.Warn("elements: the phone's tree failed; falling back to OCR", "err", err)
			return shot, nil, nil, err
		}
		if g := tree.Geometry; g == (phone.Geometry{}) || g.Epoch == shot.Frame.Geometry.Epoch {
			return shot, kept(tree, shot.Frame.Image.Bounds().Size()), nil, nil
		}
	}
	l := kept(tree, shot.Frame.Image.Bounds().Size())
	l.note = joinNote(l.note, "The screen turned while its elements were read: the boxes are fractions of the screen as the tree saw it; take a screenshot before acting.")
	return shot, l, nil, nil
}

// ocrElements takes a frame and answers its text lines as elements.
func (s *Service) ocrElements(ctx context.Context, c Client) (Shot, *listed, *Error) {
	if s.ocr == nil {
		return Shot{}, nil, api.Errorf(api.CodeUnsupported,
			"this phone gives no element tree and this box runs without an OCR engine; install tesseract-ocr and tesseract-ocr-eng and restart the box, or read the screen from openlolo_screenshot")
	}
	shot, err := s.TakeFrame(ctx, c)
	if err != nil {
		return Shot{}, nil, PhoneError(err)
	}
	lines, size, e := s.readLines(ctx, shot)
	if e != nil {
		return Shot{}, nil, e
	}
	l := &listed{source: api.SourceOCR, elements: []api.Element{}}
	for i, ln := range lines {
		l.elements = append(l.elements, wireElement(i, phone.Element{Role: api.RoleText, Text: ln.Text, Bounds: ln.Box, Enabled: true}, size))
	}
	return shot, l, nil
}

// readLines reads the text lines of shot's picture with the OCR engine, at
// the default screenshot size, which it returns with them (the lines'
// boxes are in its pixels).
func (s *Service) readLines(ctx context.Context, shot Shot) ([]ocr.Line, image.Point, *Error) {
	img := picture.Fitted(shot.Frame.Image, picture.Square(api.DefaultMaxSize))
	words, err := s.ocr.Recognize(ctx, img)
	switch {
	case errors.Is(err, ocr.ErrNoEngine):
		return nil, image.Point{}, api.Errorf(api.CodeUnsupported, "%v; until then read the screen from openlolo_screenshot", err)
	case ctx.Err() != nil:
		return nil, image.Point{}, api.Errorf(api.CodeCancelled, "the call ended before the text was read: %v", ctx.Err())
	case err != nil:
		s.log.Warn("ocr failed", "err", err)
		return nil, image.Point{}, api.Errorf(api.CodeInternal, "reading the screen's text failed: %v", err)
	}
	return ocr.Lines(words), img.Bounds().Size(), nil
}

// kept is the elements of tree an agent can use, with their ids: every
// element on the screen (clipped to it) that says something (text, label
// or identifier), has a role other than other, or reacts (clickable,
// long-clickable, checkable, scrollable), nested ones included. Dropped:
// elements of no area or off the screen, and bare layout containers.
// Bounds become fractions of screen, the tree's geometry (the frame's
// size when the tree has none).
func kept(tree phone.ElementList, frame image.Point) *listed {
	screen := image.Rect(0, 0, tree.Geometry.Width, tree.Geometry.Height)
	if screen.Empty() {
		screen = image.Rectangle{Max: frame}
	}
	l := &listed{source: tree.Source, note: tree.Note, elements: []api.Element{}}
	for _, el := range tree.Elements {
		el.Bounds = el.Bounds.Intersect(screen)
		if el.Bounds.Empty() {
			continue
		}
		if el.Role == "" {
			el.Role = api.RoleOther
		}
		says := el.Text != "" || el.Label != "" || el.Identifier != ""
		reacts := el.Clickable || el.LongClickable || el.Checkable || el.Scrollable
		if !says && !reacts && el.Role == api.RoleOther {
			continue
		}
		l.elements = append(l.elements, wireElement(len(l.elements), el, screen.Size()))
	}
	return l
}

// wireElement is el as the i-th element of a list, placed as fractions of
// a screen of size pixels (rounded as find_text's boxes are).
func wireElement(i int, el phone.Element, size image.Point) api.Element {
	box := textBox("", 0, el.Bounds, size)
	return api.Element{ID: elementID(i), Role: el.Role, Text: el.Text, Label: el.Label, Identifier: el.Identifier,
		Bounds:  api.ElementBounds{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height},
		CenterX: box.CenterX, CenterY: box.CenterY,
		Enabled: el.Enabled, Clickable: el.Clickable || el.LongClickable, Checkable: el.Checkable, Checked: el.Checked,
		Selected: el.Selected, Focused: el.Focused, Scrollable: el.Scrollable, Password: el.Password}
}

func elementID(i int) string { return "e" + strconv.Itoa(i+1) }

// elementPoint is where a touch by element lands: the centre of element id
// of c's latest frame, which ref must name. An id the frame's list does
// not have is FRAME_EXPIRED, as a stale frame is.
func (s *Service) elementPoint(c Client, ref FrameRef, id string) (phone.Point, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.checkFrameLocked(c, ref); e != nil {
		return phone.Point{}, e
	}
	cf := s.frames[c.ID]
	if cf.listed != nil {
		for _, el := range cf.listed.elements {
			if el.ID == id {
				return phone.Point{X: el.CenterX, Y: el.CenterY}, nil
			}
		}
	}
	return phone.Point{}, api.Errorf(api.CodeFrameExpired,
		"element %q is not one of the elements listed for frame_id %s; call openlolo_elements and use an id from its answer", api.Clip(id), ref.ID)
}

// touchPoint is a touch tool's point: element's centre when element is
// given, else x and y; and the frame the touch names.
func (s *Service) touchPoint(c Client, tool api.Tool, f api.FrameArgs, element string) (FrameRef, phone.Point, *Error) {
	if element == "" {
		return checkFrame(tool, f)
	}
	if f.X != nil || f.Y != nil {
		return FrameRef{}, phone.Point{}, invalid("give element or x and y, not both")
	}
	if e := api.Length(tool, "element", element); e != nil {
		return FrameRef{}, phone.Point{}, e
	}
	if f.FrameID == "" || f.GeometryEpoch == "" {
		return FrameRef{}, phone.Point{}, invalid("frame_id and geometry_epoch are required with element: take them from the openlolo_elements answer that listed it")
	}
	ref := FrameRef{ID: f.FrameID, Epoch: string(f.GeometryEpoch)}
	p, e := s.elementPoint(c, ref, element)
	return ref, p, e
}
