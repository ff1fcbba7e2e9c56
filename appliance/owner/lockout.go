package owner

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// Wrong passphrases and setup codes are counted per source (see sourceOf),
// so a peer on the network that keeps guessing locks out only itself; a
// box-wide count, higher, still bounds guessing from many addresses. When
// the box-wide lock holds, the owner gets through by proving presence: the
// box's button (a press lets one browser try the passphrase, see
// loginButtonPost), a button claim (the claim lock does not apply to it),
// or the console (openlolo owner reset-passphrase).
const (
	loginTriesAll = 30 // failed logins from all sources within loginWindow
	claimTriesAll = 20 // wrong setup codes from all sources within claimWindow
	// passTries is how many passphrases a browser let through by the
	// button may try.
	passTries = 3
)

// sourceOf names the bucket a request's failures count in: the peer's IPv4
// address, or its IPv6 /64 (one host picks any address in its /64).
func sourceOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// bucket is the failure kind of src for kind ("login", "claim").
func bucket(kind, src string) string { return kind + ":" + src }

// loginPass is a browser let through the login lock by a press of the
// box's button.
type loginPass struct {
	browser [sha256.Size]byte
	until   time.Time // the press must come before; after it, the pass ends
	pressed bool
	tries   int
}

// pressedForLogin confirms the browser waiting for a press to log in; it
// reports whether one was waiting. ps.mu is held.
func (ps *presence) pressedForLogin(now time.Time) bool {
	l := ps.login
	if l == nil || l.pressed || !now.Before(l.until) {
		return false
	}
	l.pressed, l.until = true, now.Add(buttonLogin)
	return true
}

// hasPass reports whether r's browser holds a pass with tries left.
func (p *Pages) hasPass(r *http.Request, now time.Time) bool {
	if p.presence == nil {
		return false
	}
	browser, ok := browserOf(r)
	p.presence.mu.Lock()
	defer p.presence.mu.Unlock()
	l := p.presence.login
	return ok && l != nil && l.browser == browser && l.pressed && now.Before(l.until) && l.tries < passTries
}

// usePass counts a try of r's browser's pass; done ends it (logged in).
func (p *Pages) usePass(r *http.Request, done bool) {
	if p.presence == nil {
		return
	}
	browser, _ := browserOf(r)
	p.presence.mu.Lock()
	defer p.presence.mu.Unlock()
	if l := p.presence.login; l != nil && l.browser == browser && l.pressed {
		l.tries++
		if done {
			p.presence.login = nil
		}
	}
}

// loginLock says whether r's source, or the whole box, is past its login
// limit at now, and until when.
func (p *Pages) loginLock(ctx context.Context, r *http.Request, now time.Time) (until time.Time, all bool, err error) {
	src := bucket(kindLogin, sourceOf(r))
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		fails, err := tx.OwnerFailuresSince(src, now.Add(-loginWindow))
		if err != nil {
			return err
		}
		if len(fails) >= loginTries {
			until = fails[len(fails)-loginTries].Add(loginWindow)
		}
		n, err := tx.CountOwnerFailures(kindLogin, now.Add(-loginWindow))
		if err != nil {
			return err
		}
		if n >= loginTriesAll && until.IsZero() {
			until, all = now.Add(loginWindow), true
		}
		return nil
	})
	return until, all, err
}

// lockedLogin shows the login form refusing to check, with the ways
// through that prove presence.
func (p *Pages) lockedLogin(w http.ResponseWriter, r *http.Request, next string, until time.Time, all bool) {
	p.lockedLoginStatus(w, r, http.StatusTooManyRequests, next, until, all)
}

// lockedLoginStatus is lockedLogin answering with status (200 when the
// form is only shown, 429 when a passphrase was refused).
func (p *Pages) lockedLoginStatus(w http.ResponseWriter, r *http.Request, status int, next string, until time.Time, all bool) {
	wait := until.Sub(p.now())
	w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds()+1)))
	who := fmt.Sprintf("from this device %d times", loginTries)
	if all {
		who = fmt.Sprintf("%d times from across the network", loginTriesAll)
	}
	msg := fmt.Sprintf("The passphrase was wrong %s within a minute, so the box stopped checking for a moment. Try again after %s (in %s).",
		who, until.UTC().Format("15:04:05 UTC"), span(wait))
	if p.presence != nil {
		msg += " If you are at the box, press “Log in with the box's button” below and then the button on the box: that lets this browser in at once."
	}
	msg += " On the box's console, " + p.resetCommand() + " also lets you in."
	p.showLoginPage(w, r, status, &loginPage{Next: next, Error: msg, Locked: true, Button: p.presence != nil})
}

// loginButtonPost starts waiting for a press of the box's button to let
// this browser through the login lock (GET /login/button then shows it).
func (p *Pages) loginButtonPost(w http.ResponseWriter, r *http.Request) {
	browser, ok := browserOf(r)
	if p.presence == nil || !ok {
		p.message(w, r, http.StatusNotFound, "No button",
			"This box has no button to press (or it is not connected). On the box's console, run openlolo owner reset-passphrase.", "Log in", "/login")
		return
	}
	next := r.PostFormValue("next")
	if !localPath(next) {
		next = "/status"
	}
	p.presence.mu.Lock()
	p.presence.login = &loginPass{browser: browser, until: p.now().Add(buttonWait)}
	p.presence.mu.Unlock()
	p.log.Info("owner: a login waits for the button", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/login/button?next="+url.QueryEscape(next), http.StatusSeeOther)
}

// loginButtonWait waits for the press (the page reloads itself), then
// sends the browser back to the login form, now let through.
func (p *Pages) loginButtonWait(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if !localPath(next) {
		next = "/status"
	}
	browser, ok := browserOf(r)
	now := p.now()
	var l loginPass
	if p.presence != nil && ok {
		p.presence.mu.Lock()
		if pl := p.presence.login; pl != nil && pl.browser == browser {
			l = *pl
		}
		p.presence.mu.Unlock()
	}
	switch {
	case l.pressed && now.Before(l.until):
		p.showLoginPage(w, r, http.StatusOK, &loginPage{Next: next, Pressed: true})
	case l.until.IsZero() || !now.Before(l.until):
		p.showLoginPage(w, r, http.StatusOK, &loginPage{Next: next,
			Error: "The button was not pressed in time. Try the passphrase again, or ask for the button once more."})
	default:
		w.Header().Set("Refresh", fmt.Sprint(buttonRefresh))
		p.message(w, r, http.StatusOK, "Press the button",
			fmt.Sprintf("Press the button on the box now (before %s). This page reloads itself and lets you log in once the box feels the press.",
				l.until.UTC().Format("15:04:05 UTC")), "", "")
	}
}
