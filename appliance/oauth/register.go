package oauth

import (
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// clientMetadata is the RFC 7591 registration request and answer.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	resp, err := s.register(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) (*clientMetadata, error) {
	now := s.nowUTC()
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errInvalidRequest("send the client metadata as application/json (RFC 7591)")
	}
	var m clientMetadata
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err := dec.Decode(&m); err != nil {
		return nil, errBadRequest("invalid_client_metadata", "the body is not a JSON client metadata object: "+err.Error())
	}
	asked := m.TokenEndpointAuthMethod
	if oe := checkMetadata(&m); oe != nil {
		return nil, oe
	}
	if asked != "" && asked != m.TokenEndpointAuthMethod {
		s.log.Info("oauth: registration asked for a secret; registered a public client (token_endpoint_auth_method none)",
			"asked", asked)
	}
	m.ClientID = newID()
	m.ClientIDIssuedAt = now.Unix()
	err := s.st.Update(r.Context(), func(tx *store.Tx) error {
		n, oldest, err := tx.RegistrationsSince(now.Add(-time.Minute))
		if err != nil {
			return err
		}
		if n >= RegistrationsLimit {
			return errSlowDown("the box had 10 client registrations in the last minute; wait and register again",
				oldest.Add(time.Minute).Sub(now))
		}
		if _, err := tx.PruneUnapprovedRegistrations(now.Add(-UnapprovedRegistrationLife)); err != nil {
			return err
		}
		return tx.InsertOAuthClient(store.OAuthClient{ClientID: m.ClientID, Name: m.ClientName, Kind: "registered",
			RedirectURIs: m.RedirectURIs, Entry: s.entry, Created: now})
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("oauth: client registered", "client_id", m.ClientID, "client_name", m.ClientName, "redirect_uris", m.RedirectURIs)
	return &m, nil
}

// checkMetadata validates and completes a registration. The box registers
// public clients only: a secret-based token_endpoint_auth_method is
// replaced by none, and the answer says so (RFC 7591 §3.2.1: the server
// may replace requested values). Redirect URIs may be https, http on a
// loopback host (any port at authorization, RFC 8252 §7.3) or a private-use
// scheme (RFC 8252 §7.1); PKCE S256 protects them all.
func checkMetadata(m *clientMetadata) *Error {
	m.TokenEndpointAuthMethod = "none"
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" && g != DeviceCodeGrantType {
			return errBadRequest("invalid_client_metadata", "grant type "+quote(g)+" cannot be registered; use authorization_code, "+DeviceCodeGrantType+" and refresh_token")
		}
	}
	m.GrantTypes = slices.Compact(m.GrantTypes)
	redirects := slices.Contains(m.GrantTypes, "authorization_code")
	if len(m.RedirectURIs) > 10 || (redirects && len(m.RedirectURIs) == 0) {
		return errBadRequest("invalid_redirect_uri", "send 1 to 10 redirect_uris (none only for a client that registers no authorization_code grant)")
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return errBadRequest("invalid_redirect_uri", "redirect URI "+quote(u)+": "+err.Error())
		}
	}
	if len(m.ResponseTypes) == 0 && redirects {
		m.ResponseTypes = []string{"code"}
	}
	if slices.ContainsFunc(m.ResponseTypes, func(t string) bool { return t != "code" }) {
		return errBadRequest("invalid_client_metadata", "response_types must be [\"code\"]")
	}
	if m.Scope != "" {
		if _, oe := parseScope(m.Scope); oe != nil {
			return errBadRequest("invalid_client_metadata", oe.Description)
		}
	}
	if m.ClientName == "" && len(m.RedirectURIs) > 0 {
		if u, err := url.Parse(m.RedirectURIs[0]); err == nil {
			m.ClientName = u.Hostname()
			if m.ClientName == "" {
				m.ClientName = u.Scheme
			}
		}
	}
	if m.ClientName == "" {
		m.ClientName = "unnamed client"
	}
	if oe := checkClientName(m.ClientName); oe != nil {
		return errBadRequest("invalid_client_metadata", oe.Description)
	}
	return nil
}

// refusedSchemes are schemes a redirect must never use: they run code in
// the page, read local files, or are not a place an app listens.
var refusedSchemes = []string{"javascript", "data", "vbscript", "file", "about", "blob", "filesystem",
	"ws", "wss", "ftp", "mailto", "tel", "sms", "chrome", "view-source", "intent"}

// checkRedirectURI accepts absolute https URIs, http URIs on a loopback
// host, and private-use schemes (cursor://…, com.example.app:/cb), without
// fragment or user info.
func checkRedirectURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Fragment != "" || strings.Contains(s, "#") || u.User != nil || u.Scheme == "" || u.Opaque != "" {
		return errors.New("must be an absolute URL with no user info and no fragment")
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return errors.New("an https redirect needs a host")
		}
		return nil
	case "http":
		if isLoopback(u) {
			return nil
		}
		return errors.New("http is allowed only on a loopback host (127.0.0.1, [::1], localhost); use https")
	}
	if slices.Contains(refusedSchemes, u.Scheme) {
		return errors.New("the scheme " + quote(u.Scheme) + " cannot receive a redirect; use https, http on a loopback host, or the app's own scheme")
	}
	return nil // a private-use scheme (RFC 8252 §7.1)
}

// isLoopback reports whether u is http on a loopback host.
func isLoopback(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether the redirect_uri of an authorization
// request is the registered one: exactly, or for a loopback redirect the
// same but for the port (RFC 8252 §7.3: the port is picked at run time).
func redirectMatches(registered, got string) bool {
	if registered == got {
		return true
	}
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || !isLoopback(r) || !isLoopback(g) {
		return false
	}
	return r.Hostname() == g.Hostname() && r.EscapedPath() == g.EscapedPath() && r.RawQuery == g.RawQuery &&
		g.User == nil && g.Fragment == "" && !strings.Contains(got, "#")
}
