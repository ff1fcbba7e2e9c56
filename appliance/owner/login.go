package owner

import (
	"errors"
	"net/http"

	"github.com/openlolo/openlolo/appliance/store"
)

// loginPage is the passphrase form.
type loginPage struct {
	basePage
	Next  string
	Error string
	// Locked: the box stopped checking passphrases for this browser's
	// source or for everyone; Button: it offers the button as a way
	// through; Pressed: the button was pressed, this browser may try.
	Locked, Button, Pressed bool
	// Out: the owner just logged out here.
	Out bool
}

func (p *Pages) loginForm(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if !localPath(next) {
		next = "/status"
	}
	if _, err := p.lookupSession(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	if p.tailnetSession(w, r, next) {
		return
	}
	if p.loginLockShown(w, r, next) {
		return
	}
	p.showLoginPage(w, r, http.StatusOK, &loginPage{Next: next, Out: r.URL.Query().Get("out") == "1"})
}

func (p *Pages) showLoginPage(w http.ResponseWriter, r *http.Request, status int, lp *loginPage) {
	tok, err := preToken(w, r)
	if err != nil {
		p.internal(w, r, "make a form token", err)
		return
	}
	lp.basePage = basePage{Title: "Log in", CSRF: tok}
	p.render(w, r, status, "login", lp)
}

func (p *Pages) loginPost(w http.ResponseWriter, r *http.Request) {
	next := r.PostFormValue("next")
	if !localPath(next) {
		next = "/status"
	}
	ctx := r.Context()

	// One attempt at a time, so the failure count cannot be outrun and
	// parallel attempts cannot take 64 MiB each.
	select {
	case p.hashMu <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-p.hashMu }()

	now := p.now()
	pass := p.hasPass(r, now)
	if !pass {
		until, all, err := p.loginLock(ctx, r, now)
		if err != nil {
			p.internal(w, r, "read the failed logins", err)
			return
		}
		if !until.IsZero() {
			p.lockedLogin(w, r, next, until, all)
			return
		}
	}
	var o store.Owner
	if err := p.st.View(ctx, func(tx *store.Tx) (err error) { o, err = tx.Owner(); return err }); err != nil {
		p.internal(w, r, "read the owner", err)
		return
	}
	if !matches(o, r.PostFormValue("passphrase")) {
		if err := p.st.Update(ctx, func(tx *store.Tx) error {
			return tx.InsertOwnerFailure(bucket(kindLogin, sourceOf(r)), now)
		}); err != nil {
			p.internal(w, r, "record the failed login", err)
			return
		}
		p.usePass(r, false)
		p.log.Warn("owner: wrong passphrase", "remote", r.RemoteAddr, "button_pass", pass)
		p.record(ctx, actLoginFailed, "a wrong passphrase was entered "+from(r))
		p.showLoginPage(w, r, http.StatusForbidden, &loginPage{Next: next, Error: "That passphrase is wrong.", Pressed: pass})
		return
	}
	err := p.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.PruneOwnerSessions(now.Add(-SessionMax), now.Add(-SessionIdle)); err != nil {
			return err
		}
		return p.startSession(ctx, w, tx)
	})
	if err != nil {
		p.internal(w, r, "start the session", err)
		return
	}
	p.usePass(r, true)
	clearCookie(w, preCookieName)
	p.log.Info("owner: logged in", "remote", r.RemoteAddr, "button_pass", pass)
	p.record(ctx, actLogin, "logged in "+from(r))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (p *Pages) logout(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	if err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.DeleteOwnerSession(s.idHash) }); err != nil && !errors.Is(err, store.ErrNotFound) {
		p.internal(w, r, "end the session", err)
		return
	}
	clearCookie(w, CookieName)
	p.record(r.Context(), actLogout, "logged out "+from(r))
	// passphrase=1: a linked tailnet login must not log straight back in.
	p.log.Info("owner: logged out", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/login?passphrase=1&out=1", http.StatusSeeOther)
}
