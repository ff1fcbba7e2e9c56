package control_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// brokenTree is the simulated phone whose tree cannot be read.
type brokenTree struct{ *sim.Phone }

func (brokenTree) Elements(context.Context) (phone.ElementList, error) {
	return phone.ElementList{}, errors.New("uiautomator: could not get idle state")
}

// turningTree is the simulated phone that turns just before each read of
// its tree (the geometry epoch moves on); reads counts the reads.
type turningTree struct {
	*sim.Phone
	reads *int
}

func (m turningTree) Elements(ctx context.Context) (phone.ElementList, error) {
	*m.reads++
	size := image.Pt(sim.DefaultWidth, sim.DefaultHeight)
	if *m.reads%2 == 1 {
		size = image.Pt(sim.DefaultHeight, sim.DefaultWidth)
	}
	if err := m.SetSize(size); err != nil {
		return phone.ElementList{}, err
	}
	return m.Phone.Elements(ctx)
}

// elementsService is a Service over the simulated phone, or one wrapping
// it (wrap), with the OCR engine eng.
func elementsService(t *testing.T, wrap func(*sim.Phone) phone.Phone, eng ocr.Engine) (*control.Service, *sim.Phone) {
	t.Helper()
	return simService(t, wrap, eng, control.Limits{})
}

