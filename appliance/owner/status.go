package owner

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// The Status page's still picture: scaled to 480 wide (a narrower screen
// is sent as it is), JPEG quality 75.
const (
	screenWidth   = 480
	screenQuality = 75
)

// statusPage is the Status page.
type statusPage struct {
	basePage
	HasPhone   bool
	Phone      phone.Info
	State      phone.State
	HasControl bool
	Control    controlView   // the control block (template "control")
	Done       string        // a confirmation after pause or resume
	Remote     *TailnetView  // the remote entry; nil when the box has none
	Problems   []problemView // what the phone still needs (status_problems.html)
	Waiting    bool          // the box waits for the owner to fix one of them
	Asks       askBlock      // the asks waiting for the owner (asks.go)
	// PhoneID is the phone shown on a box of several ("" on a box of
	// one), and Phones lists them all (none on a box of one).
	PhoneID string
	Phones  []phoneRow
	// PhoneQuery names PhoneID in a picture's address ("" on a box of
	// one).
	PhoneQuery string
	// Name is the phone's name form ([nameForm]); nil when the page
	// cannot name the phone.
	Name *nameForm

	// The live view: the stream's picture size, the geometry epoch the
	// owner's touches name, the buttons this phone has, and whether the
	// owner can drive it.
	LiveWidth, LiveHeight int
	Epoch                 string
	Buttons               []LiveButton
	CanDrive              bool
}

func (p *Pages) statusPage(w http.ResponseWriter, r *http.Request) {
	pp, ok := p.pick(r)
	if !ok {
		p.message(w, r, http.StatusNotFound, "No such phone", noPhone(r), "Status", "/status")
		return
	}
	p.showStatus(w, r, http.StatusOK, pp, nil)
}

// showStatus renders pp's Status page with status; refused, when set, is
// a name the owner typed that the box refused (the form keeps it).
func (p *Pages) showStatus(w http.ResponseWriter, r *http.Request, status int, pp *pagePhone, refused *nameForm) {
	s, _ := sessionFrom(r.Context())
	sp := &statusPage{basePage: basePage{Title: "Status", Nav: "status", CSRF: s.csrf, LoggedIn: true, Script: true}}
	names := p.phoneNames(r.Context())
	sp.PhoneID, sp.Phones = pp.id, p.phoneRows(pp, names)
	if pp.key != "" {
		sp.Name = cmp.Or(refused, &nameForm{Value: names[pp.key]})
		sp.Name.Saved, sp.Name.MaxLen = names[pp.key], store.MaxPhoneName
	}
	if pp.id != "" {
		sp.PhoneQuery = "?phone=" + url.QueryEscape(pp.id)
	}
	if pp.phone != nil {
		sp.HasPhone = true
		sp.Phone = pp.phone.Info()
		sp.State = pp.phone.State()
		sp.Problems, sp.Waiting = problemViews(sp.State), waiting(sp.State)
		if sp.Waiting {
			sp.Reload = 5
		}
		sp.LiveWidth, sp.LiveHeight = liveSize(sp.State.Geometry, p.cfg.Live.withDefaults().MaxSize)
		sp.Epoch = api.FormatEpoch(sp.State.Geometry.Epoch)
		sp.Buttons = liveButtons(sp.Phone)
		sp.CanDrive = pp.driver != nil
	}
	if pp.control != nil {
		sp.HasControl = true
		sp.Control = p.controlView(pp, s.csrf)
	}
	if p.cfg.Tailnet != nil {
		v := p.cfg.Tailnet.TailnetStatus()
		sp.Remote = &v
	}
	sp.Asks = p.pendingAsks(r, s.csrf, "/status")
	switch r.URL.Query().Get("done") {
	case "paused":
		sp.Done = "Phone control is paused. No input reaches the phone until you resume."
		if pp.id != "" {
			sp.Done = "Phone " + pp.id + "'s control is paused. No input reaches it until you resume; the other phones are as they were."
		}
	case "resumed":
		sp.Done = "Phone control is resumed."
		if pp.id != "" {
			sp.Done = "Phone " + pp.id + "'s control is resumed."
		}
	case "paused-all":
		sp.Done = "Every phone's control is paused. No input reaches any phone until you resume."
	case "resumed-all":
		sp.Done = "Every phone's control is resumed."
	case "named":
		sp.Done = "The phone's name is saved. Clients see it in openlolo_phones."
	case "unnamed":
		sp.Done = "The phone is named as its backend reports it again."
	default:
		sp.Done = doneWords(r.URL.Query().Get("done"))
	}
	if msg := askDone(r.URL.Query().Get("done")); msg != "" {
		sp.Done = msg
	}
	if sp.Control.Lease.Owner() && r.URL.Query().Get("done") == "given" {
		// The owner gave control back and then took it again (its own
		// input on the live view): the notice no longer holds.
		sp.Done = ""
	}
	p.render(w, r, status, "status", sp)
}

