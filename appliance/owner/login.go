package owner

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// loginPage is the passphrase form.
type loginPage struct {
	basePage
	Next  string
	Error string
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
	p.showLogin(w, r, http.StatusOK, next, "")
}

func (p *Pages) showLogin(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	tok, err := preToken(w, r)
	if err != nil {
		p.internal(w, r, "make a form token", err)
		return
	}
	p.render(w, r, status, "login", &loginPage{basePage: basePage{Title: "Log in", CSRF: tok}, Next: next, Error: msg})
}

func (p *Pages) loginPost(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	if !checkPreToken(r) {
		p.message(w, r, http.StatusForbidden, "Form refused",
			"This form's security token is missing or out of date, so the box did not act on it. Reload the page and try again.", "Log in", "/login")
		return
	}
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
	var fails []time.Time
	var o store.Owner
	err := p.st.Update(ctx, func(tx *store.Tx) (err error) {
		if fails, err = tx.OwnerFailuresSince(kindLogin, now.Add(-loginWindow)); err != nil {
			return err
		}
		o, err = tx.Owner()
		return err
	})
	if err != nil {
		p.internal(w, r, "read the owner", err)
		return
	}
	if len(fails) >= loginTries {
		retry := fails[len(fails)-loginTries].Add(loginWindow)
		wait := retry.Sub(now)
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds()+1)))
		p.message(w, r, http.StatusTooManyRequests, "Too many tries",
			fmt.Sprintf("The passphrase was wrong %d times within a minute, so the box stopped checking for a moment. Try again after %s (in %s).",
				loginTries, retry.UTC().Format("15:04:05 UTC"), span(wait)), "Log in", "/login?next="+url.QueryEscape(next))
		return
	}
	if !matches(o, r.PostFormValue("passphrase")) {
		if err := p.st.Update(ctx, func(tx *store.Tx) error { return tx.InsertOwnerFailure(kindLogin, now) }); err != nil {
			p.internal(w, r, "record the failed login", err)
			return
		}
		p.log.Warn("owner: wrong passphrase", "remote", r.RemoteAddr)
		p.showLogin(w, r, http.StatusForbidden, next, "That passphrase is wrong.")
		return
	}
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.PruneOwnerSessions(now.Add(-SessionMax), now.Add(-SessionIdle)); err != nil {
			return err
		}
		return p.startSession(ctx, w, tx)
	})
	if err != nil {
		p.internal(w, r, "start the session", err)
		return
	}
	clearCookie(w, preCookieName)
	p.log.Info("owner: logged in", "remote", r.RemoteAddr)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (p *Pages) logout(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	if err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.DeleteOwnerSession(s.idHash) }); err != nil && !errors.Is(err, store.ErrNotFound) {
		p.internal(w, r, "end the session", err)
		return
	}
	clearCookie(w, CookieName)
	// passphrase=1: a linked tailnet login must not log straight back in.
	http.Redirect(w, r, "/login?passphrase=1", http.StatusSeeOther)
}
