package sim

import (
	"context"
	"errors"
	"image"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// list returns the phone's elements and fails the test on error.
func list(t *testing.T, p *Phone) phone.ElementList {
	t.Helper()
	l, err := p.Elements(context.Background())
	if err != nil {
		t.Fatalf("Elements: %v", err)
	}
	if l.Source != api.SourceSim {
		t.Fatalf("Source = %q, want sim", l.Source)
	}
	return l
}

// find is the first element whose text, or else label, is name.
func find(l phone.ElementList, name string) (phone.Element, bool) {
	for _, el := range l.Elements {
		if el.Text == name || (el.Text == "" && el.Label == name) {
			return el, true
		}
	}
	return phone.Element{}, false
}

// centre is r's centre as fractions of size.
func centre(r image.Rectangle, size image.Point) phone.Point {
	return pt(float64(r.Min.X+r.Max.X)/2/float64(size.X), float64(r.Min.Y+r.Max.Y)/2/float64(size.Y))
}

// TestElementsWalk: the tree names what the picture shows; a tap at an
// element's centre does what a tap on it does; typed text shows in the
// note's field; Settings' switch has no text, a label and a state.
func TestElementsWalk(t *testing.T) {
	t.Parallel()
	p := newTestPhone(t, Options{})
	size := image.Pt(DefaultWidth, DefaultHeight)
	home := list(t, p)
	if g := home.Geometry; g.Width != size.X || g.Height != size.Y || g.Epoch != p.State().Geometry.Epoch {
		t.Fatalf("Geometry = %+v, want the phone's", g)
	}
	notes, ok := find(home, "Notes")
	if !ok || notes.Role != api.RoleButton || !notes.Clickable || notes.Identifier != "com.apple.mobilenotes" {
		t.Fatalf("home has no clickable Notes button with its bundle id: %+v", notes)
	}
	if c, _ := p.IconCenter("Notes"); centre(notes.Bounds, size) != c {
		t.Errorf("Notes' centre %v, want its icon's %v", centre(notes.Bounds, size), c)
	}
	if safari, ok := find(home, "Safari"); !ok || safari.Text != "" || safari.Label != "Safari" {
		t.Errorf("the dock's Safari (no label drawn) = %+v, want no text and label Safari", safari)
	}
	mouseTap(t, p, centre(notes.Bounds, size))
	if p.Screen() != "notes" {
		t.Fatalf("tap at Notes' centre: screen %q", p.Screen())
	}
	field, ok := find(list(t, p), "")
	if !ok || field.Role != api.RoleTextField || field.Identifier != "note" || !field.Focused {
		t.Fatalf("Notes has no focused note field: %+v", field)
	}
	typeKeys(t, p, "hello elements")
	if field, _ = find(list(t, p), "hello elements"); field.Identifier != "note" {
		t.Errorf("after typing, the note field = %+v, want text %q", field, "hello elements")
	}

	button(t, p, consHome)
	c, _ := p.IconCenter("Settings")
	mouseTap(t, p, c)
	var sw phone.Element
	ok = false
	for _, el := range list(t, p).Elements {
		if el.Role == api.RoleSwitch {
			sw, ok = el, true
		}
	}
	if !ok || sw.Text != "" || sw.Label != "Airplane Mode" || !sw.Checkable || sw.Checked || !sw.Clickable {
		t.Fatalf("Settings' switch = %+v, want no text, label Airplane Mode, checkable, off", sw)
	}
	before := shot(t, p, "settings-switch-off")
	mouseTap(t, p, centre(sw.Bounds, size))
	if !p.AirplaneMode() {
		t.Fatal("a tap on the switch's centre did not turn Airplane Mode on")
	}
	for _, el := range list(t, p).Elements {
		if el.Role == api.RoleSwitch && !el.Checked {
			t.Errorf("after the tap the switch is not checked: %+v", el)
		}
	}
	if after := shot(t, p, "settings-switch-on"); after.Seq == before.Seq {
		t.Error("the switch turned on without a new frame")
	}
}

// TestElementsLockedAndClosed: a locked phone shows nothing; a closed one
// answers ErrUnavailable.
func TestElementsLockedAndClosed(t *testing.T) {
	t.Parallel()
	p := newTestPhone(t, Options{})
	button(t, p, consPower)
	if l := list(t, p); len(l.Elements) != 0 {
		t.Errorf("locked: %d elements, want none", len(l.Elements))
	}
	p.Close()
	if _, err := p.Elements(context.Background()); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("closed: err %v, want ErrUnavailable", err)
	}
}
