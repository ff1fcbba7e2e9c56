package owner

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/openlolo/openlolo/appliance/store"
)

// access is who may call a route, and so what the box checks before the
// route's handler runs. Every answer but a static file's, redirects and
// refusals included, carries the security headers (see setHeaders).
type access int

const (
	// files: anyone; the answer keeps the file server's own headers.
	files access = iota
	// anyone: anyone (the favicon, the certificate).
	anyone
	// claiming: the claim pages, for anyone (they send a claimed box's
	// visitor to the login page themselves). A POST must come from a page
	// of this box and carry the pre-session form token.
	claiming
	// visitor: the login pages; the claim page instead while the box is
	// unclaimed. A POST is checked as for claiming.
	visitor
	// ownerOnly: the logged-in owner's pages; a visitor without a
	// session is sent to the login page. A POST must come from a page of
	// this box and carry the session's CSRF token.
	ownerOnly
	// ownerAsset: a picture or stream for the owner; 403 (no page)
	// without a claimed box and a session.
	ownerAsset
	// ownerUpload: the owner's streamed update bundle: the session and
	// the Origin are checked here; the handler reads the CSRF token as
	// the body's first part, so the bundle is not buffered.
	ownerUpload
)

// route is one row of the box page's route table.
type route struct {
	pattern string // method and path, as http.ServeMux takes them
	who     access
	h       http.HandlerFunc
}

// routes is the box page's route table: every path it serves, who may
// call it, and its handler.
func (p *Pages) routes() []route {
	return []route{
		{"GET /static/", files, p.static().ServeHTTP},
		{"GET /favicon.ico", anyone, favicon},
		{"GET " + CertificatePath, anyone, p.certificate},

		{"GET /claim", claiming, p.claimForm},
		{"POST /claim", claiming, p.claimPost},
		{"GET /claim/button", claiming, p.claimButtonWait},
		{"POST /claim/button", claiming, p.claimButtonPost},
		{"GET /login", visitor, p.loginForm},
		{"POST /login", visitor, p.loginPost},
		{"GET /login/button", visitor, p.loginButtonWait},
		{"POST /login/button", visitor, p.loginButtonPost},
		{"POST /logout", ownerOnly, p.logout},

		{"GET /{$}", ownerOnly, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/status", http.StatusSeeOther)
		}},
		{"GET /status", ownerOnly, p.statusPage},
		{"GET /status/screen.jpg", ownerAsset, p.screen},
		{"POST /status/pause", ownerOnly, p.pause},
		{"POST /status/resume", ownerOnly, p.resume},
		{"POST /status/pause-all", ownerOnly, p.pauseAll},
		{"POST /status/resume-all", ownerOnly, p.resumeAll},
		{"GET /status/live.mjpeg", ownerAsset, p.liveStream},
		{"GET /status/control.json", ownerAsset, p.controlJSON},
		{"POST /status/" + string(InputTap), ownerOnly, p.ownerInput(InputTap)},
		{"POST /status/" + string(InputLongPress), ownerOnly, p.ownerInput(InputLongPress)},
		{"POST /status/" + string(InputSwipe), ownerOnly, p.ownerInput(InputSwipe)},
		{"POST /status/" + string(InputText), ownerOnly, p.ownerInput(InputText)},
		{"POST /status/" + string(InputButton), ownerOnly, p.ownerInput(InputButton)},
		{"POST /status/" + string(InputKey), ownerOnly, p.ownerInput(InputKey)},
		{"POST /status/take-over", ownerOnly, p.takeOver},
		{"POST /status/give-back", ownerOnly, p.giveBack},
		{"POST /status/name", ownerOnly, p.namePost},
		{"GET /help", ownerOnly, p.helpIndex},
		{"GET /help/{topic}", ownerOnly, p.helpTopicPage},

		{"GET /activity", ownerOnly, p.activityPage},
		{"GET /activity/thumb/{id}", ownerAsset, p.activityThumb},
		{"GET /connect", ownerOnly, p.connectPage},

		{"GET /access", ownerOnly, p.accessPage},
		{"POST /access/approve", ownerOnly, p.approve},
		{"POST /access/deny", ownerOnly, p.deny},
		{"POST /access/revoke", ownerOnly, p.revoke},
		{"POST /access/life", ownerOnly, p.setLife},
		{"POST /access/asks", ownerOnly, p.clientMarksPost},
		{"GET /asks/{id}", ownerOnly, p.askPage},
		{"POST /asks/{id}", ownerOnly, p.askDecide},
		{"GET /oauth/authorize", ownerOnly, p.authorizeForm},
		{"POST /oauth/authorize", ownerOnly, p.authorizePost},

		{"GET /settings", ownerOnly, p.settings},
		{"POST /settings/tailnet", ownerOnly, p.tailnetSwitch},
		{"POST /settings/tailnet/authkey", ownerOnly, p.tailnetAuthKey},
		{"POST /settings/tailnet/logout", ownerOnly, p.tailnetLogout},
		{"POST /settings/tailnet/link", ownerOnly, p.tailnetLink},
		{"POST /settings/tailnet/unlink", ownerOnly, p.tailnetUnlink},
		{"GET /settings/tailnet/login.png", ownerAsset, p.tailnetQR},
		{"POST " + UpdateUploadPath, ownerUpload, p.updateUpload},
		{"POST /settings/update/url", ownerOnly, p.updateURL},
		{"GET /settings/update/progress", ownerOnly, p.updateProgress},
		{"POST /settings/passphrase", ownerOnly, p.changePassphrase},
		{"POST /settings/sessions/end-others", ownerOnly, p.endOtherSessions},
		{"POST /settings/factory-reset", ownerOnly, p.factoryResetPost},
		{"GET /settings/diagnostics", ownerOnly, p.diagnosticsGet},
		{"POST /settings/rename", ownerOnly, p.renamePost},
		{"POST /settings/rotate-cert", ownerOnly, p.rotateCertPost},
		{"POST /settings/wifi/join", ownerOnly, p.wifiJoin},
		{"POST /settings/wifi/forget", ownerOnly, p.wifiForget},
		{"POST /settings/wifi/setup", ownerOnly, p.wifiSetup},
		{"POST /settings/asks", ownerOnly, p.boxMarksPost},
		{"POST /settings/prefs", ownerOnly, p.prefsPost},
	}
}