// simService is a Service over the simulated phone on a fixed clock, or
// one wrapping it (wrap nil: the sim itself), with the OCR engine eng and
// the limits lim.
func simService(t testing.TB, wrap func(*sim.Phone) phone.Phone, eng ocr.Engine, lim control.Limits) (*control.Service, *sim.Phone) {
	t.Helper()
	sp, err := sim.New(sim.Options{Clock: sim.FixedClock(time.Date(2026, 1, 2, 9, 41, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	var ph phone.Phone = sp
	if wrap != nil {
		ph = wrap(sp)
	}
	return serviceWith(t, control.Config{Phone: ph, OCR: eng, Limits: lim}), sp
}

// elements lists and fails the test on a refusal.
func elements(t *testing.T, svc *control.Service, a api.ElementsArgs) *api.ElementsResult {
	t.Helper()
	rep := svc.Elements(context.Background(), alice, a)
	if rep.Error != nil {
		t.Fatalf("elements %+v: %v", a, rep.Error)
	}
	return rep.Result
}

var unobserved = api.InputOptions{Observe: &noObserve}

func tapElement(svc *control.Service, r *api.ElementsResult, id string) *control.Error {
	return svc.Tap(context.Background(), alice, api.TapArgs{FrameArgs: api.FrameArgs{FrameID: r.FrameID, GeometryEpoch: api.Epoch(r.GeometryEpoch)},
		Element: id, InputOptions: unobserved}).Error
}

// TestElementsWalk: find Notes by query, tap it by element, type into the
// note's field by element, see the text in the field's element; an id of
// the frame before is FRAME_EXPIRED.
func TestElementsWalk(t *testing.T) {
	svc, ph := elementsService(t, nil, nil)
	ctx := context.Background()
	home := elements(t, svc, api.ElementsArgs{})
	if home.Source != api.SourceSim || home.Total < 20 || home.Note != "" {
		t.Fatalf("home: source %s, %d elements, note %q", home.Source, home.Total, home.Note)
	}
	found := elements(t, svc, api.ElementsArgs{Query: "  NOTES "})
	if found.Total != 1 || found.Elements[0].Text != "Notes" || found.FrameID != home.FrameID {
		t.Fatalf("query notes: %+v", found)
	}
	notes := found.Elements[0]
	// Observed (the default): the answer's picture of Notes becomes the
	// caller's latest frame, as after a tap by coordinates.
	tap := svc.Tap(ctx, alice, api.TapArgs{FrameArgs: api.FrameArgs{FrameID: found.FrameID, GeometryEpoch: api.Epoch(found.GeometryEpoch)},
		Element: notes.ID, InputOptions: api.InputOptions{Settle: ptrTo(0.0)}})
	if tap.Error != nil || tap.Shot == nil {
		t.Fatalf("tap by element: %v (observation %v)", tap.Error, tap.Shot)
	}
	if ph.Screen() != "notes" {
		t.Fatalf("after the tap the screen is %q", ph.Screen())
	}
	// The screen changed, but the caller still names the home frame.
	if e := tapElement(svc, found, notes.ID); e == nil || e.Code != api.CodeFrameExpired {
		t.Fatalf("stale element: %v, want FRAME_EXPIRED", e)
	}
	page := elements(t, svc, api.ElementsArgs{Query: "note", ClickableOnly: ptrTo(true)})
	if page.FrameID == home.FrameID || page.Total != 1 || page.Elements[0].Role != api.RoleTextField {
		t.Fatalf("notes' field: %+v", page)
	}
	if e := tapElement(svc, page, notes.ID); e == nil || e.Code != api.CodeFrameExpired || !strings.Contains(e.Message, "openlolo_elements") {
		t.Fatalf("home's id on the notes frame: %v, want FRAME_EXPIRED naming openlolo_elements", e)
	}
	typed := svc.TypeText(ctx, alice, api.TypeTextArgs{Text: ptrTo("milk"), FrameID: page.FrameID,
		GeometryEpoch: api.Epoch(page.GeometryEpoch), Element: page.Elements[0].ID, InputOptions: unobserved})
	if typed.Error != nil || ph.NoteText() != "milk" || typed.Result.Reports <= 8 {
		t.Fatalf("type by element: %+v, note %q", typed.Error, ph.NoteText())
	}
	if again := elements(t, svc, api.ElementsArgs{Query: "milk"}); again.Total != 1 || again.Elements[0].Role != api.RoleTextField {
		t.Fatalf("the field's element after typing: %+v", again)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestElementsPages: limit and cursor page through one frame's list; a
// cursor of an older frame is CURSOR_EXPIRED.
func TestElementsPages(t *testing.T) {
	svc, ph := elementsService(t, nil, nil)
	all := elements(t, svc, api.ElementsArgs{})
	var got []api.Element
	cursor := ""
	for range 10 {
		p := elements(t, svc, api.ElementsArgs{Limit: ptrTo(8), Cursor: cursor})
		if p.Total != all.Total || p.FrameID != all.FrameID {
			t.Fatalf("page: total %d frame %s, want %d %s", p.Total, p.FrameID, all.Total, all.FrameID)
		}
		got = append(got, p.Elements...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(got) != all.Total || got[len(got)-1].ID != all.Elements[len(all.Elements)-1].ID {
		t.Fatalf("pages gave %d elements, want %d", len(got), all.Total)
	}
	first := elements(t, svc, api.ElementsArgs{Limit: ptrTo(3)})
	mouse := ph.Screen()
	c, _ := ph.IconCenter("Settings")
	if e := svc.Tap(context.Background(), alice, api.TapArgs{FrameArgs: api.FrameArgs{FrameID: first.FrameID,
		GeometryEpoch: api.Epoch(first.GeometryEpoch), X: &c.X, Y: &c.Y}}).Error; e != nil || ph.Screen() == mouse {
		t.Fatalf("tap Settings: %v", e)
	}
	if rep := svc.Elements(context.Background(), alice, api.ElementsArgs{Cursor: first.NextCursor}); rep.Error == nil || rep.Error.Code != api.CodeCursorExpired {
		t.Fatalf("an older frame's cursor: %+v, want CURSOR_EXPIRED", rep.Error)
	}
}

// TestElementsTextless: Settings' switch has no text and is listed with
// its label; tapping it by element turns it on.
func TestElementsTextless(t *testing.T) {
	svc, ph := elementsService(t, nil, nil)
	home := elements(t, svc, api.ElementsArgs{Query: "settings"})
	if e := tapElement(svc, home, home.Elements[0].ID); e != nil || ph.Screen() != "settings" {
		t.Fatalf("open Settings: %v", e)
	}
	sw := elements(t, svc, api.ElementsArgs{Query: "airplane", ClickableOnly: ptrTo(true)})
	if sw.Total != 1 || sw.Elements[0].Role != api.RoleSwitch || sw.Elements[0].Text != "" || sw.Elements[0].Checked {
		t.Fatalf("the switch: %+v", sw)
	}
	if e := tapElement(svc, sw, sw.Elements[0].ID); e != nil || !ph.AirplaneMode() {
		t.Fatalf("tap the switch: %v, on %v", e, ph.AirplaneMode())
	}
	if on := elements(t, svc, api.ElementsArgs{Query: "airplane_mode"}); on.Total != 1 || !on.Elements[0].Checked {
		t.Fatalf("after the tap: %+v", on)
	}
}

// TestElementsFallBack: without a tree the text lines are elements
// (source ocr); a tree that fails falls back to OCR and says so; a screen
// that turns at every read is read three times, and said.
func TestElementsFallBack(t *testing.T) {
	eng := engineFunc(func(_ context.Context, img image.Image) ([]ocr.Word, error) {
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		return []ocr.Word{{Text: "Sign", Conf: 0.9, Box: image.Rect(w/4, h/2, w/2, h/2+h/10), Line: 1},
			{Text: "in", Conf: 0.9, Box: image.Rect(w/2+4, h/2, w*3/4, h/2+h/10), Line: 1}}, nil
	})
	t.Run("broken tree", func(t *testing.T) {
		svc, _ := elementsService(t, func(p *sim.Phone) phone.Phone { return brokenTree{p} }, eng)
		r := elements(t, svc, api.ElementsArgs{ClickableOnly: ptrTo(true)})
		if r.Source != api.SourceOCR || r.Total != 1 || r.Elements[0].Text != "Sign in" || r.Elements[0].Role != api.RoleText ||
			!strings.Contains(r.Note, "could not be read (uiautomator: could not get idle state)") || !strings.Contains(r.Note, "clickable_only was ignored") {
			t.Fatalf("%+v", r)
		}
		if e := tapElement(svc, r, r.Elements[0].ID); e != nil {
			t.Fatalf("tap an OCR element: %v", e)
		}
	})
	t.Run("no tree, no engine", func(t *testing.T) {
		svc, _ := elementsService(t, func(p *sim.Phone) phone.Phone { return brokenTree{p} }, nil)
		if rep := svc.Elements(context.Background(), alice, api.ElementsArgs{}); rep.Error == nil || rep.Error.Code != api.CodeUnsupported {
			t.Fatalf("%+v, want UNSUPPORTED", rep.Error)
		}
	})
	t.Run("turning screen", func(t *testing.T) {
		var reads int
		svc, _ := elementsService(t, func(p *sim.Phone) phone.Phone { return turningTree{p, &reads} }, eng)
		r := elements(t, svc, api.ElementsArgs{})
		if r.Source != api.SourceSim || !strings.Contains(r.Note, "turned") || reads != 3 {
			t.Fatalf("after %d reads: %+v", reads, r)
		}
	})
}

// TestElementsRefusals: each bad argument, and a touch by element named
// wrong, is refused with its code before anything reaches the phone.
func TestElementsRefusals(t *testing.T) {
	svc, ph := elementsService(t, nil, nil)
	ctx := context.Background()
	r := elements(t, svc, api.ElementsArgs{})
	f := api.FrameArgs{FrameID: r.FrameID, GeometryEpoch: api.Epoch(r.GeometryEpoch)}
	half := 0.5
	for _, tc := range []struct {
		name string
		run  func() *control.Error
		code api.Code
		says string
	}{
		{"limit 0", func() *control.Error { return svc.Elements(ctx, alice, api.ElementsArgs{Limit: ptrTo(0)}).Error }, api.CodeInvalidArguments, "limit"},
		{"query too long", func() *control.Error {
			return svc.Elements(ctx, alice, api.ElementsArgs{Query: strings.Repeat("q", api.MaxQuery+1)}).Error
		}, api.CodeInvalidArguments, "query"},
		{"foreign cursor", func() *control.Error { return svc.Elements(ctx, alice, api.ElementsArgs{Cursor: "abc"}).Error }, api.CodeInvalidArguments, "cursor"},
		{"bob's cursor", func() *control.Error {
			return svc.Elements(ctx, bob, api.ElementsArgs{Cursor: r.FrameID + "/3"}).Error
		}, api.CodeCursorExpired, "without cursor"},
		{"element and x", func() *control.Error {
			g := f
			g.X, g.Y = &half, &half
			return svc.Tap(ctx, alice, api.TapArgs{FrameArgs: g, Element: "e1"}).Error
		}, api.CodeInvalidArguments, "not both"},
		{"element without frame", func() *control.Error {
			return svc.LongPress(ctx, alice, api.LongPressArgs{Element: "e1"}).Error
		}, api.CodeInvalidArguments, "frame_id"},
		{"element too long", func() *control.Error {
			return svc.Tap(ctx, alice, api.TapArgs{FrameArgs: f, Element: strings.Repeat("e", api.MaxElementID+1)}).Error
		}, api.CodeInvalidArguments, "element"},
		{"unknown element", func() *control.Error { return svc.Tap(ctx, alice, api.TapArgs{FrameArgs: f, Element: "e999"}).Error }, api.CodeFrameExpired, "e999"},
		{"bob names alice's frame", func() *control.Error { return svc.Tap(ctx, bob, api.TapArgs{FrameArgs: f, Element: "e1"}).Error }, api.CodeFrameExpired, "screenshot"},
		{"type_text frame without element", func() *control.Error {
			return svc.TypeText(ctx, alice, api.TypeTextArgs{Text: ptrTo("x"), FrameID: r.FrameID}).Error
		}, api.CodeInvalidArguments, "element"},
		{"type_text stale element", func() *control.Error {
			return svc.TypeText(ctx, alice, api.TypeTextArgs{Text: ptrTo("x"), FrameID: r.FrameID, GeometryEpoch: "9", Element: "e1"}).Error
		}, api.CodeFrameExpired, "geometry_epoch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.run()
			if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.says) {
				t.Fatalf("got %+v, want %s saying %q", e, tc.code, tc.says)
			}
		})
	}
	if ph.Screen() != "home" || ph.NoteText() != "" {
		t.Errorf("a refused call reached the phone: screen %q note %q", ph.Screen(), ph.NoteText())
	}
}

// fixedTree is the simulated phone answering a tree of the test's.
type fixedTree struct {
	*sim.Phone
	els []phone.Element
}

func (f fixedTree) Elements(context.Context) (phone.ElementList, error) {
	return phone.ElementList{Source: api.SourceAccessibility, Geometry: f.State().Geometry, Elements: f.els}, nil
}

// TestElementsKept: what is kept of a tree (nested actionable elements,
// textless ones with a label, identifier or role) and what is dropped
// (no area, off the screen, bare containers), bounds clipped to the
// screen and placed as fractions.
func TestElementsKept(t *testing.T) {
	w, h := sim.DefaultWidth, sim.DefaultHeight
	tree := []phone.Element{
		{Role: api.RoleOther, Bounds: image.Rect(0, 0, w, h), Enabled: true},                                             // bare container: dropped
		{Role: api.RoleCell, Text: "Row", Bounds: image.Rect(0, 100, w, 300), Enabled: true, Clickable: true},            // kept
		{Role: api.RoleSwitch, Bounds: image.Rect(w-200, 150, w-50, 250), Enabled: true, Clickable: true, Checked: true}, // nested, textless: kept
		{Role: api.RoleImage, Label: "Profile picture", Bounds: image.Rect(10, 110, 90, 190)},                            // textless with a label: kept
		{Identifier: "com.example:id/fab", Bounds: image.Rect(w-300, h-300, w+100, h+100), Enabled: true},                // role empty: other, clipped
		{Role: api.RoleText, Text: "gone", Bounds: image.Rect(10, 10, 10, 40)},                                           // no area: dropped
		{Role: api.RoleText, Text: "below", Bounds: image.Rect(0, h+10, 100, h+60)},                                      // off the screen: dropped
	}
	svc, _ := elementsService(t, func(p *sim.Phone) phone.Phone { return fixedTree{p, tree} }, nil)
	r := elements(t, svc, api.ElementsArgs{})
	if r.Source != api.SourceAccessibility || r.Total != 4 {
		t.Fatalf("kept %d elements from %s, want 4 from accessibility: %+v", r.Total, r.Source, r.Elements)
	}
	want := []struct {
		id   string
		role api.ElementRole
	}{{"e1", api.RoleCell}, {"e2", api.RoleSwitch}, {"e3", api.RoleImage}, {"e4", api.RoleOther}}
	for i, el := range r.Elements {
		if el.ID != want[i].id || el.Role != want[i].role {
			t.Errorf("element %d = %s %s, want %s %s", i, el.ID, el.Role, want[i].id, want[i].role)
		}
	}
	if sw := r.Elements[1]; !sw.Checked || !sw.Clickable || sw.Text != "" {
		t.Errorf("switch %+v", sw)
	}
	if fab := r.Elements[3]; fab.Bounds.X+fab.Bounds.Width > 1 || fab.Bounds.Y+fab.Bounds.Height > 1 || fab.CenterX >= 1 {
		t.Errorf("the clipped element lies off the frame: %+v", fab)
	}
	if ids := elements(t, svc, api.ElementsArgs{Query: "id/FAB"}); ids.Total != 1 || ids.Elements[0].ID != "e4" {
		t.Errorf("query by identifier: %+v", ids.Elements)
	}
}
