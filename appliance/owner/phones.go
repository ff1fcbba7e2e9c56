package owner

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"

	"github.com/openlolo/openlolo/phone"
)

// pagePhone is one phone as the pages drive it: one of Config.Phones on a
// box of several, or the box's one phone of Config's fields.
type pagePhone struct {
	id string // "" on a box of one: the pages name no phone
	// key is the phone's stable id, which the owner's name for it is
	// kept under: id, or Config.PhoneID on a box of one ("" when unknown:
	// the page offers no name).
	key     string
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
		pp := &pagePhone{id: b.ID, key: cmp.Or(b.ID, p.cfg.PhoneID), phone: b.Phone, screen: b.Screen, control: b.Control, driver: b.Driver}
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

// phoneNames are the names the owner gave the box's phones, by id.
type phoneNames map[string]string

// Label is how the pages name the phone with id: the owner's name and
// the id, or the id alone when the owner gave it none.
func (n phoneNames) Label(id string) string {
	if name := n[id]; name != "" {
		return name + " (" + id + ")"
	}
	return id
}

// phoneNames reads the owner's names for the phones; none when the
// store fails (logged: the pages then name the phones by id).
func (p *Pages) phoneNames(ctx context.Context) phoneNames {
	var names map[string]string
	if err := p.st.View(ctx, func(tx *store.Tx) (err error) { names, err = tx.PhoneNames(); return err }); err != nil {
		p.log.Warn("owner: read the phones' names", "err", err)
	}
	return names
}

// namedPhone is one of the box's phones as a form offers it: its id and
// its label (phoneNames.Label).
type namedPhone struct{ ID, Label string }

// namedPhones are the box's phones with their labels when it has
// several; none otherwise.
func (p *Pages) namedPhones(ctx context.Context) []namedPhone {
	ids := p.phoneIDs()
	if ids == nil {
		return nil
	}
	names := p.phoneNames(ctx)
	out := make([]namedPhone, len(ids))
	for i, id := range ids {
		out[i] = namedPhone{ID: id, Label: names.Label(id)}
	}
	return out
}

// phoneRow is one phone of the Status page's list on a box of several.
type phoneRow struct {
	ID       string
	Label    string // phoneNames.Label
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
func (p *Pages) phoneRows(shown *pagePhone, names phoneNames) []phoneRow {
	if !p.several() {
		return nil
	}
	rows := make([]phoneRow, len(p.phones))
	for i, pp := range p.phones {
		row := phoneRow{ID: pp.id, Label: names.Label(pp.id), Shown: pp == shown, Link: pp.statusPath(""),
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
