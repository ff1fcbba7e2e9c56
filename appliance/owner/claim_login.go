package owner

import (
	"net/http"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// resetCommand is the whole console command that sets a new owner
// passphrase on this box, with its state directory.
func (p *Pages) resetCommand() string {
	dir := p.cfg.StateDir
	if dir == "" {
		dir = "DIR"
	} else if strings.ContainsAny(dir, " \t\n'\"\\$`;&|<>()*?[]#~") {
		dir = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	}
	return "openlolo owner reset-passphrase --state " + dir
}

// claimLockShown shows the claim lock when the claim page is opened while
// claiming with the setup code is locked for r's source or for everyone,
// so the owner learns it before typing a code. It reports whether it
// answered.
func (p *Pages) claimLockShown(w http.ResponseWriter, r *http.Request) bool {
	var until, all time.Time
	err := p.st.View(r.Context(), func(tx *store.Tx) (err error) {
		if until, err = tx.OwnerLock(bucket(kindClaim, sourceOf(r))); err != nil {
			return err
		}
		all, err = tx.OwnerLock(kindClaim)
		return err
	})
	if err != nil {
		p.internal(w, r, "read the claim lock", err)
		return true
	}
	now := p.now()
	switch {
	case now.Before(until):
		p.showClaim(w, r, http.StatusOK, p.claimLockText(until, false), 0)
	case now.Before(all):
		p.showClaim(w, r, http.StatusOK, p.claimLockText(all, true), 0)
	default:
		return false
	}
	return true
}

// loginLockShown shows the login lock when the login page is opened while
// passphrases are not checked for r's source or for everyone (unless the
// button let this browser through). It reports whether it answered.
func (p *Pages) loginLockShown(w http.ResponseWriter, r *http.Request, next string) bool {
	now := p.now()
	if p.hasPass(r, now) {
		return false
	}
	until, all, err := p.loginLock(r.Context(), r, now)
	if err != nil {
		p.internal(w, r, "read the failed logins", err)
		return true
	}
	if until.IsZero() {
		return false
	}
	p.lockedLoginStatus(w, r, http.StatusOK, next, until, all)
	return true
}

// favicon sends browsers that ask for /favicon.ico to the embedded icon.
func favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "max-age=86400")
	http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
}
