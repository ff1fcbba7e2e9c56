package sim

import (
	"context"
	"fmt"
	"image"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

var _ phone.ElementLister = (*Phone)(nil)

// Elements lists what the screen shows from the simulated phone's own
// state, the tree its picture is drawn from (source sim): the same
// state renders the same picture, so the list matches the frame of the
// same Seq.
func (p *Phone) Elements(ctx context.Context) (phone.ElementList, error) {
	if err := ctx.Err(); err != nil {
		return phone.ElementList{}, fmt.Errorf("sim: elements: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return phone.ElementList{}, fmt.Errorf("sim: elements: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	return phone.ElementList{Source: api.SourceSim, Geometry: p.state().Geometry, Elements: p.ui.elements()}, nil
}

// elements is the tree of the screen now, outermost first.
func (u *ui) elements() []phone.Element {
	if u.st.locked {
		return nil
	}
	switch u.st.screen {
	case screenHome:
		return u.homeElements()
	case screenSpotlight:
		return u.spotlightElements()
	case "notes":
		return u.notesElements()
	case "settings":
		return u.settingsElements()
	case "safari":
		return u.safariElements()
	}
	return u.appElements()
}

// tappable is an element that reacts to a tap.
func tappable(role api.ElementRole, text, label, id string, r image.Rectangle) phone.Element {
	return phone.Element{Role: role, Text: text, Label: label, Identifier: id, Bounds: r, Enabled: true, Clickable: true}
}

// staticText is text the simulated phone draws but does not react to.
func staticText(text string, r image.Rectangle) phone.Element {
	return phone.Element{Role: api.RoleText, Text: text, Bounds: r, Enabled: true}
}

func (u *ui) homeElements() []phone.Element {
	l := u.lay
	var out []phone.Element
	for i, r := range l.iconRects(u.apps) {
		a := u.apps[i]
		text := a.name
		if a.dock {
			text = "" // the dock has no labels: the icon is named by its label alone
		}
		out = append(out, tappable(api.RoleButton, text, a.name, a.id, r))
	}
	return append(out, tappable(api.RoleButton, "Search", "Search", "search", l.searchPill()))
}

func (u *ui) spotlightElements() []phone.Element {
	l := u.lay
	field := tappable(api.RoleTextField, u.st.query, "Search", "search_field", l.fieldRect())
	field.Focused = true
	out := []phone.Element{field}
	res := search(u.apps, u.st.query)
	for i := 0; i < len(res) && i < l.maxResults(); i++ {
		out = append(out, tappable(api.RoleCell, res[i].name, res[i].name, res[i].id, l.resultRect(i)))
	}
	return out
}

func (u *ui) notesElements() []phone.Element {
	l := u.lay
	bar := l.px(statusH + 44)
	field := tappable(api.RoleTextField, u.st.note, "Note", "note", image.Rect(l.px(noteMargin), l.px(noteTop), l.size.X-l.px(noteMargin), l.size.Y-l.px(homeEdge+10)))
	field.Focused, field.Scrollable = true, true
	return []phone.Element{
		staticText("Notes", image.Rect(l.px(12), l.px(statusH+14), l.px(90), bar)),
		staticText("Done", image.Rect(l.size.X-l.px(60), l.px(statusH+14), l.size.X-l.px(12), bar)),
		field,
	}
}

func (u *ui) settingsElements() []phone.Element {
	l := u.lay
	off := u.st.scroll
	list := phone.Element{Role: api.RoleList, Identifier: "settings", Bounds: image.Rect(0, l.px(statusH), l.size.X, l.size.Y),
		Enabled: true, Scrollable: true}
	out := []phone.Element{list}
	if off == 0 {
		out = append(out, phone.Element{Role: api.RoleText, Text: "Settings", Enabled: true,
			Bounds: image.Rect(l.px(18), l.px(settingsTop-62), l.px(200), l.px(settingsTop-20))})
	}
	rows := settingsRows()
	for i, r := range rows {
		row := l.settingRowRect(i, rows, off)
		if row.Max.Y <= l.px(statusH) || row.Min.Y >= l.size.Y {
			continue
		}
		out = append(out, phone.Element{Role: api.RoleCell, Text: r.name, Bounds: row, Enabled: true})
		if i == airplaneRow {
			sw := tappable(api.RoleSwitch, "", r.name, "airplane_mode", l.switchRect(row))
			sw.Checkable, sw.Checked = true, u.st.airplane
			out = append(out, sw)
		}
	}
	return out
}

func (u *ui) safariElements() []phone.Element {
	l := u.lay
	field := tappable(api.RoleTextField, u.st.url, "Address", "address", l.fieldRect())
	if !u.st.editing {
		field.Text = pageHost(u.st.page)
	}
	field.Focused = u.st.editing
	out := []phone.Element{field}
	if u.st.page != "" {
		top := l.px(fieldTop + fieldH + 24)
		out = append(out, staticText(pageHost(u.st.page), image.Rect(l.px(20), top, l.size.X-l.px(20), top+l.px(44))))
	}
	return out
}

func (u *ui) appElements() []phone.Element {
	l := u.lay
	var a app
	for _, x := range u.apps {
		if appKey(x) == u.st.screen {
			a = x
		}
	}
	e := l.px(120)
	cx, cy := l.size.X/2, l.size.Y/2-l.px(40)
	return []phone.Element{
		staticText(a.name, image.Rect(l.px(18), l.px(statusH+14), l.size.X-l.px(18), l.px(statusH+62))),
		{Role: api.RoleImage, Label: a.name, Identifier: a.id, Bounds: image.Rect(cx-e/2, cy-e/2, cx+e/2, cy+e/2), Enabled: true},
		staticText("This app is simulated.", image.Rect(l.px(40), cy+e/2+l.px(50), l.size.X-l.px(40), cy+e/2+l.px(72))),
	}
}
