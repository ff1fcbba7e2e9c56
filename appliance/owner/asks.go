package owner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// askBlock is the asks_pending partial's data: the pending asks, each a
// form.ask (Allow, Deny, always for this client).
type askBlock struct {
	CSRF string
	Asks []store.Ask
	// Several: the box has several phones, so each ask names its phone,
	// as Names labels it.
	Several bool
	Names   phoneNames
	Next    string // where a decision returns to
	// Off: the box runs without asks (no control service).
	Off bool
}

// pendingAsks is the asks_pending block for a page at next. A failure to
// list is logged and shows no asks: the page itself still renders.
func (p *Pages) pendingAsks(r *http.Request, csrf, next string) askBlock {
	b := askBlock{CSRF: csrf, Next: next, Off: p.cfg.Asks == nil, Several: p.several()}
	if b.Off {
		return b
	}
	if b.Several {
		b.Names = p.phoneNames(r.Context())
	}
	asks, err := p.cfg.Asks.PendingAsks(r.Context())
	if err != nil {
		p.log.Error("owner: list the pending asks", "err", err)
	}
	b.Asks = asks
	return b
}

// askPageData is the page of one ask.
type askPageData struct {
	basePage
	Ask     store.Ask
	Several bool       // the box has several phones: the page names the ask's
	Names   phoneNames // labels the ask's phone
	Pending askBlock   // the ask's own form while it waits
	Done    string
}

func (p *Pages) askPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	if p.cfg.Asks == nil {
		p.message(w, r, http.StatusNotFound, "No asks here", "This box runs without asks.", "Status", "/status")
		return
	}
	a, err := p.cfg.Asks.Ask(r.Context(), r.PathValue("id"))
	if errors.Is(err, control.ErrAskNotFound) {
		p.message(w, r, http.StatusNotFound, "No such ask",
			"The box knows no ask with that id. Asks are kept for 30 days; the client can send its call again to ask anew.", "Status", "/status")
		return
	}
	if err != nil {
		p.internal(w, r, "read the ask", err)
		return
	}
	ap := &askPageData{basePage: basePage{Title: "Ask", Nav: "status", CSRF: s.csrf, LoggedIn: true}, Ask: a, Several: p.several()}
	if ap.Several {
		ap.Names = p.phoneNames(r.Context())
	}
	if a.State == store.AskPending {
		ap.Pending = askBlock{CSRF: s.csrf, Asks: []store.Ask{a}, Next: "/asks/" + a.ID, Several: ap.Several, Names: ap.Names}
	}
	switch r.URL.Query().Get("done") {
	case "allowed":
		ap.Done = "Allowed. The client's next call with the same operation_id runs it, once."
	case "denied":
		ap.Done = "Denied. The client's next call with the same operation_id is told so; nothing was sent."
	}
	p.render(w, r, http.StatusOK, "asks", ap)
}

func (p *Pages) askDecide(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Asks == nil {
		p.message(w, r, http.StatusNotFound, "No asks here", "This box runs without asks.", "Status", "/status")
		return
	}
	id := r.PathValue("id")
	var allow bool
	switch r.PostFormValue("decision") {
	case "allow":
		allow = true
	case "deny":
	default:
		p.message(w, r, http.StatusBadRequest, "Allow or deny",
			"The form said neither allow nor deny, so the box did nothing. Press Allow or Deny.", "Back", "/asks/"+id)
		return
	}
	always := r.PostFormValue("always") != ""
	a, err := p.cfg.Asks.DecideAsk(r.Context(), id, allow, always)
	switch {
	case errors.Is(err, control.ErrAskNotFound):
		p.message(w, r, http.StatusNotFound, "No such ask", "The box knows no ask with that id.", "Status", "/status")
		return
	case errors.Is(err, control.ErrAskDecided):
		p.message(w, r, http.StatusConflict, "Already "+a.State,
			"This ask was "+a.State+" already, so the box did not change it. The client can send its call again to ask anew.", "See the ask", "/asks/"+id)
		return
	case err != nil:
		p.internal(w, r, "decide the ask", err)
		return
	}
	p.log.Info("owner: decided ask", "ask", id, "state", a.State, "always", always)
	next := r.PostFormValue("next")
	if !localPath(next) {
		next = "/asks/" + id
	}
	sep := "?"
	if strings.Contains(next, "?") {
		sep = "&"
	}
	http.Redirect(w, r, next+sep+"done=ask_"+a.State+"#asks-pending", http.StatusSeeOther)
}

