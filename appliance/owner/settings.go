package owner

import (
	"context"
	"net/http"

	"github.com/skip2/go-qrcode"

	"github.com/openlolo/openlolo/appliance/store"
)

// SettingTailnetLogin is the settings key of the tailnet login the owner
// linked (store.TailnetOwnerLogin, which declares the setting): visits
// from it on the remote entry are owner sessions.
const SettingTailnetLogin = store.KeyTailnetOwnerLogin

// Tailnet is what the Settings page needs from the remote entry. An
// adapter in the appliance package implements it over entry.Tailnet.
type Tailnet interface {
	// TailnetStatus is the remote entry's state now.
	TailnetStatus() TailnetView
	// SetTailnet turns the remote entry on or off and remembers the
	// choice across restarts.
	SetTailnet(ctx context.Context, on bool) error
	// TailnetLogin joins the tailnet with a pasted auth key, which is not
	// kept.
	TailnetLogin(ctx context.Context, authKey string) error
	// TailnetLogout logs the node out of its tailnet.
	TailnetLogout(ctx context.Context) error
}

// TailnetView is the remote entry as the Settings and Status pages show
// it.
type TailnetView struct {
	Enabled bool
	State   string // entry.Tailnet* state, "off" when not enabled
	Reason  string // why it is not running, a sentence
	DNSName string // <name>.<tailnet>.ts.net
	IPs     []string
	AuthURL string // where to log the node in, while it needs a login
	Funnel  bool
}

// settingsPage is the Settings page.
type settingsPage struct {
	basePage
	HasTailnet bool
	Tailnet    TailnetView
	Visitor    string // the tailnet login of this visit; "" on the LAN
	Linked     string // the linked tailnet login
	Update     *updateView
	Account    *accountView // the passphrase and the owner's sessions
	WiFi       *wifiView
	Done       string
	Error      string
	Asks       boxMarksView  // section#asks (asks.go)
	Identity   *identityView // section#identity (settings_identity.go)
	Prefs      *prefsView    // section#prefs (settings_prefs.go)
}

// settingsDone is the confirmation a redirect back to Settings shows.
func settingsDone(done string) string {
	switch done {
	case "on":
		return "The remote entry is turning on. It is reachable once its state says running."
	case "off":
		return "The remote entry is off. Clients paired over the tailnet cannot reach the box until you turn it on again."
	case "authkey":
		return "The box is logging in to the tailnet with the key. The key was not stored."
	case "logout":
		return "The box logged out of its tailnet. Log it in again to use the remote entry."
	case "linked":
		return "Your tailnet login is linked: visits from it on the remote entry are logged in as the owner."
	case "unlinked":
		return "No tailnet login is linked any more: the remote entry asks for the passphrase."
	case "update":
		return "The update is written and checked. The box restarts into the new version now; it commits itself after its self-check, else the box comes back on this version."
	case "fetching":
		return "The box is fetching the bundle; the progress is below."
	}
	return ""
}

func (p *Pages) settings(w http.ResponseWriter, r *http.Request) {
	done := r.URL.Query().Get("done")
	msg := settingsDone(done)
	if msg == "" {
		msg = accountDone(done)
	}
	if msg == "" {
		msg = wifiDone(done)
	}
	switch done {
	case "asks":
		msg = "Saved. Every client's next calls follow the new asks."
	case "prefs":
		msg = "Your preferences are saved."
	}
	p.showSettings(w, r, http.StatusOK, msg, "")
}

func (p *Pages) showSettings(w http.ResponseWriter, r *http.Request, status int, done, msg string) {
	s, _ := sessionFrom(r.Context())
	sp := &settingsPage{basePage: basePage{Title: "Settings", Nav: "settings", CSRF: s.csrf, LoggedIn: true}, Done: done, Error: msg}
	if p.cfg.Tailnet != nil {
		sp.HasTailnet = true
		sp.Tailnet = p.cfg.Tailnet.TailnetStatus()
	}
	sp.Visitor, _ = p.visitor(r)
	linked, err := p.linkedLogin(r.Context())
	if err != nil {
		p.internal(w, r, "read the settings", err)
		return
	}
	sp.Linked = linked
	sp.Asks = p.boxMarks(s.csrf)
	var reload bool
	sp.Update, reload = p.updateSection()
	sp.Update.CSRF = s.csrf
	if reload {
		sp.Script, sp.Reload = true, 2
	}
	sp.WiFi = p.wifiSection(r.Context(), s.csrf)
	sp.Identity = p.identitySection(s.csrf)
	if sp.Prefs, err = p.prefsSection(r.Context(), s.csrf); err != nil {
		p.internal(w, r, "read the preferences", err)
		return
	}
	if sp.Account, err = p.accountSection(r); err != nil {
		p.internal(w, r, "read the owner's sessions", err)
		return
	}
	p.render(w, r, status, "settings", sp)
}

// visitor is this request's tailnet login, when it came over the tailnet.
func (p *Pages) visitor(r *http.Request) (string, bool) {
	if p.cfg.Visitor == nil {
		return "", false
	}
	return p.cfg.Visitor(r)
}

func (p *Pages) linkedLogin(ctx context.Context) (string, error) {
	var login string
	err := p.st.View(ctx, func(tx *store.Tx) (err error) { login, err = store.TailnetOwnerLogin.Get(tx); return err })
	return login, err
}

