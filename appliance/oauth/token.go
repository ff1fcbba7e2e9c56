package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// tokenResponse is a successful /token answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	resp, err := s.token(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) (*tokenResponse, error) {
	form, oe := readForm(w, r)
	if oe != nil {
		return nil, oe
	}
	clientID, oe := tokenClientID(r, form)
	if oe != nil {
		return nil, oe
	}
	now := s.nowUTC()
	var resp *tokenResponse
	var fail *Error
	var grant func(*store.Tx) (*tokenResponse, *Error, error)
	switch gt := form.Get("grant_type"); gt {
	case DeviceCodeGrantType:
		code := form.Get("device_code")
		if code == "" {
			return nil, errInvalidRequest("device_code is missing; send the device_code from /oauth/device_authorization")
		}
		grant = func(tx *store.Tx) (*tokenResponse, *Error, error) { return s.deviceCodeGrant(tx, now, clientID, code) }
	case "refresh_token":
		rt := form.Get("refresh_token")
		if rt == "" {
			return nil, errInvalidRequest("refresh_token is missing")
		}
		grant = func(tx *store.Tx) (*tokenResponse, *Error, error) { return s.refreshGrant(tx, now, clientID, rt) }
	case "authorization_code":
		code, redirect, verifier := form.Get("code"), form.Get("redirect_uri"), form.Get("code_verifier")
		switch {
		case code == "":
			return nil, errInvalidRequest("code is missing")
		case !validVerifier(verifier):
			return nil, errInvalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (PKCE, RFC 7636)")
		}
		grant = func(tx *store.Tx) (*tokenResponse, *Error, error) {
			return s.authCodeGrant(tx, now, clientID, code, redirect, verifier)
		}
	case "":
		return nil, errInvalidRequest("grant_type is missing")
	default:
		return nil, errBadRequest("unsupported_grant_type", "grant_type "+quote(gt)+" is not supported; use "+
			DeviceCodeGrantType+", refresh_token or authorization_code")
	}
	// One transaction decides and records: a failure that must be
	// remembered (slow_down's interval, a revoked grant) is committed too.
	err := s.st.Update(r.Context(), func(tx *store.Tx) error {
		var err error
		resp, fail, err = grant(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if fail != nil {
		return nil, fail
	}
	return resp, nil
}

// tokenClientID returns the public client's client_id from the form or from
// HTTP Basic with an empty secret (what some clients send).
func tokenClientID(r *http.Request, form url.Values) (string, *Error) {
	id := form.Get("client_id")
	if user, pass, ok := r.BasicAuth(); ok {
		u, err := url.QueryUnescape(user)
		if err != nil || pass != "" || (id != "" && id != u) {
			return "", &Error{Status: http.StatusUnauthorized, Code: "invalid_client",
				Description: "the box's clients are public: send client_id without a secret"}
		}
		id = u
	}
	if id == "" {
		return "", errInvalidRequest("client_id is missing; send the client_id the box gave you")
	}
	return id, nil
}

// issueTokens creates a new access and refresh token for g.
func (s *Server) issueTokens(tx *store.Tx, g store.OAuthGrant, now time.Time) (*tokenResponse, error) {
	return s.storeTokens(tx, g, now, newSecret(), newSecret())
}

// storeTokens records access and refresh as g's new pair.
func (s *Server) storeTokens(tx *store.Tx, g store.OAuthGrant, now time.Time, access, refresh string) (*tokenResponse, error) {
	exp := now.Add(AccessTokenLife)
	if !g.Expires.IsZero() && g.Expires.Before(exp) {
		exp = g.Expires
	}
	if err := tx.InsertToken(store.OAuthToken{Hash: hashSecret(access), GrantID: g.GrantID, Kind: "access",
		Created: now, Expires: exp}); err != nil {
		return nil, err
	}
	if err := tx.InsertToken(store.OAuthToken{Hash: hashSecret(refresh), GrantID: g.GrantID, Kind: "refresh",
		Created: now, Expires: g.Expires}); err != nil {
		return nil, err
	}
	if err := tx.TouchGrant(g.GrantID, now); err != nil {
		return nil, err
	}
	return &tokenResponse{
		AccessToken:  access,
		TokenType:    "Bearer",
		ExpiresIn:    int(exp.Sub(now) / time.Second),
		RefreshToken: refresh,
		Scope:        strings.Join(g.Scopes, " "),
	}, nil
}

// deviceCodeGrant answers a device_code poll (RFC 8628 §3.4–3.5).
func (s *Server) deviceCodeGrant(tx *store.Tx, now time.Time, clientID, code string) (*tokenResponse, *Error, error) {
	d, err := tx.DeviceRequestByHash(hashSecret(code))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errInvalidGrant("unknown device_code; start again at /oauth/device_authorization"), nil
	}
	if err != nil {
		return nil, nil, err
	}
	if d.Entry != s.entry || d.ClientID != clientID {
		return nil, errInvalidGrant("this device_code was issued to another client_id or on another entry"), nil
	}
	switch {
	case d.Status == "used":
		return nil, errInvalidGrant("this device_code was already exchanged for tokens; it works once"), nil
	case d.Status == "denied":
		return nil, errBadRequest("access_denied", "the owner denied this request on the box page"), nil
	case d.Status == "replaced":
		return nil, errBadRequest("expired_token", "a newer request from the same client_id replaced this one; poll with the newer device_code"), nil
	case !now.Before(d.Expires):
		return nil, errBadRequest("expired_token", "the device_code expired (10 minutes); start again at /oauth/device_authorization"), nil
	}
	if !d.LastPoll.IsZero() && now.Sub(d.LastPoll) < d.Interval-pollLeeway {
		interval := d.Interval + 5*time.Second
		if err := tx.RecordDevicePoll(d.Handle, now, interval); err != nil {
			return nil, nil, err
		}
		return nil, errBadRequest("slow_down", "polled faster than the interval; the interval is now "+interval.String()), nil
	}
	if err := tx.RecordDevicePoll(d.Handle, now, d.Interval); err != nil {
		return nil, nil, err
	}
	if d.Status == "pending" {
		return nil, errBadRequest("authorization_pending", "waiting for the owner to approve on the box page (Access)"), nil
	}
	// Approved.
	if ok, err := tx.UseDeviceRequest(d.Handle); err != nil || !ok {
		if err == nil {
			return nil, errInvalidGrant("this device_code was already exchanged for tokens; it works once"), nil
		}
		return nil, nil, err
	}
	g, err := tx.GrantByID(d.GrantID)
	if err != nil {
		return nil, nil, err
	}
	if !g.Active(now) {
		return nil, errInvalidGrant("the grant was revoked on the box page; ask for approval again"), nil
	}
	resp, err := s.issueTokens(tx, g, now)
	if err == nil {
		s.log.Info("oauth: tokens issued", "grant", "device_code", "client_id", clientID, "grant_id", g.GrantID)
	}
	return resp, nil, err
}

// refreshGrant rotates a refresh token (RFC 9700 §4.14.2): the old one is
// used up, and presenting it again revokes the whole grant, except as a
// retry after a lost answer (see retryRefresh).
func (s *Server) refreshGrant(tx *store.Tx, now time.Time, clientID, rt string) (*tokenResponse, *Error, error) {
	hash := hashSecret(rt)
	k, err := tx.TokenByHash(hash)
	if errors.Is(err, store.ErrNotFound) || (err == nil && k.Kind != "refresh") {
		return nil, errInvalidGrant("unknown refresh_token; ask for approval again"), nil
	}
	if err != nil {
		return nil, nil, err
	}
	g, err := tx.GrantByID(k.GrantID)
	if err != nil {
		return nil, nil, err
	}
	if g.Entry != s.entry || g.ClientID != clientID {
		return nil, errInvalidGrant("this refresh_token was issued to another client_id or on another entry"), nil
	}
	if !g.Active(now) {
		return nil, errInvalidGrant("the grant was revoked or has expired; ask for approval again"), nil
	}
	access, refresh := newSecret(), newSecret()
	blob, err := sealRetry(rt, hash, access, refresh)
	if err != nil {
		return nil, nil, err
	}
	won, err := tx.UseRefreshToken(hash, now, hashSecret(refresh), blob)
	if err != nil {
		return nil, nil, err
	}
	if !won {
		resp, err := s.retryRefresh(tx, k, rt, now)
		if err != nil || resp != nil {
			if resp != nil {
				s.log.Info("oauth: refresh retried after a lost answer; same pair again", "client_id", clientID, "grant_id", g.GrantID)
			}
			return resp, nil, err
		}
		if err := tx.RevokeGrant(g.GrantID, now); err != nil {
			return nil, nil, err
		}
		s.log.Warn("oauth: used refresh token presented again; grant revoked", "client_id", clientID, "grant_id", g.GrantID)
		return nil, errInvalidGrant("this refresh_token was already used, so the whole grant is now revoked; ask for approval again (store each new refresh token before using it)"), nil
	}
	// rt is used now: the token before it can no longer be retried, nor
	// can any used longer ago than the window.
	if err := tx.ForgetRetries(g.GrantID, now.Add(-RefreshRetryWindow), hash); err != nil {
		return nil, nil, err
	}
	if g.Life == string(Life30d) {
		g.Expires = Life30d.expiry(now)
		if err := tx.SetGrantExpiry(g.GrantID, g.Expires); err != nil {
			return nil, nil, err
		}
	}
	// The access tokens of the previous pair die with their refresh token.
	if err := tx.DeleteAccessTokens(g.GrantID); err != nil {
		return nil, nil, err
	}
	resp, err := s.storeTokens(tx, g, now, access, refresh)
	if err == nil {
		s.log.Info("oauth: tokens refreshed", "client_id", clientID, "grant_id", g.GrantID)
	}
	return resp, nil, err
}

// retryRefresh answers a used refresh token presented again within
// RefreshRetryWindow of its use, while the pair its rotation issued is
// untouched (the successor refresh token unused, the access token alive):
// the client never got that answer, so it gets the same pair again. It
// returns nil when the presentation is not such a retry; the caller then
// revokes the grant.
func (s *Server) retryRefresh(tx *store.Tx, k store.OAuthToken, rt string, now time.Time) (*tokenResponse, error) {
	if k.Used.IsZero() || now.Sub(k.Used) >= RefreshRetryWindow || k.Successor == "" || len(k.RetryBlob) == 0 {
		return nil, nil
	}
	next, err := tx.TokenByHash(k.Successor)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (next.Kind != "refresh" || !next.Used.IsZero())) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	access, refresh, ok := openRetry(rt, k.Hash, k.RetryBlob)
	if !ok || hashSecret(refresh) != k.Successor {
		return nil, nil
	}
	at, err := tx.TokenByHash(hashSecret(access))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (at.Kind != "access" || !at.Used.IsZero() || !now.Before(at.Expires))) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	g, err := tx.GrantByID(k.GrantID)
	if err != nil {
		return nil, err
	}
	return &tokenResponse{
		AccessToken:  access,
		TokenType:    "Bearer",
		ExpiresIn:    int(at.Expires.Sub(now) / time.Second),
		RefreshToken: refresh,
		Scope:        strings.Join(g.Scopes, " "),
	}, nil
}

