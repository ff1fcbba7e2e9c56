package owner

import (
	"bytes"
	"errors"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// accountView is the Settings page's owner section: the passphrase form
// and the owner's sessions.
type accountView struct {
	CSRF     string
	Sessions []sessionRow
}

// sessionRow is one owner session as Settings lists it.
type sessionRow struct {
	Created   time.Time
	LastSeen  time.Time
	This      bool   // the session of this page
	Browser   string // browserName of UserAgent: "Chrome 156 on Linux"
	UserAgent string
}

// accountDone is the confirmation of the owner section's forms.
func accountDone(done string) string {
	switch done {
	case "passphrase":
		return "The passphrase is changed. Every other browser was logged out; this one stays logged in."
	case "sessions":
		return "Every other browser was logged out."
	}
	return ""
}

// accountSection reads the owner's sessions for Settings.
func (p *Pages) accountSection(r *http.Request) (*accountView, error) {
	s, _ := sessionFrom(r.Context())
	var all []store.OwnerSession
	if err := p.st.View(r.Context(), func(tx *store.Tx) (err error) { all, err = tx.OwnerSessions(); return err }); err != nil {
		return nil, err
	}
	v := &accountView{CSRF: s.csrf}
	for _, o := range all {
		v.Sessions = append(v.Sessions, sessionRow{Created: o.Created, LastSeen: o.LastSeen, This: bytes.Equal(o.IDHash, s.idHash),
			Browser: browserName(o.UserAgent), UserAgent: o.UserAgent})
	}
	return v, nil
}

// changePassphrase checks the current passphrase, stores the new one
// (argon2id with a fresh salt, as the claim does) and ends every other
// owner session. A wrong current passphrase counts as a failed login, so
// a borrowed session cannot guess it faster than the login page allows.
func (p *Pages) changePassphrase(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, _ := sessionFrom(ctx)
	select {
	case p.hashMu <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-p.hashMu }()
	now := p.now()
	until, _, err := p.loginLock(ctx, r, now)
	if err != nil {
		p.internal(w, r, "read the failed logins", err)
		return
	}
	if !until.IsZero() {
		w.Header().Set("Retry-After", "60")
		p.showSettings(w, r, http.StatusTooManyRequests, "", "The current passphrase was typed wrong too often, so the box stopped checking for a moment. Try again in a minute; the passphrase is unchanged.")
		return
	}
	var o store.Owner
	if err := p.st.View(ctx, func(tx *store.Tx) (err error) { o, err = tx.Owner(); return err }); err != nil {
		p.internal(w, r, "read the owner", err)
		return
	}
	if !matches(o, r.PostFormValue("current")) {
		if err := p.st.Update(ctx, func(tx *store.Tx) error {
			return tx.InsertOwnerFailure(bucket(kindLogin, sourceOf(r)), now)
		}); err != nil {
			p.internal(w, r, "record the failed passphrase", err)
			return
		}
		p.log.Warn("owner: wrong current passphrase on Settings", "remote", r.RemoteAddr)
		p.showSettings(w, r, http.StatusForbidden, "", "The current passphrase is wrong, so the passphrase is unchanged. Type the one you log in with now.")
		return
	}
	pass := r.PostFormValue("passphrase")
	if err := checkPassphrase(pass); err != nil {
		p.showSettings(w, r, http.StatusBadRequest, "", "Choose a new passphrase of at least 10 characters (and at most 1024 bytes). The passphrase is unchanged.")
		return
	}
	if pass != r.PostFormValue("confirm") {
		p.showSettings(w, r, http.StatusBadRequest, "", "The two new passphrases differ. Type the same new passphrase twice; the passphrase is unchanged.")
		return
	}
	n, err := hashPassphrase(pass, now)
	if err != nil {
		p.internal(w, r, "hash the passphrase", err)
		return
	}
	n.Created = o.Created
	var ended int
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SetOwner(n); err != nil {
			return err
		}
		ended, err = tx.DeleteOwnerSessionsExcept(s.idHash)
		return err
	})
	if err != nil {
		p.internal(w, r, "save the passphrase", err)
		return
	}
	p.log.Info("owner: passphrase changed", "remote", r.RemoteAddr, "sessions_ended", ended)
	http.Redirect(w, r, "/settings?done=passphrase", http.StatusSeeOther)
}

// endOtherSessions logs out every browser but this one.
func (p *Pages) endOtherSessions(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	var ended int
	err := p.st.Update(r.Context(), func(tx *store.Tx) (err error) { ended, err = tx.DeleteOwnerSessionsExcept(s.idHash); return err })
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		p.internal(w, r, "end the other sessions", err)
		return
	}
	p.log.Info("owner: other sessions ended", "remote", r.RemoteAddr, "sessions_ended", ended)
	http.Redirect(w, r, "/settings?done=sessions", http.StatusSeeOther)
}
