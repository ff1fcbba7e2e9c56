package owner

import (
	"net/http"
	"slices"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// helpTopic is one walkthrough page under /help/, for one phone problem.
type helpTopic struct {
	Slug    string      // the page's path under /help/
	Title   string      // its heading
	Problem api.Problem // the problem it fixes
	// Next is the short next step the Status page shows beside the
	// problem.
	Next string
	// Waits is true when the box finds the fix by itself (the page
	// refreshes while the problem lasts).
	Waits bool
}

// helpTopics are the walkthroughs, one per problem a backend reports.
var helpTopics = []helpTopic{
	{Slug: "usb-device", Title: "Give the box a USB device port", Problem: api.ProblemNoUDC,
		Next: "Enable the Pi's USB device controller (dtoverlay=dwc2) and use its USB-C port."},
	{Slug: "usb-cable", Title: "Connect the phone to the box's USB-C port", Problem: api.ProblemNotConfigured, Waits: true,
		Next: "Use a data cable into the box's USB-C (OTG) port and unlock the phone."},
	{Slug: "capture", Title: "Connect the HDMI capture adapter", Problem: api.ProblemNoVideo, Waits: true,
		Next: "Plug the capture adapter into a USB-A port and the phone's video out into it."},
	{Slug: "trust", Title: "Let the iPhone trust this box", Problem: api.ProblemNotTrusted, Waits: true,
		Next: "Unlock the iPhone and tap Trust on Trust This Computer?, then enter its passcode. This page refreshes by itself."},
	{Slug: "developer-mode", Title: "Turn on Developer Mode", Problem: api.ProblemDeveloperModeOff, Waits: true,
		Next: "Settings › Privacy & Security › Developer Mode: turn it on, let the iPhone restart, then confirm."},
	{Slug: "disk-image", Title: "Mount the developer disk image", Problem: api.ProblemDiskImageNotMounted, Waits: true,
		Next: "The box needs the internet to mount it after every restart of the iPhone."},
	{Slug: "ios-27", Title: "Touch and keys on iPhones below iOS 27", Problem: api.ProblemIOSBelow27,
		Next: "Screenshots and apps work; for touch, keys and the clipboard tools update to iOS 27 or use the gadget backend."},
	{Slug: "usb-debugging", Title: "Turn on USB debugging on the Android phone", Problem: api.ProblemUSBDebuggingOff, Waits: true,
		Next: "Settings › About phone: tap Build number seven times, then Settings › System › Developer options: turn on USB debugging."},
	{Slug: "adb-allow", Title: "Allow this box on the Android phone", Problem: api.ProblemADBNotAllowed, Waits: true,
		Next: "Unlock the phone; on Allow USB debugging? check the key fingerprint against the one above, tick Always allow, and tap Allow."},
}

func topicFor(p api.Problem) (helpTopic, bool) {
	for _, t := range helpTopics {
		if t.Problem == p {
			return t, true
		}
	}
	return helpTopic{}, false
}

func topicBySlug(slug string) (helpTopic, bool) {
	for _, t := range helpTopics {
		if t.Slug == slug {
			return t, true
		}
	}
	return helpTopic{}, false
}

// problemView is one problem as the Status page lists it.
type problemView struct {
	Code    string // the problem's stable code (data-problem)
	Summary string
	Next    string
	Help    string // the walkthrough's URL
	Blocks  bool   // the phone is not ready because of it
}

// problemViews lists st's problems for the Status page (the backend's
// sentence for the one that blocks is already on the page: State.Reason).
func problemViews(st phone.State) []problemView {
	var out []problemView
	for i, p := range problems(st) {
		v := problemView{Code: string(p), Summary: p.Summary(), Blocks: !st.Ready && i == 0}
		if t, ok := topicFor(p); ok {
			v.Next, v.Help = t.Next, "/help/"+t.Slug
		}
		out = append(out, v)
	}
	return out
}

// problems lists st's problems by their codes, in the order to fix them.
func problems(st phone.State) []api.Problem {
	var out []api.Problem
	for _, p := range st.Problems.List() {
		out = append(out, p.Code())
	}
	return out
}

// waiting reports whether st has a problem the box will notice being
// fixed, so a page showing it should refresh.
func waiting(st phone.State) bool {
	for _, p := range problems(st) {
		if t, ok := topicFor(p); ok && t.Waits {
			return true
		}
	}
	return false
}

// helpPage is a walkthrough for one problem, with whether the phone has
// it now.
type helpPage struct {
	basePage
	Topic    helpTopic
	HasPhone bool
	Phone    phone.Info
	State    phone.State
	Now      bool // the phone has this problem now (on a box of several: one of them)
	Topics   []helpTopic
	// Phones are every phone of a box of several, each with whether it
	// has this problem now; none on a box of one (Phone and State say).
	Phones []helpPhone
}

// helpPhone is one phone of a box of several on a help page.
type helpPhone struct {
	ID, Label string // its id and phoneNames.Label
	Link      string // its Status page
	State     phone.State
	Now       bool // it has the page's problem now
}

func (p *Pages) helpIndex(w http.ResponseWriter, r *http.Request) {
	p.help(w, r, "")
}

func (p *Pages) helpTopicPage(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("topic")
	if _, ok := topicBySlug(slug); !ok {
		p.message(w, r, http.StatusNotFound, "No such help page",
			"The box has no help page called "+slug+". The help index lists them all.", "Help", "/help")
		return
	}
	p.help(w, r, slug)
}

func (p *Pages) help(w http.ResponseWriter, r *http.Request, slug string) {
	s, _ := sessionFrom(r.Context())
	t, _ := topicBySlug(slug)
	title := "Phone help"
	if t.Title != "" {
		title = t.Title
	}
	hp := &helpPage{basePage: basePage{Title: title, Nav: "help", CSRF: s.csrf, LoggedIn: true}, Topic: t, Topics: helpTopics}
	has := func(st phone.State) bool { return t.Problem != "" && slices.Contains(problems(st), t.Problem) }
	if p.cfg.Phone != nil {
		hp.HasPhone = true
		hp.Phone = p.cfg.Phone.Info()
		hp.State = p.cfg.Phone.State()
		hp.Now = has(hp.State)
	}
	if p.several() {
		names := p.phoneNames(r.Context())
		for _, pp := range p.phones {
			if pp.phone == nil {
				continue
			}
			h := helpPhone{ID: pp.id, Label: names.Label(pp.id), Link: pp.statusPath(""), State: pp.phone.State()}
			h.Now = has(h.State)
			hp.Now = hp.Now || h.Now
			hp.Phones = append(hp.Phones, h)
		}
	}
	if hp.Now && t.Waits {
		hp.Script, hp.Reload = true, 5
	}
	p.render(w, r, http.StatusOK, "help", hp)
}