// authCodeGrant exchanges an authorization code with PKCE S256.
func (s *Server) authCodeGrant(tx *store.Tx, now time.Time, clientID, code, redirect, verifier string) (*tokenResponse, *Error, error) {
	hash := hashSecret(code)
	c, err := tx.AuthCodeByHash(hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errInvalidGrant("unknown authorization code"), nil
	}
	if err != nil {
		return nil, nil, err
	}
	g, err := tx.GrantByID(c.GrantID)
	if err != nil {
		return nil, nil, err
	}
	if g.Entry != s.entry || g.ClientID != clientID {
		return nil, errInvalidGrant("this code was issued to another client_id or on another entry"), nil
	}
	if !c.Used.IsZero() {
		if err := tx.RevokeGrant(g.GrantID, now); err != nil {
			return nil, nil, err
		}
		s.log.Warn("oauth: authorization code used twice; grant revoked", "client_id", clientID, "grant_id", g.GrantID)
		return nil, errInvalidGrant("this code was already used, so its grant is now revoked; authorize again"), nil
	}
	if !now.Before(c.Expires) {
		return nil, errInvalidGrant("the code expired (5 minutes); authorize again"), nil
	}
	// RFC 6749 §4.1.3: redirect_uri is required, and must be identical,
	// when the authorization request carried one.
	switch {
	case c.RedirectSent && redirect == "":
		return nil, errInvalidRequest("redirect_uri is missing; send the one used at /oauth/authorize"), nil
	case redirect != "" && redirect != c.RedirectURI:
		return nil, errInvalidGrant("redirect_uri differs from the one sent to /oauth/authorize"), nil
	}
	if !pkceMatches(verifier, c.CodeChallenge) {
		return nil, errInvalidGrant("code_verifier does not match the code_challenge (PKCE S256)"), nil
	}
	if ok, err := tx.UseAuthCode(hash, now); err != nil || !ok {
		if err == nil {
			return nil, errInvalidGrant("this code was already used"), nil
		}
		return nil, nil, err
	}
	if !g.Active(now) {
		return nil, errInvalidGrant("the grant was revoked on the box page; authorize again"), nil
	}
	resp, err := s.issueTokens(tx, g, now)
	if err == nil {
		s.log.Info("oauth: tokens issued", "grant", "authorization_code", "client_id", clientID, "grant_id", g.GrantID)
	}
	return resp, nil, err
}

// validVerifier checks RFC 7636 §4.1's code_verifier syntax.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		if !unreserved(c) {
			return false
		}
	}
	return true
}

func unreserved(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// pkceMatches reports whether BASE64URL(SHA256(verifier)) equals challenge.
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}