// askDone is the confirmation after a decision sent from Status or Access.
func askDone(done string) string {
	switch done {
	case "ask_allowed":
		return "Allowed. The client's next call with the same operation_id runs it, once."
	case "ask_denied":
		return "Denied. The client's next call with the same operation_id is told so; nothing was sent."
	}
	return ""
}

// markChoice is one checkbox of a marks form.
type markChoice struct {
	Value string // the form value: "url", "text", "input" or "app:<bundle id>"
	Label string
	On    bool
	// Default: a new box asks about it.
	Default bool
}

// markValue is m as a form value.
func markValue(m control.Mark) string {
	if m.Kind == api.AskApp {
		return "app:" + m.Subject
	}
	return string(m.Kind)
}

// parseMark reads a form value back.
func parseMark(v string) (control.Mark, bool) {
	if id, ok := strings.CutPrefix(v, "app:"); ok {
		id = strings.TrimSpace(id)
		return control.Mark{Kind: api.AskApp, Subject: id}, id != "" && len(id) <= api.MaxAppRef
	}
	m := control.Mark{Kind: api.AskKind(v)}
	return m, m.Kind.Valid() && m.Kind != api.AskApp
}

// kindLabels name the marks that are not apps.
var kindOrder = [...]api.AskKind{api.AskInput, api.AskText, api.AskURL}

func kindLabel(k api.AskKind) string {
	switch k {
	case api.AskInput:
		return "every input (taps, keys, buttons, everything)"
	case api.AskText:
		return "typing text"
	case api.AskURL:
		return "opening URLs"
	}
	return string(k)
}

// appNames maps bundle ids to the phone's app names.
func (p *Pages) appNames() map[string]string {
	names := map[string]string{}
	if p.cfg.Phone != nil {
		for _, a := range p.cfg.Phone.Info().Apps {
			names[a.ID] = a.Name
		}
	}
	return names
}

func appLabel(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return "launching " + n + " (" + id + ")"
	}
	return "launching " + id
}

// markChoices lists the checkboxes for marks: the kinds, then apps. on
// says whether each is checked; apps are the apps to offer.
func markChoices(names map[string]string, apps []string, on func(control.Mark) bool) []markChoice {
	defaults := map[string]bool{}
	for _, id := range control.DefaultAskApps() {
		defaults[id] = true
	}
	var out []markChoice
	for _, k := range kindOrder {
		m := control.Mark{Kind: k}
		out = append(out, markChoice{Value: markValue(m), Label: kindLabel(k), On: on(m)})
	}
	sort.Slice(apps, func(i, j int) bool {
		ni, nj := names[apps[i]], names[apps[j]]
		if (ni == "") != (nj == "") {
			return ni != "" // the phone's own apps first
		}
		if ni != nj {
			return ni < nj
		}
		return apps[i] < apps[j]
	})
	for _, id := range slices.Compact(apps) {
		m := control.Mark{Kind: api.AskApp, Subject: id}
		out = append(out, markChoice{Value: markValue(m), Label: appLabel(names, id), On: on(m), Default: defaults[id]})
	}
	return out
}

// boxMarksView is Settings' section#asks.
type boxMarksView struct {
	CSRF    string
	Off     bool
	Choices []markChoice
}