// noTailnet answers the forms when the box was built without a remote
// entry.
func (p *Pages) noTailnet(w http.ResponseWriter, r *http.Request) bool {
	if p.cfg.Tailnet != nil {
		return false
	}
	p.showSettings(w, r, http.StatusConflict, "", "This box has no remote entry.")
	return true
}

func (p *Pages) tailnetSwitch(w http.ResponseWriter, r *http.Request) {
	if p.noTailnet(w, r) {
		return
	}
	on := r.PostFormValue("on") == "1"
	if err := p.cfg.Tailnet.SetTailnet(r.Context(), on); err != nil {
		p.log.Warn("owner: switch the remote entry", "on", on, "err", err)
		p.showSettings(w, r, http.StatusInternalServerError, "", "The box could not switch the remote entry: "+err.Error())
		return
	}
	p.log.Info("owner: remote entry switched", "on", on)
	p.record(r.Context(), actSettings, "switched the remote entry "+map[bool]string{true: "on", false: "off"}[on])
	done := "off"
	if on {
		done = "on"
	}
	http.Redirect(w, r, "/settings?done="+done, http.StatusSeeOther)
}

func (p *Pages) tailnetAuthKey(w http.ResponseWriter, r *http.Request) {
	if p.noTailnet(w, r) {
		return
	}
	if err := p.cfg.Tailnet.TailnetLogin(r.Context(), r.PostFormValue("authkey")); err != nil {
		p.showSettings(w, r, http.StatusBadRequest, "", "The box could not log in with that key: "+err.Error())
		return
	}
	p.record(r.Context(), actSettings, "logged the remote entry in with an auth key")
	http.Redirect(w, r, "/settings?done=authkey", http.StatusSeeOther)
}

func (p *Pages) tailnetLogout(w http.ResponseWriter, r *http.Request) {
	if p.noTailnet(w, r) {
		return
	}
	if err := p.cfg.Tailnet.TailnetLogout(r.Context()); err != nil {
		p.showSettings(w, r, http.StatusConflict, "", "The box could not log out: "+err.Error())
		return
	}
	p.log.Info("owner: remote entry logged out of its tailnet")
	p.record(r.Context(), actSettings, "logged the remote entry out of its tailnet")
	http.Redirect(w, r, "/settings?done=logout", http.StatusSeeOther)
}

// tailnetLink records the tailnet login of this (passphrase-authenticated)
// visit as the owner's.
func (p *Pages) tailnetLink(w http.ResponseWriter, r *http.Request) {
	login, ok := p.visitor(r)
	if !ok {
		p.showSettings(w, r, http.StatusBadRequest, "",
			"Open the box page on its tailnet address to link your tailnet login: on the LAN the box cannot tell who you are on the tailnet.")
		return
	}
	if err := store.TailnetOwnerLogin.Check(login); err != nil {
		p.showSettings(w, r, http.StatusBadRequest, "", "The box cannot link this tailnet login: "+err.Error()+".")
		return
	}
	err := p.st.Update(r.Context(), func(tx *store.Tx) error { return store.TailnetOwnerLogin.Set(tx, login) })
	if err != nil {
		p.internal(w, r, "save the linked login", err)
		return
	}
	p.log.Info("owner: tailnet login linked", "login", login)
	p.record(r.Context(), actSettings, "linked the tailnet login "+login)
	http.Redirect(w, r, "/settings?done=linked", http.StatusSeeOther)
}

func (p *Pages) tailnetUnlink(w http.ResponseWriter, r *http.Request) {
	err := p.st.Update(r.Context(), store.TailnetOwnerLogin.Clear)
	if err != nil {
		p.internal(w, r, "remove the linked login", err)
		return
	}
	p.log.Info("owner: tailnet login unlinked")
	p.record(r.Context(), actSettings, "unlinked the tailnet login")
	http.Redirect(w, r, "/settings?done=unlinked", http.StatusSeeOther)
}

// tailnetQR is the login link as a QR code, to open on a phone.
func (p *Pages) tailnetQR(w http.ResponseWriter, r *http.Request) {
	var link string
	if p.cfg.Tailnet != nil {
		link = p.cfg.Tailnet.TailnetStatus().AuthURL
	}
	if link == "" {
		http.Error(w, "The remote entry has no login link now.", http.StatusNotFound)
		return
	}
	png, err := qrcode.Encode(link, qrcode.Medium, 256)
	if err != nil {
		p.log.Error("owner: QR code of the login link", "err", err)
		http.Error(w, "The box could not draw the QR code; open the link instead.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(png)
}

// tailnetSession logs the owner in without the passphrase when the visit
// comes over the tailnet from the linked login (WhoIs, asked per request).
// It reports whether it answered the request.
func (p *Pages) tailnetSession(w http.ResponseWriter, r *http.Request, next string) bool {
	login, ok := p.visitor(r)
	if !ok || r.URL.Query().Get("passphrase") != "" {
		return false
	}
	linked, err := p.linkedLogin(r.Context())
	if err != nil {
		p.internal(w, r, "read the settings", err)
		return true
	}
	if linked == "" || linked != login {
		return false
	}
	if err := p.st.Update(r.Context(), func(tx *store.Tx) error { return p.startSession(r.Context(), w, tx) }); err != nil {
		p.internal(w, r, "start a session", err)
		return true
	}
	p.log.Info("owner: logged in by the linked tailnet login", "login", login)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return true
}
