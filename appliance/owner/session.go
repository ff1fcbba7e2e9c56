package owner

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// Session cookie and lifetimes.
const (
	// CookieName is the owner session cookie. The __Host- prefix makes
	// browsers require Secure, Path=/ and no Domain.
	CookieName = "__Host-openlolo"
	// preCookieName carries the CSRF token of the claim and login forms,
	// before there is a session.
	preCookieName = "__Host-openlolo-pre"

	// SessionIdle ends a session not used for this long.
	SessionIdle = 12 * time.Hour
	// SessionMax ends every session this long after login.
	SessionMax = 7 * 24 * time.Hour
	// touchEvery limits last-seen writes to one a minute per session.
	touchEvery = time.Minute
)

// session is the owner's session of the current request.
type session struct {
	idHash []byte
	csrf   string
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) (*session, bool) {
	s, ok := ctx.Value(sessionKey{}).(*session)
	return s, ok
}

func hashID(raw []byte) []byte {
	h := sha256.Sum256(raw)
	return h[:]
}

// csrfFor derives the CSRF token from the session cookie's secret, so it
// needs no storage and ends with the session.
func csrfFor(raw []byte) string {
	m := hmac.New(sha256.New, raw)
	m.Write([]byte("openlolo owner csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func randomToken() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("owner: random: %w", err)
	}
	return b, nil
}

// startSession stores a new session and sets its cookie on w.
func (p *Pages) startSession(ctx context.Context, w http.ResponseWriter, tx *store.Tx) error {
	raw, err := randomToken()
	if err != nil {
		return err
	}
	now := p.now()
	if err := tx.InsertOwnerSession(store.OwnerSession{IDHash: hashID(raw), Created: now, LastSeen: now}); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name:     CookieName,
		Value:    base64.RawURLEncoding.EncodeToString(raw),
		Path:     "/",
		MaxAge:   int(SessionMax / time.Second),
		Secure:   true,
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	return nil
}

// errNoSession means the request carries no live session.
var errNoSession = errors.New("owner: no session")

// lookupSession finds the request's session, ending it if it has expired,
// and records its use.
func (p *Pages) lookupSession(r *http.Request) (*session, error) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return nil, errNoSession
	}
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(raw) != 32 {
		return nil, errNoSession
	}
	id := hashID(raw)
	now := p.now()
	var s store.OwnerSession
	err = p.st.View(r.Context(), func(tx *store.Tx) (err error) { s, err = tx.OwnerSession(id); return err })
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	if now.Sub(s.Created) >= SessionMax || now.Sub(s.LastSeen) >= SessionIdle {
		err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.DeleteOwnerSession(id) })
		if err != nil {
			return nil, err
		}
		return nil, errNoSession
	}
	if now.Sub(s.LastSeen) >= touchEvery {
		if err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.TouchOwnerSession(id, now) }); err != nil {
			return nil, err
		}
	}
	ua := r.UserAgent()
	if len(ua) > store.MaxUserAgent {
		ua = ua[:store.MaxUserAgent]
	}
	if ua != s.UserAgent {
		// Which browser this is, for Settings (the first page after the
		// login, and after a browser update).
		if err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.SetOwnerSessionAgent(id, ua) }); err != nil {
			return nil, err
		}
	}
	return &session{idHash: id, csrf: csrfFor(raw)}, nil
}

// clearCookie removes the session cookie from the browser.
func clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// preToken returns the pre-session CSRF token for the claim and login
// forms, setting its cookie when the browser has none yet.
func preToken(w http.ResponseWriter, r *http.Request) (string, error) {
	if c, err := r.Cookie(preCookieName); err == nil && len(c.Value) == 43 {
		return c.Value, nil
	}
	raw, err := randomToken()
	if err != nil {
		return "", err
	}
	v := base64.RawURLEncoding.EncodeToString(raw)
	http.SetCookie(w, &http.Cookie{Name: preCookieName, Value: v, Path: "/", Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return v, nil
}

// preFormToken is the pre-session form token the browser holds in its
// cookie ("" when none): the claim and login forms must carry it.
func preFormToken(r *http.Request) string {
	c, err := r.Cookie(preCookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// sessionToken is the CSRF token of the request's session ("" when none):
// the owner's forms must carry it.
func sessionToken(r *http.Request) string {
	s, ok := sessionFrom(r.Context())
	if !ok {
		return ""
	}
	return s.csrf
}

func tokenEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
