package owner

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/openlolo/openlolo/appliance/oauth"
)

// authorizePage is the consent page of the browser flow.
type authorizePage struct {
	basePage
	Req    *oauth.AuthorizeRequest
	Action string // this URL, so the POST carries the original parameters
	Lives  []oauth.Life
	Marks  clientMarksView // what the app will be asked about (access_asks.html), as on Access's approve form
	Phones []namedPhone    // the box's phones when it has several, to tick those the grant reaches, as on Access
}

func (p *Pages) authorizeForm(w http.ResponseWriter, r *http.Request) {
	req, ok := p.parseAuthorize(w, r)
	if !ok {
		return
	}
	s, _ := sessionFrom(r.Context())
	p.render(w, r, http.StatusOK, "authorize", &authorizePage{
		basePage: basePage{Title: "Allow " + req.ClientName + "?", Nav: "access", CSRF: s.csrf, LoggedIn: true},
		Req:      req,
		Action:   "/oauth/authorize?" + r.URL.RawQuery,
		Lives:    []oauth.Life{oauth.Life24h, oauth.Life30d, oauth.LifeForever},
		Marks:    p.requestMarks(req.ClientID),
		Phones:   p.namedPhones(r.Context()),
	}, redirectOrigin(req.RedirectURI))
}

func (p *Pages) authorizePost(w http.ResponseWriter, r *http.Request) {
	req, ok := p.parseAuthorize(w, r)
	if !ok {
		return
	}
	var to string
	switch r.PostFormValue("decision") {
	case "approve":
		phones, bad := p.grantPhones(r.PostForm["phone"], r.PostFormValue("phones_shown") != "")
		if bad != "" {
			p.message(w, r, http.StatusBadRequest, "Not allowed yet", bad, "", "")
			return
		}
		var err error
		to, err = p.cfg.OAuth.ApproveAuthorizeOn(r.Context(), req, oauth.Life(r.PostFormValue("life")), phones)
		if errors.Is(err, oauth.ErrBadLife) {
			p.message(w, r, http.StatusBadRequest, "Choose how long",
				"Choose how long the access lasts: 24 hours, 30 days renewed on use, or until you remove it. Go back and try again.", "", "")
			return
		}
		if errors.Is(err, oauth.ErrNoClient) {
			p.message(w, r, http.StatusNotFound, "No such client", "The app that asked is no longer registered; start again from the app.", "", "")
			return
		}
		if err != nil {
			p.internal(w, r, "approve the app", err)
			return
		}
		p.approveMarks(r, req.ClientID, req.ClientName)
		p.log.Info("owner: approved app", "client_id", req.ClientID, "redirect_host", req.RedirectHost(), "phones", phones)
	case "deny":
		to = p.cfg.OAuth.DenyAuthorize(req)
		p.log.Info("owner: denied app", "client_id", req.ClientID)
	default:
		p.message(w, r, http.StatusBadRequest, "Choose Allow or Deny", "The form carried no decision. Go back and press Allow or Deny.", "", "")
		return
	}
	setHeaders(w, redirectOrigin(req.RedirectURI))
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// parseAuthorize validates the request; on error it redirects the error to
// the client when that is safe, or shows it, and returns false.
func (p *Pages) parseAuthorize(w http.ResponseWriter, r *http.Request) (*oauth.AuthorizeRequest, bool) {
	req, err := p.cfg.OAuth.ParseAuthorize(r)
	if err == nil {
		return req, true
	}
	var ae *oauth.AuthorizeError
	if !errors.As(err, &ae) {
		p.internal(w, r, "read the authorization request", err)
		return nil, false
	}
	if to, ok := ae.RedirectURL(); ok {
		setHeaders(w, redirectOrigin(to))
		http.Redirect(w, r, to, http.StatusSeeOther)
		return nil, false
	}
	p.message(w, r, http.StatusBadRequest, "This sign-in link does not work",
		"The app sent the box a request it cannot accept ("+ae.Code+": "+ae.Description+"). Start again from the app.", "Status", "/status")
	return nil, false
}

// redirectOrigin is the scheme and host of u, for the CSP's form-action.
func redirectOrigin(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" || pu.Host == "" {
		return ""
	}
	return pu.Scheme + "://" + pu.Host
}
