package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// SessionCookie is the owner's session cookie on the box page. A request
// that carries it and a bearer token has two credentials and is refused.
const SessionCookie = "__Host-openlolo"

// maxCachedTokens bounds the bearer cache; past it the cache starts afresh.
const maxCachedTokens = 1024

// bearerError is an RFC 6750 §3.1 error of the bearer check. code is empty
// for a request without credentials (the challenge then names no error)
// and for a store failure (status 503).
type bearerError struct {
	status int
	code   string // invalid_request or invalid_token; "" (see above)
	desc   string
}

// Middleware checks the bearer token of every request and passes the
// request on with a *Caller in its context (see CallerFrom). Refused
// requests get an RFC 6750 error with WWW-Authenticate naming the
// protected-resource metadata and the scopes.
//
// Checks are cached in memory, but only while the store's
// CredentialGeneration is the one read before the check's query: every
// write that revokes a grant, deletes access tokens (a refresh rotation),
// renames a client or resets the box moves it, so such a change takes
// effect on the very next request.
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

// bearerCache holds recent bearer checks by token hash, for one
// credential generation of the store.
type bearerCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[[sha256.Size]byte]*bearerEntry
}

// bearerEntry is what the store said about one access token.
type bearerEntry struct {
	expires time.Time // the access token's
	grant   store.OAuthGrant
	client  store.OAuthClient
	// touched is the grant's last use as last written; used whether the
	// token's first use is recorded. Both are guarded by bearerCache.mu.
	touched time.Time
	used    bool
}

// get returns the entry for hash if the cache is of generation gen.
func (c *bearerCache) get(gen uint64, hash [sha256.Size]byte) *bearerEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		c.gen, c.m = gen, nil
		return nil
	}
	return c.m[hash]
}

// put keeps e for hash if the cache is still of generation gen (the one
// read before e's query).
func (c *bearerCache) put(gen uint64, hash [sha256.Size]byte, e *bearerEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.m == nil || len(c.m) >= maxCachedTokens {
		c.m = make(map[[sha256.Size]byte]*bearerEntry)
	}
	c.m[hash] = e
}

// due reports what of e's use must be written at now: the token's first
// use, and the grant's last use at most once per lastUsedEvery. It marks
// them written.
func (c *bearerCache) due(e *bearerEntry, now time.Time) (first, touch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first, touch = !e.used, now.Sub(e.touched) >= lastUsedEvery
	e.used = true
	if touch {
		e.touched = now
	}
	return first, touch
}

// authenticate finds the caller of r or says why not.
func (s *Server) authenticate(r *http.Request) (*Caller, *bearerError) {
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return nil, &bearerError{http.StatusBadRequest, "invalid_request",
			"a token in the URL is refused; send it in the Authorization header"}
	}
	auth := r.Header.Values("Authorization")
	if len(auth) > 1 {
		return nil, &bearerError{http.StatusBadRequest, "invalid_request",
			"the request carries more than one Authorization header; send one bearer token"}
	}
	if len(auth) == 0 {
		return nil, &bearerError{http.StatusUnauthorized, "",
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
	sum := sha256.Sum256([]byte(token))
	gen := s.st.CredentialGeneration()
	e := s.cache.get(gen, sum)
	hash := ""
	if e == nil {
		hash = hex.EncodeToString(sum[:]) // hashSecret, as the store keeps it
		var tok store.OAuthToken
		e = &bearerEntry{}
		err := s.st.View(r.Context(), func(tx *store.Tx) error {
			var err error
			tok, e.grant, e.client, err = tx.AccessTokenGrant(hash)
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
		e.expires, e.touched, e.used = tok.Expires, e.grant.LastUsed, !tok.Used.IsZero()
		s.cache.put(gen, sum, e)
	}
	g := e.grant
	switch {
	case g.Entry != s.entry:
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"token issued by another entry of this box; tokens work only where they were issued"}
	case !now.Before(e.expires):
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token", "the access token expired; refresh it"}
	case !g.Active(now):
		return nil, &bearerError{http.StatusUnauthorized, "invalid_token",
			"the grant was revoked or has expired; ask for approval again"}
	}
	if first, touch := s.cache.due(e, now); first || touch {
		// The token's first use (a refresh whose new pair was used is no
		// lost answer) and the grant's last use (Access shows it).
		if err := s.st.Update(r.Context(), func(tx *store.Tx) error {
			if first {
				if err := tx.MarkAccessTokenUsed(hex.EncodeToString(sum[:]), now); err != nil {
					return err
				}
			}
			if !touch {
				return nil
			}
			return tx.TouchGrant(g.GrantID, now)
		}); err != nil {
			s.log.Warn("oauth: record last use", "grant_id", g.GrantID, "err", err)
		}
	}
	return &Caller{
		ClientID:     g.ClientID,
		ClientName:   e.client.Name,
		Registered:   e.client.Kind == "registered",
		GrantID:      g.GrantID,
		Entry:        g.Entry,
		Issuer:       s.issuer(r),
		Scopes:       g.Scopes,
		GrantExpires: g.Expires,
		Phones:       g.Phones,
	}, nil
}

// challenge writes a refused bearer check.
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, be *bearerError) {
	noStore(w)
	if be.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the box could not check the token; try again", be.status)
		return
	}
	w.Header().Set("WWW-Authenticate", s.bearerChallenge(r, be.code, be.desc, strings.Join(clientScopes(), " ")))
	writeJSON(w, be.status, &challengeBody{Code: be.code, Description: be.desc})
}

// challengeBody is the JSON body beside a challenge; a request without
// credentials gets no error code (RFC 6750 §3.1), only the sentence.
type challengeBody struct {
	Code        string `json:"error,omitempty"`
	Description string `json:"error_description"`
}

// bearerChallenge is an RFC 6750 WWW-Authenticate value: error and its
// description unless code is empty, the scopes the resource wants, and
// where its metadata is (RFC 9728).
func (s *Server) bearerChallenge(r *http.Request, code, desc, scope string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if code != "" {
		b.WriteString(`error="` + code + `", error_description="` + desc + `", `)
	}
	b.WriteString(`scope="` + scope + `", resource_metadata="` + s.issuer(r) + `/.well-known/oauth-protected-resource"`)
	return b.String()
}

// InsufficientScope answers 403 with the step-up challenge of the MCP
// authorization spec (RFC 6750 §3.1 insufficient_scope) for the caller in
// r's context: scope names what the grant has plus what the request needs,
// so a client can ask the owner again without losing what it holds. desc
// is a sentence saying which call needed it.
func InsufficientScope(w http.ResponseWriter, r *http.Request, scope, desc string) {
	noStore(w)
	c, _ := CallerFrom(r.Context())
	var want []string
	for _, sc := range clientScopes() {
		if sc == scope || c.Has(sc) {
			want = append(want, sc)
		}
	}
	iss := ""
	if c != nil {
		iss = c.Issuer
	}
	w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", error_description="`+desc+
		`", scope="`+strings.Join(want, " ")+`", resource_metadata="`+iss+`/.well-known/oauth-protected-resource"`)
	writeJSON(w, http.StatusForbidden, &challengeBody{Code: "insufficient_scope", Description: desc})
}