// boxMarks is the Settings section: every kind, and the phone's apps,
// the default apps and the apps marked now.
func (p *Pages) boxMarks(csrf string) boxMarksView {
	v := boxMarksView{CSRF: csrf, Off: p.cfg.Asks == nil}
	if v.Off {
		return v
	}
	marks := p.cfg.Asks.Marks()
	names := p.appNames()
	apps := p.defaultAskApps()
	for id := range names {
		apps = append(apps, id)
	}
	for m := range marks.Box {
		if m.Kind == api.AskApp {
			apps = append(apps, m.Subject)
		}
	}
	apps = p.thisPlatform(apps)
	sort.Strings(apps)
	v.Choices = markChoices(names, apps, func(m control.Mark) bool { return marks.Box[m] })
	return v
}

// platform is the attached phone's platform; "" without a phone.
func (p *Pages) platform() phone.Platform {
	if p.cfg.Phone == nil {
		return ""
	}
	return p.cfg.Phone.Info().Platform
}

// defaultAskApps are the default apps of the attached phone's platform,
// or of every platform when the box has no phone or cannot tell.
func (p *Pages) defaultAskApps() []string {
	if apps := control.DefaultAskAppsOn(p.platform()); apps != nil {
		return apps
	}
	return control.DefaultAskApps()
}

// thisPlatform drops from apps the default apps of the platforms the
// attached phone is not (an iPhone box lists no Android packages). Their
// marks stay: the page does not show them, and saving keeps them.
func (p *Pages) thisPlatform(apps []string) []string {
	mine := p.defaultAskApps()
	return slices.DeleteFunc(apps, func(id string) bool {
		return slices.Contains(control.DefaultAskApps(), id) && !slices.Contains(mine, id)
	})
}

// clientMarksView is one client's marks on Access (and on the approve
// form, where ClientID is the request's).
type clientMarksView struct {
	ClientID string
	Choices  []markChoice
	Summary  string // what is asked about, in a few words
	Open     bool   // show the choices unfolded
}

// clientMarks lists a client's marks: the kinds and the apps marked
// box-wide or for the client.
func (p *Pages) clientMarks(marks control.Marks, names map[string]string, client string) clientMarksView {
	var apps []string
	for m := range marks.Box {
		if m.Kind == api.AskApp {
			apps = append(apps, m.Subject)
		}
	}
	for m := range marks.Clients[client] {
		if m.Kind == api.AskApp {
			apps = append(apps, m.Subject)
		}
	}
	apps = p.thisPlatform(apps)
	sort.Strings(apps)
	v := clientMarksView{ClientID: client,
		Choices: markChoices(names, apps, func(m control.Mark) bool { return marks.Asks(client, m) })}
	var kinds []string
	napps := 0
	for _, c := range v.Choices {
		switch {
		case !c.On:
		case strings.HasPrefix(c.Value, "app:"):
			napps++
		default:
			kinds = append(kinds, strings.SplitN(c.Label, " (", 2)[0])
		}
	}
	if napps > 0 {
		kinds = append(kinds, fmt.Sprintf("launching %d apps", napps))
	}
	v.Summary = strings.Join(kinds, ", ")
	if v.Summary == "" {
		v.Summary = "nothing"
	}
	return v
}

// formMarks reads a marks form: every mark the form showed (shown) with
// whether it was checked (ask). It reports false when a value is not a
// mark.
func formMarks(r *http.Request) (map[control.Mark]bool, bool) {
	want := map[control.Mark]bool{}
	for _, v := range r.PostForm["shown"] {
		m, ok := parseMark(v)
		if !ok {
			return nil, false
		}
		want[m] = false
	}
	for _, v := range r.PostForm["ask"] {
		m, ok := parseMark(v)
		if !ok {
			return nil, false
		}
		want[m] = true
	}
	if add := strings.TrimSpace(r.PostFormValue("add_app")); add != "" {
		m, ok := parseMark("app:" + add)
		if !ok || strings.ContainsAny(add, " \t/") {
			return nil, false
		}
		want[m] = true
	}
	return want, true
}

func (p *Pages) badMarks(w http.ResponseWriter, r *http.Request, back string) {
	p.message(w, r, http.StatusBadRequest, "Marks refused",
		"The form named something the box cannot ask about (an app needs its bundle id, like com.apple.Passbook), so nothing changed.", "Back", back)
}

