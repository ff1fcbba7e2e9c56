package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/openlolo/openlolo/appliance/store"
)

// AuthorizeRequest is a validated browser-flow authorization request
// (OAuth 2.1 with PKCE S256). The owner package shows ClientName, Scopes and
// RedirectHost on the consent page, and must carry the original parameters
// through its form so ParseAuthorize can validate them again on POST.
type AuthorizeRequest struct {
	ClientID      string
	ClientName    string
	RedirectURI   string
	Scopes        []string
	State         string
	CodeChallenge string
	Issuer        string // iss of the authorization response (RFC 9207)
	Entry         string
	// redirectSent: the request carried redirect_uri (RedirectURI is then
	// that one; otherwise the client's only registered one).
	redirectSent bool
}

// RedirectHost is the host the browser returns to after the decision.
func (a *AuthorizeRequest) RedirectHost() string {
	u, err := url.Parse(a.RedirectURI)
	if err != nil {
		return a.RedirectURI
	}
	return u.Host
}

// AuthorizeError is a refused authorization request. When RedirectURL
// reports true, the error goes back to the client by redirecting there;
// otherwise (unknown client, unregistered redirect_uri, or a client the
// owner never approved, RFC 9700 §4.11.2) the box must show the error
// itself and never redirect.
type AuthorizeError struct {
	Code        string
	Description string
	redirect    string
}

func (e *AuthorizeError) Error() string { return "oauth: authorize: " + e.Code + ": " + e.Description }

// RedirectURL is where to send the browser with the error, if anywhere.
func (e *AuthorizeError) RedirectURL() (string, bool) { return e.redirect, e.redirect != "" }

// ParseAuthorize validates an authorization request. On GET it reads the
// query string; on POST (the consent form) the body's fields if they include
// client_id, otherwise the query string the form was posted to. Other body
// fields (a CSRF token, the decision) are ignored. Errors are
// *AuthorizeError; RedirectURL says whether the error may go back to the
// client.
func (s *Server) ParseAuthorize(r *http.Request) (*AuthorizeRequest, error) {
	if err := r.ParseForm(); err != nil {
		return nil, &AuthorizeError{Code: "invalid_request", Description: "the request could not be parsed: " + err.Error()}
	}
	// GET: the query. POST (the consent form): the body's fields when it
	// carries client_id, else the query string the form was posted to.
	f := r.URL.Query()
	if r.Method == http.MethodPost && r.PostForm.Has("client_id") {
		f = r.PostForm
	}
	iss := s.issuer(r)
	id := f.Get("client_id")
	if id == "" {
		return nil, &AuthorizeError{Code: "invalid_request", Description: "client_id is missing"}
	}
	var c store.OAuthClient
	var approved bool
	err := s.st.View(r.Context(), func(tx *store.Tx) error {
		var err error
		if c, err = tx.OAuthClient(id); err != nil {
			return err
		}
		approved, err = tx.ClientEverApproved(id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) || (err == nil && (c.Kind != "registered" || c.Entry != s.entry)) {
		return nil, &AuthorizeError{Code: "invalid_client",
			Description: "this client is not registered on this entry of the box; the app must register again"}
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: authorize: %w", err)
	}
	redirect, sent := f.Get("redirect_uri"), f.Has("redirect_uri")
	switch {
	case !sent && len(c.RedirectURIs) == 1:
		redirect = c.RedirectURIs[0]
	case !sent:
		return nil, &AuthorizeError{Code: "invalid_request",
			Description: "redirect_uri is missing, and the client registered more than one; send the one to return to"}
	case !slices.ContainsFunc(c.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirect) }):
		return nil, &AuthorizeError{Code: "invalid_request",
			Description: "redirect_uri is not one the client registered; the box will not redirect there"}
	}
	req := &AuthorizeRequest{ClientID: id, ClientName: c.Name, RedirectURI: redirect, State: f.Get("state"),
		CodeChallenge: f.Get("code_challenge"), Issuer: iss, Entry: s.entry, redirectSent: sent}
	fail := func(code, desc string) (*AuthorizeRequest, error) {
		ae := &AuthorizeError{Code: code, Description: desc}
		// Errors go back only to a client the owner approved before: a
		// self-registered client could otherwise use the box as an open
		// redirector to any URI it chose (RFC 9700 §4.11.2).
		if approved {
			ae.redirect = req.redirectWith(url.Values{"error": {code}, "error_description": {desc}})
		}
		return nil, ae
	}
	for k, v := range f {
		if len(v) > 1 {
			return fail("invalid_request", "parameter "+quote(k)+" is repeated")
		}
	}
	if rt := f.Get("response_type"); rt != "code" {
		return fail("unsupported_response_type", "response_type must be code")
	}
	switch m := f.Get("code_challenge_method"); m {
	case "S256":
	case "plain":
		return fail("invalid_request", "code_challenge_method plain is refused; use S256")
	default:
		return fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256")
	}
	if !validChallenge(req.CodeChallenge) {
		return fail("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code_verifier")
	}
	scopes, oe := parseScope(f.Get("scope"))
	if oe != nil {
		return fail(oe.Code, oe.Description)
	}
	req.Scopes = scopes
	if res := f.Get("resource"); res != "" && res != iss+"/mcp" && res != iss {
		return fail("invalid_target", "resource must be "+iss+"/mcp")
	}
	return req, nil
}