// screen serves the phone's current screen, scaled for the page.
func (p *Pages) screen(w http.ResponseWriter, r *http.Request) {
	setHeaders(w)
	pp, ok := p.pick(r)
	if !ok {
		http.Error(w, noPhone(r), http.StatusNotFound)
		return
	}
	if pp.screen == nil {
		http.Error(w, "No phone is attached to the box.", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	pic, err := pp.screen.Screen(ctx, picture.Box{W: screenWidth}, screenQuality)
	if err != nil {
		p.log.Warn("owner: screenshot", "err", err)
		http.Error(w, "The box could not take a screenshot: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Content-Length", strconv.Itoa(len(pic.Data)))
	w.Write(pic.Data)
}

func (p *Pages) pause(w http.ResponseWriter, r *http.Request) {
	p.pauseResume(w, r, true)
}

func (p *Pages) resume(w http.ResponseWriter, r *http.Request) {
	p.pauseResume(w, r, false)
}

func (p *Pages) pauseResume(w http.ResponseWriter, r *http.Request, pause bool) {
	pp, ok := p.pick(r)
	if !ok {
		p.message(w, r, http.StatusNotFound, "No such phone", noPhone(r), "Status", "/status")
		return
	}
	if pp.control == nil {
		p.message(w, r, http.StatusServiceUnavailable, "Not available",
			"This box has no control service running, so there is nothing to pause or resume.", "Status", "/status")
		return
	}
	done, err := pauseOrResume(r.Context(), pp.control, pause, "paused", "resumed")
	if err != nil {
		p.log.Warn("owner: "+done, "err", err)
		p.message(w, r, http.StatusConflict, "Not done", "The box could not do that: "+err.Error(), "Status", "/status")
		return
	}
	p.log.Info("owner: control " + done)
	http.Redirect(w, r, pp.statusPath("done="+done), http.StatusSeeOther)
}

// pauseAll handles POST /status/pause-all: the owner pauses every phone
// of the box at once (Config.Control is box-wide on a box of several).
func (p *Pages) pauseAll(w http.ResponseWriter, r *http.Request) { p.boxPauseResume(w, r, true) }

// resumeAll handles POST /status/resume-all: every phone resumes.
func (p *Pages) resumeAll(w http.ResponseWriter, r *http.Request) { p.boxPauseResume(w, r, false) }

// pauseOrResume pauses (never resuming first: that would let queued input
// through and give the owner's Take over back) or resumes ctl for the
// owner, and returns the done word of the outcome.
func pauseOrResume(ctx context.Context, ctl Controller, pause bool, paused, resumed string) (string, error) {
	if pause {
		return paused, ctl.Pause(ctx, "owner")
	}
	return resumed, ctl.Resume(ctx, "owner")
}

func (p *Pages) boxPauseResume(w http.ResponseWriter, r *http.Request, pause bool) {
	if p.cfg.Control == nil {
		p.message(w, r, http.StatusServiceUnavailable, "Not available",
			"This box has no control service running, so there is nothing to pause or resume.", "Status", "/status")
		return
	}
	done, err := pauseOrResume(r.Context(), p.cfg.Control, pause, "paused-all", "resumed-all")
	if err != nil {
		p.log.Warn("owner: "+done, "err", err)
		p.message(w, r, http.StatusConflict, "Not done", "The box could not do that: "+err.Error(), "Status", "/status")
		return
	}
	p.log.Info("owner: control " + done)
	http.Redirect(w, r, "/status?done="+done, http.StatusSeeOther)
}
