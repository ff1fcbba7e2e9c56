package owner

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/openlolo/openlolo/appliance/store"
)

// Routes registers the box page on mux. Every answer, redirects and
// errors included, carries the security headers (see setHeaders).
func (p *Pages) Routes(mux *http.ServeMux) {
	handle := func(pattern string, h http.HandlerFunc) {
		mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			setHeaders(w)
			h(w, r)
		}))
	}
	mux.Handle("GET /static/", p.static())
	handle("GET /favicon.ico", favicon)

	handle("GET /claim", p.claimForm)
	handle("POST /claim", p.claimPost)
	handle("GET /claim/button", p.claimButtonWait)
	handle("POST /claim/button", p.claimButtonPost)
	handle("GET /login", p.gate(p.loginForm))
	handle("POST /login", p.gate(p.loginPost))
	handle("GET /login/button", p.gate(p.loginButtonWait))
	handle("POST /login/button", p.gate(p.loginButtonPost))

	handle("GET /{$}", p.owner(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/status", http.StatusSeeOther)
	}))
	handle("POST /logout", p.owner(p.logout))
	handle("GET /status", p.owner(p.statusPage))
	handle("GET /status/screen.jpg", p.asset(p.screen))
	handle("POST /status/pause", p.owner(p.pause))
	handle("POST /status/resume", p.owner(p.resume))
	handle("GET /help", p.owner(p.helpIndex))
	handle("GET /help/{topic}", p.owner(p.helpTopicPage))
	p.liveRoutes(handle)
	handle("GET /activity", p.owner(p.activityPage))
	handle("GET /activity/thumb/{id}", p.asset(p.activityThumb))
	handle("GET /connect", p.owner(p.connectPage))
	handle("GET "+CertificatePath, p.certificate)
	p.settingsRoutes(handle)

	handle("GET /access", p.owner(p.accessPage))
	handle("POST /access/approve", p.owner(p.approve))
	handle("POST /access/deny", p.owner(p.deny))
	handle("POST /access/revoke", p.owner(p.revoke))
	p.accessManageRoutes(handle)
	p.asksRoutes(handle)
	handle("GET /oauth/authorize", p.owner(p.authorizeForm))
	handle("POST /oauth/authorize", p.owner(p.authorizePost))
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
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		}
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
		setHeaders(w)
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
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	}
}

// owner wraps h so it runs only for the logged-in owner, and checks the
// Origin and CSRF token of every POST.
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
		r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
		if r.Method == http.MethodPost {
			if !p.sameOrigin(w, r) {
				return
			}
			if !tokenEqual(r.PostFormValue("csrf"), s.csrf) {
				p.message(w, r, http.StatusForbidden, "Form refused",
					"This form's security token is missing or out of date, so the box did not act on it. Reload the page and try again.", "Back", "/status")
				return
			}
		}
		h(w, r)
	})
}

// sameOrigin checks that a POST comes from a page of this box: its Origin
// must be this request's own scheme and host. It answers 403 itself.
func (p *Pages) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	scheme := "https"
	if r.TLS == nil {
		scheme = "http"
	}
	want := scheme + "://" + r.Host
	got := r.Header.Get("Origin")
	if got != "" && strings.EqualFold(got, want) {
		return true
	}
	text := "The box accepts forms only from its own pages, and this one carried no Origin header. Open the page on the box and send the form from there."
	if got != "" {
		text = "The box accepts forms only from its own pages (" + want + "), and this one came from " + got + ". Open the page on the box and send the form from there."
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
