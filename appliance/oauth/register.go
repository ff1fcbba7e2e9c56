package oauth

import (
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
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
	if oe := checkMetadata(&m); oe != nil {
		return nil, oe
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

// checkMetadata validates and completes a registration: public clients
// only, https redirect URIs or http on loopback.
func checkMetadata(m *clientMetadata) *Error {
	if m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none" {
		return errBadRequest("invalid_client_metadata", "the box registers public clients only: token_endpoint_auth_method must be none")
	}
	m.TokenEndpointAuthMethod = "none"
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 10 {
		return errBadRequest("invalid_redirect_uri", "send 1 to 10 redirect_uris")
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return errBadRequest("invalid_redirect_uri", "redirect URI "+quote(u)+": "+err.Error())
		}
	}
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return errBadRequest("invalid_client_metadata", "grant type "+quote(g)+" cannot be registered; use authorization_code and refresh_token")
		}
	}
	if len(m.ResponseTypes) == 0 {
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
	if m.ClientName == "" {
		u, _ := url.Parse(m.RedirectURIs[0])
		m.ClientName = u.Hostname()
	}
	if oe := checkClientName(m.ClientName); oe != nil {
		return errBadRequest("invalid_client_metadata", oe.Description)
	}
	return nil
}

// checkRedirectURI accepts absolute https URIs and http URIs on a loopback
// host, without fragment.
func checkRedirectURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Fragment != "" || u.Host == "" || u.User != nil {
		return errors.New("must be an absolute URL with a host, no user info and no fragment")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if h == "localhost" {
			return nil
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			return nil
		}
		return errors.New("http is allowed only on a loopback host (127.0.0.1, [::1], localhost); use https")
	}
	return errors.New("the scheme must be https, or http on a loopback host")
}
