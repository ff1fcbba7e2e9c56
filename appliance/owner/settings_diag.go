package owner

import (
	"encoding/json"
	"net/http"
	"runtime"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/phone"
)

// diagnostics is the Settings page's download: what a helper needs to see
// why the box misbehaves, and no secrets (no passphrase or its hash, no
// token, no setup code, no client secret, no typed text).
type diagnostics struct {
	Taken time.Time           `json:"taken"`
	Box   diagBox             `json:"box"`
	Phone *diagPhone          `json:"phone,omitempty"`
	Lease *control.LeaseState `json:"lease,omitempty"`
	// Phones are every phone of a box of several (Phone and Lease are
	// then the first phone's and the box-wide pause's).
	Phones  []diagPhone  `json:"phones,omitempty"`
	Tailnet *TailnetView `json:"tailnet,omitempty"`
	Clients []diagClient `json:"clients"`
	Recent  []Activity   `json:"recent"`
}

type diagBox struct {
	Name, Version, Backend, Fingerprint, Go, OS, Arch string
}

type diagPhone struct {
	// ID is the phone's stable id and Name the name the owner gave it
	// ("" none); State its state code and Problems what it needs.
	ID                          string `json:",omitempty"`
	Name                        string `json:",omitempty"`
	State                       api.PhoneState
	Problems                    []api.Problem `json:",omitempty"`
	Backend, Platform, Model    string
	Width, Height               int
	Keyboard, Touch, Screenshot bool
	// Lease is who holds the phone's control, on a box of several.
	Lease *control.LeaseState `json:",omitempty"`
}

// diagPhoneOf is ph for the diagnostics, as the owner named it.
func diagPhoneOf(ph phone.Phone, id string, names phoneNames) diagPhone {
	pi, st := ph.Info(), ph.State()
	return diagPhone{ID: id, Name: names[id], State: st.Code, Problems: problems(st),
		Backend: string(pi.Backend), Platform: string(pi.Platform), Model: pi.Model, Width: pi.Native.X, Height: pi.Native.Y,
		Keyboard: pi.Keyboard, Touch: pi.Touch, Screenshot: pi.Screenshot}
}

type diagClient struct {
	Name, Entry, Life string
	Scopes            []string
	LastUsed, Expires time.Time
}

// diagnosticsGet answers the diagnostics file as a JSON download.
func (p *Pages) diagnosticsGet(w http.ResponseWriter, r *http.Request) {
	i := p.info()
	d := diagnostics{Taken: p.now().UTC(), Box: diagBox{Name: i.Name, Version: i.Version, Backend: string(i.Backend), Fingerprint: i.Fingerprint,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}, Clients: []diagClient{}, Recent: []Activity{}}
	names := p.phoneNames(r.Context())
	if ph := p.cfg.Phone; ph != nil {
		d.Phone = new(diagPhoneOf(ph, p.phones[0].key, names))
	}
	for _, pp := range p.phones {
		if !p.several() || pp.phone == nil {
			continue
		}
		dp := diagPhoneOf(pp.phone, pp.id, names)
		if pp.control != nil {
			dp.Lease = new(pp.control.Lease())
		}
		d.Phones = append(d.Phones, dp)
	}
	if p.cfg.Control != nil {
		l := p.cfg.Control.Lease()
		d.Lease = &l
		if acts, err := p.cfg.Control.Recent(r.Context(), 100); err == nil {
			d.Recent = acts
		} else {
			p.log.Warn("owner: diagnostics: recent activity", "err", err)
		}
	}
	if p.cfg.Tailnet != nil {
		t := p.cfg.Tailnet.TailnetStatus()
		t.AuthURL = "" // a login link is as good as a key while it lasts
		d.Tailnet = &t
	}
	clients, err := p.cfg.OAuth.Clients(r.Context())
	if err != nil {
		p.internal(w, r, "list the clients", err)
		return
	}
	for _, c := range clients {
		d.Clients = append(d.Clients, diagClient{Name: c.Name, Entry: c.Entry, Life: string(c.Life), Scopes: c.Scopes, LastUsed: c.LastUsed, Expires: c.Expires})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="openlolo-diagnostics.json"`)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(d)
}
