package owner

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/openlolo/openlolo/appliance/control"

	"github.com/openlolo/openlolo/phone"
)

// pagePhone is one phone as the pages drive it: one of Config.Phones on a
// box of several, or the box's one phone of Config's fields.
type pagePhone struct {
	id      string // "" on a box of one: the pages name no phone
	phone   phone.Phone
	screen  Screen
	control Controller
	driver  Driver
	live    *liveHub // the live stream's capture; nil without a Screen
}

// pagePhones are the phones of p's Config, each with its live stream.
func (p *Pages) pagePhones() []*pagePhone {
	one := []BoxPhone{{Phone: p.cfg.Phone, Screen: p.cfg.Screen, Control: p.cfg.Control, Driver: p.cfg.Driver}}
	if p.several() {
		one = p.cfg.Phones
	}
	out := make([]*pagePhone, len(one))
	for i, b := range one {
		pp := &pagePhone{id: b.ID, phone: b.Phone, screen: b.Screen, control: b.Control, driver: b.Driver}
		if b.Screen != nil {
			pp.live = newLiveHub(b.Screen, p.cfg.Live, p.log)
			pp.live.chosenFPS = p.liveFPS
		}
		out[i] = pp
	}
	return out
}

// pick is the phone r names (?phone= or the form's phone), the first
// when it names none; false when the box has no phone of that id
// (noPhone says so).
func (p *Pages) pick(r *http.Request) (*pagePhone, bool) {
	id := r.FormValue("phone")
	if id == "" {
		return p.phones[0], true
	}
	for _, pp := range p.phones {
		if pp.id == id {
			return pp, true
		}
	}
	return nil, false
}

// noPhone is the answer to a request naming a phone the box has not.
func noPhone(r *http.Request) string {
	return "This box has no phone " + strconv.Quote(r.FormValue("phone")) + "; the Status page lists its phones."
}

// statusPath is the Status page of phone id ("" the box's one phone) with
// query (already encoded; "" none).
func statusPath(id, query string) string {
	q := query
	if id != "" {
		q = "phone=" + url.QueryEscape(id)
		if query != "" {
			q += "&" + query
		}
	}
	if q == "" {
		return "/status"
	}
	return "/status?" + q
}

// statusPath is pp's Status page with query.
func (pp *pagePhone) statusPath(query string) string { return statusPath(pp.id, query) }

// phoneRow is one phone of the Status page's list on a box of several.
type phoneRow struct {
	ID       string
	Info     phone.Info
	State    phone.State
	Lease    control.LeaseState
	Shown    bool   // the phone the page shows below
	Link     string // its Status page
	Still    string // its still picture
	HasPhone bool
}

// phoneRows lists the box's phones for Status, shown the one on show;
// none on a box of one.
func (p *Pages) phoneRows(shown *pagePhone) []phoneRow {
	if !p.several() {
		return nil
	}
	rows := make([]phoneRow, len(p.phones))
	for i, pp := range p.phones {
		row := phoneRow{ID: pp.id, Shown: pp == shown, Link: pp.statusPath(""),
			Still: "/status/screen.jpg?phone=" + url.QueryEscape(pp.id), HasPhone: pp.phone != nil}
		if pp.phone != nil {
			row.Info, row.State = pp.phone.Info(), pp.phone.State()
		}
		if pp.control != nil {
			row.Lease = pp.control.Lease()
		}
		rows[i] = row
	}
	return rows
}