// validChallenge checks an S256 code_challenge: 43 base64url characters.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for _, b := range []byte(c) {
		if !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_') {
			return false
		}
	}
	return true
}

// redirectWith returns the redirect URI with v, state and iss added to its
// query.
func (a *AuthorizeRequest) redirectWith(v url.Values) string {
	u, err := url.Parse(a.RedirectURI)
	if err != nil {
		return ""
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if a.State != "" {
		q.Set("state", a.State)
	}
	q.Set("iss", a.Issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

// ApproveAuthorize grants req for life and returns the redirect carrying
// code, state and iss. The code is single use and lives 5 minutes.
func (s *Server) ApproveAuthorize(ctx context.Context, req *AuthorizeRequest, life Life) (string, error) {
	return s.ApproveAuthorizeOn(ctx, req, life, nil)
}

// ApproveAuthorizeOn is [Server.ApproveAuthorize] of a grant that reaches
// only the phones with the ids in phones (nil: every phone of the box).
func (s *Server) ApproveAuthorizeOn(ctx context.Context, req *AuthorizeRequest, life Life, phones []string) (string, error) {
	if !life.valid() {
		return "", ErrBadLife
	}
	now := s.nowUTC()
	code := newSecret()
	g := store.OAuthGrant{GrantID: newID(), ClientID: req.ClientID, Scopes: req.Scopes, Entry: req.Entry,
		Life: string(life), Created: now, Expires: life.expiry(now), Phones: phones}
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.OAuthClient(req.ClientID); errors.Is(err, store.ErrNotFound) {
			return ErrNoClient
		} else if err != nil {
			return err
		}
		if err := tx.InsertGrant(g); err != nil {
			return err
		}
		if _, err := tx.RevokeClientGrants(req.ClientID, g.GrantID, now); err != nil {
			return err
		}
		return tx.InsertAuthCode(store.AuthCode{Hash: hashSecret(code), GrantID: g.GrantID, RedirectURI: req.RedirectURI,
			RedirectSent: req.redirectSent, CodeChallenge: req.CodeChallenge, Created: now, Expires: now.Add(AuthCodeLife)})
	})
	if errors.Is(err, ErrNoClient) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("oauth: approve authorize: %w", err)
	}
	s.log.Info("oauth: owner approved authorization", "client_id", req.ClientID, "grant_id", g.GrantID,
		"life", life, "scopes", req.Scopes, "redirect_host", req.RedirectHost())
	return req.redirectWith(url.Values{"code": {code}}), nil
}

// DenyAuthorize returns the redirect carrying error=access_denied.
func (s *Server) DenyAuthorize(req *AuthorizeRequest) string {
	s.log.Info("oauth: owner denied authorization", "client_id", req.ClientID)
	return req.redirectWith(url.Values{"error": {"access_denied"}, "error_description": {"the owner denied the request"}})
}