func (p *Pages) boxMarksPost(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Asks == nil {
		p.message(w, r, http.StatusNotFound, "No asks here", "This box runs without asks.", "Settings", "/settings")
		return
	}
	r.ParseForm()
	want, ok := formMarks(r)
	if !ok {
		p.badMarks(w, r, "/settings#asks")
		return
	}
	var ms []control.Mark
	for m, on := range want {
		if on {
			ms = append(ms, m)
		}
	}
	for m, on := range p.cfg.Asks.Marks().Box {
		if _, shown := want[m]; on && !shown {
			ms = append(ms, m) // not on the form (another platform's app): kept
		}
	}
	if err := p.cfg.Asks.SetBoxMarks(r.Context(), ms); err != nil {
		p.internal(w, r, "save the asks", err)
		return
	}
	http.Redirect(w, r, "/settings?done=asks#asks", http.StatusSeeOther)
}

func (p *Pages) clientMarksPost(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Asks == nil {
		p.message(w, r, http.StatusNotFound, "No asks here", "This box runs without asks.", "Access", "/access")
		return
	}
	r.ParseForm()
	id := r.PostFormValue("client_id")
	want, ok := formMarks(r)
	if !ok {
		p.badMarks(w, r, "/access")
		return
	}
	name := p.clientName(r.Context(), id)
	if name == "" || id == "" {
		p.message(w, r, http.StatusNotFound, "No such client",
			"The box knows no client with that id; it may have been removed already.", "Access", "/access")
		return
	}
	if err := p.cfg.Asks.SetClientMarks(r.Context(), id, name, want); err != nil {
		p.internal(w, r, "save the client's asks", err)
		return
	}
	http.Redirect(w, r, "/access?done=asks", http.StatusSeeOther)
}

// approveMarks applies the marks chosen on an approve form to the client
// the request was for. A failure is logged: the approval stands.
func (p *Pages) approveMarks(r *http.Request, client, name string) {
	if p.cfg.Asks == nil || client == "" || len(r.PostForm["shown"]) == 0 {
		return
	}
	want, ok := formMarks(r)
	if !ok {
		p.log.Warn("owner: approve: marks refused", "client_id", client)
		return
	}
	if err := p.cfg.Asks.SetClientMarks(context.WithoutCancel(r.Context()), client, name, want); err != nil {
		p.log.Error("owner: approve: save the client's asks", "client_id", client, "err", err)
	}
}

// accessMarks are the marks forms of Access: each client's by client id,
// and each request's (what its client will be asked about once approved)
// by handle.
func (p *Pages) accessMarks(pending []oauth.Pending, clients []oauth.Client) map[string]clientMarksView {
	out := map[string]clientMarksView{}
	if p.cfg.Asks == nil {
		return out
	}
	marks := p.cfg.Asks.Marks()
	names := p.appNames()
	for _, c := range clients {
		out[c.ClientID] = p.clientMarks(marks, names, c.ClientID)
	}
	for _, q := range pending {
		v := p.clientMarks(marks, names, q.ClientID)
		v.Open = true
		out[q.Handle] = v
	}
	return out
}

// requestMarks is the marks form of a client asking for access (the
// consent page of the browser flow): unfolded, as on Access's approve
// form; empty when the box runs without asks.
func (p *Pages) requestMarks(clientID string) clientMarksView {
	if p.cfg.Asks == nil {
		return clientMarksView{}
	}
	v := p.clientMarks(p.cfg.Asks.Marks(), p.appNames(), clientID)
	v.Open = true
	return v
}

// requestClient is the client id of the pending request handle ("" when
// it is not waiting).
func (p *Pages) requestClient(ctx context.Context, handle string) string {
	reqs, err := p.cfg.OAuth.PendingRequests(ctx)
	if err != nil {
		return ""
	}
	for _, q := range reqs {
		if q.Handle == handle {
			return q.ClientID
		}
	}
	return ""
}