// Routes registers the box page's route table on mux.
func (p *Pages) Routes(mux *http.ServeMux) {
	for _, rt := range p.routes() {
		mux.Handle(rt.pattern, p.guard(rt.who, rt.h))
	}
}

// guard wraps h in the checks of who.
func (p *Pages) guard(who access, h http.HandlerFunc) http.Handler {
	switch who {
	case files:
		return h
	case claiming:
		h = p.form(h, preFormToken, "Claim this box", "/claim")
	case visitor:
		h = p.gate(p.form(h, preFormToken, "Log in", "/login"))
	case ownerOnly:
		h = p.owner(p.form(h, sessionToken, "Back", "/status"))
	case ownerAsset:
		h = p.asset(h)
	case ownerUpload:
		h = p.upload(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setHeaders(w)
		h(w, r)
	})
}

// claimed reports whether the box has an owner. It asks the store every
// time: a factory reset (the button held) takes the owner away, and the
// remote entry's pages share the store.
func (p *Pages) claimed(ctx context.Context) (bool, error) {
	err := p.st.View(ctx, func(tx *store.Tx) error { _, err := tx.Owner(); return err })
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// gate shows the claim page instead of h while the box is unclaimed.
func (p *Pages) gate(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, err := p.claimed(r.Context())
		if err != nil {
			p.internal(w, r, "read the owner", err)
			return
		}
		if !ok {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				p.claimForm(w, r)
				return
			}
			p.message(w, r, http.StatusForbidden, "Claim this box first",
				"Nobody owns this box yet. Claim it with the setup code it printed, then try again.", "Claim this box", "/claim")
			return
		}
		h(w, r)
	}
}

