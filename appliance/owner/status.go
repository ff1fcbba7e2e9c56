package owner

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
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

	// The live view: the stream's picture size, the geometry epoch the
	// owner's touches name, the buttons this phone has, and whether the
	// owner can drive it.
	LiveWidth, LiveHeight int
	Epoch                 string
	Buttons               []LiveButton
	CanDrive              bool
}

func (p *Pages) statusPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	sp := &statusPage{basePage: basePage{Title: "Status", Nav: "status", CSRF: s.csrf, LoggedIn: true, Script: true}}
	if p.cfg.Phone != nil {
		sp.HasPhone = true
		sp.Phone = p.cfg.Phone.Info()
		sp.State = p.cfg.Phone.State()
		sp.Problems, sp.Waiting = problemViews(sp.State), waiting(sp.State)
		if sp.Waiting {
			sp.Reload = 5
		}
		sp.LiveWidth, sp.LiveHeight = liveSize(sp.State.Geometry, p.cfg.Live.withDefaults().MaxSize)
		sp.Epoch = api.FormatEpoch(sp.State.Geometry.Epoch)
		sp.Buttons = liveButtons(sp.Phone)
		sp.CanDrive = p.cfg.Driver != nil
	}
	if p.cfg.Control != nil {
		sp.HasControl = true
		sp.Control = p.controlView(s.csrf)
	}
	if p.cfg.Tailnet != nil {
		v := p.cfg.Tailnet.TailnetStatus()
		sp.Remote = &v
	}
	sp.Asks = p.pendingAsks(r, s.csrf, "/status")
	switch r.URL.Query().Get("done") {
	case "paused":
		sp.Done = "Phone control is paused. No input reaches the phone until you resume."
	case "resumed":
		sp.Done = "Phone control is resumed."
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
	p.render(w, r, http.StatusOK, "status", sp)
}

// screen serves the phone's current screen, scaled for the page.
func (p *Pages) screen(w http.ResponseWriter, r *http.Request) {
	setHeaders(w)
	if p.cfg.Screen == nil {
		http.Error(w, "No phone is attached to the box.", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	pic, err := p.cfg.Screen.Screen(ctx, picture.Box{W: screenWidth}, screenQuality)
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
	if p.cfg.Control == nil {
		p.message(w, r, http.StatusServiceUnavailable, "Not available",
			"This box has no control service running, so there is nothing to pause or resume.", "Status", "/status")
		return
	}
	var err error
	done := "resumed"
	if pause {
		err, done = p.cfg.Control.Pause(r.Context(), "owner"), "paused"
	} else {
		err = p.cfg.Control.Resume(r.Context(), "owner")
	}
	if err != nil {
		p.log.Warn("owner: "+done, "err", err)
		p.message(w, r, http.StatusConflict, "Not done", "The box could not do that: "+err.Error(), "Status", "/status")
		return
	}
	p.log.Info("owner: control " + done)
	http.Redirect(w, r, "/status?done="+done, http.StatusSeeOther)
}
