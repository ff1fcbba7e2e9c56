package oauth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/openlolo/openlolo/appliance/store"
)

// SessionCookie is the owner's session cookie on the box page. A request
// that carries it and a bearer token has two credentials and is refused.
const SessionCookie = "__Host-openlolo"

// bearerError is an RFC 6750 §3.1 error of the bearer check.
type bearerError struct {
	status int
	code   string // invalid_request or invalid_token
	desc   string
}

// Middleware checks the bearer token of every request against the store (no
// cache: a revoke takes effect on the next request) and passes the request
// on with a *Caller in its context (see CallerFrom). Refused requests get an
// RFC 6750 error with WWW-Authenticate naming the protected-resource
// metadata.
func (s *Server) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, be := s.authenticate(r)
		if be != nil {
			s.challenge(w, r, be)
			return
		}
		next.ServeHTTP(w, r.WithContext(ContextWithCaller(r.Context(), c)))
	})
}

// authenticate finds the caller of r or says why not.
func (s *Server) authenticate(r *http.Request) (*Caller, *bearerError) {
	if r.URL.Query().Has("access_token") {
		return nil, &bearerError{http.StatusBadRequest, "invalid_request",
			"a token in the URL is refused; send it in the Authorization header"}
	}
	auth := r.Header.Values("Authorization")
	if len(auth) > 1 {
		return nil, &bearerError{http.StatusBadRequest, "invalid_request",
			"the request carries more than one Authorization header; send one bearer token"}
	}
	if len(auth) == 0 {
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"no bearer token; get one through device authorization (see the Connect page)"}
	}
	scheme, token, ok := strings.Cut(auth[0], " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t,") {
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"the Authorization header must be 'Bearer <access token>'"}
	}
	if _, err := r.Cookie(SessionCookie); err == nil {
		return nil, &bearerError{http.StatusBadRequest, "invalid_request",
			"the request carries both a bearer token and the box page's session cookie; send one credential"}
	}
	now := s.nowUTC()
	var (
		tok  store.OAuthToken
		g    store.OAuthGrant
		name string
	)
	err := s.st.View(r.Context(), func(tx *store.Tx) error {
		var err error
		tok, g, name, err = tx.AccessTokenGrant(hashSecret(token))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"the access token is unknown, was replaced by a refresh, or was revoked; refresh it or ask for approval again"}
	}
	if err != nil {
		s.log.Error("oauth: bearer check", "err", err)
		return nil, &bearerError{http.StatusServiceUnavailable, "", ""}
	}
	switch {
	case g.Entry != s.entry:
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"token issued by another entry of this box; tokens work only where they were issued"}
	case !now.Before(tok.Expires):
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token", "the access token expired; refresh it"}
	case !g.Active(now):
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"the grant was revoked or has expired; ask for approval again"}
	}
	if now.Sub(g.LastUsed) >= lastUsedEvery {
		if err := s.st.Update(r.Context(), func(tx *store.Tx) error { return tx.TouchGrant(g.GrantID, now) }); err != nil {
			s.log.Warn("oauth: record last use", "grant_id", g.GrantID, "err", err)
		}
	}
	return &Caller{
		ClientID:     g.ClientID,
		ClientName:   name,
		GrantID:      g.GrantID,
		Entry:        g.Entry,
		Issuer:       s.issuer(r),
		Scopes:       g.Scopes,
		GrantExpires: g.Expires,
	}, nil
}

// challenge writes a refused bearer check.
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, be *bearerError) {
	noStore(w)
	if be.code == "" {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the box could not check the token; try again", be.status)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer error="`+be.code+`", error_description="`+be.desc+
		`", resource_metadata="`+s.issuer(r)+`/.well-known/oauth-protected-resource"`)
	writeJSON(w, be.status, &Error{Code: be.code, Description: be.desc})
}