// asset wraps a handler of a non-page resource (the screenshot): without a
// claimed box and a session it answers 403 instead of showing a page.
func (p *Pages) asset(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, err := p.claimed(r.Context())
		if err != nil {
			p.log.Error("owner: read the owner", "err", err)
			http.Error(w, "The box could not read its owner.", http.StatusInternalServerError)
			return
		}
		if !ok {
			http.Error(w, "Nobody owns this box yet; claim it first.", http.StatusForbidden)
			return
		}
		s, err := p.lookupSession(r)
		if err != nil {
			http.Error(w, "Log in on the box page to see the phone's screen.", http.StatusForbidden)
			return
		}
		p.trust(r)
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	}
}

// trust tells the entry that r's connection is the owner's.
func (p *Pages) trust(r *http.Request) {
	if p.cfg.Trust != nil {
		p.cfg.Trust(r.Context())
	}
}

// owner wraps h so it runs only for the logged-in owner.
func (p *Pages) owner(h http.HandlerFunc) http.HandlerFunc {
	return p.gate(func(w http.ResponseWriter, r *http.Request) {
		s, err := p.lookupSession(r)
		if errors.Is(err, errNoSession) {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			p.message(w, r, http.StatusForbidden, "Log in again",
				"Your session has ended, so the box did not act on this form. Log in and send it again.", "Log in", "/login")
			return
		}
		if err != nil {
			p.internal(w, r, "read the session", err)
			return
		}
		p.trust(r)
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	})
}

// upload wraps the bundle upload: it runs only for the logged-in owner
// and only from a page of this box.
func (p *Pages) upload(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, err := p.claimed(r.Context())
		if err != nil {
			p.internal(w, r, "read the owner", err)
			return
		}
		s, serr := p.lookupSession(r)
		if !ok || serr != nil {
			p.message(w, r, http.StatusForbidden, "Log in again",
				"Only the logged-in owner can update the box. Log in and send the bundle again.", "Log in", "/login")
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
		if !p.sameOrigin(w, r) {
			return
		}
		h(w, r)
	}
}

// form checks a POST before h reads it: the body is bounded by maxForm,
// it must come from a page of this box (sameOrigin), and its csrf field
// must be token(r). A refusal names back and backTo as the way on.
func (p *Pages) form(h http.HandlerFunc, token func(*http.Request) string, back, backTo string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if !p.sameOrigin(w, r) {
			return
		}
		if !tokenEqual(r.PostFormValue("csrf"), token(r)) {
			p.message(w, r, http.StatusForbidden, "Form refused",
				"This form's security token is missing or out of date, so the box did not act on it. Reload the page and try again.", back, backTo)
			return
		}
		h(w, r)
	}
}

// sameOrigin checks that a POST comes from a page of this box, and
// answers 403 itself when not. [http.CrossOriginProtection] refuses what
// a browser marks as cross-site (Sec-Fetch-Site) and an Origin of another
// host. It lets through a request with neither header and one whose
// Origin differs only in its scheme (http to https), and takes a browser's
// same-origin at its word; the box does not: every POST must also carry
// an Origin (DESIGN §3.6) that is this request's own scheme and host.
func (p *Pages) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	scheme := "https"
	if r.TLS == nil {
		scheme = "http"
	}
	want, got := scheme+"://"+r.Host, r.Header.Get("Origin")
	var text string
	switch err := p.cop.Check(r); {
	case err == nil && strings.EqualFold(got, want):
		return true
	case err == nil && got == "":
		text = "The box accepts forms only from its own pages, and this one carried no Origin header. Open the page on the box and send the form from there."
	default:
		from := got
		if from == "" || strings.EqualFold(from, want) {
			from = "another site" // the browser's Sec-Fetch-Site said so
		}
		text = "The box accepts forms only from its own pages (" + want + "), and this one came from " + from +
			". Open the page on the box and send the form from there."
	}
	p.message(w, r, http.StatusForbidden, "Form refused", text, "Back", "/")
	return false
}

// internal answers 500 and logs what failed.
func (p *Pages) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	p.log.Error("owner: "+what, "path", r.URL.Path, "err", err)
	p.message(w, r, http.StatusInternalServerError, "Something went wrong",
		"The box could not "+what+". Try again; if it keeps failing, look at the box's log.", "Back", "/")
}
