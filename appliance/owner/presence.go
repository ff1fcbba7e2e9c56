package owner

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/store"
)

// Claims by the button.
const (
	// buttonWait is how long a claim waits for the press.
	buttonWait = 2 * time.Minute
	// buttonLogin is how long, after the press, the browser that started
	// the claim is logged in by its next visit; later it logs in with the
	// passphrase like anyone.
	buttonLogin = 2 * time.Minute
	// buttonRefresh is how often the waiting page reloads itself.
	buttonRefresh = 2 // seconds
)

// claimState is where a button claim is.
type claimState int

const (
	claimWaiting   claimState = iota // for the press
	claimConfirmed                   // the press came; the owner is stored
	claimFailed                      // the press came but the box was claimed otherwise
)

// buttonClaim is a claim waiting for the button. It is bound to the
// browser that started it by the hash of that browser's pre-session
// cookie, so nobody else's browser is logged in by the press.
type buttonClaim struct {
	browser [sha256.Size]byte
	owner   store.Owner // the passphrase the person chose, hashed
	remote  string
	started time.Time
	until   time.Time // the press must come before; after a press, the login window's end
	state   claimState
}

// presence holds the one claim that may wait for the button.
type presence struct {
	mu    sync.Mutex
	claim *buttonClaim // nil: none waiting
	login *loginPass   // a browser let through the login lock; nil: none
}

// watchButton starts reading the button's presses when Config.Button is
// set; it stops when the button's channel is closed.
func (p *Pages) watchButton() {
	if p.cfg.Button == nil {
		return
	}
	p.presence = &presence{}
	go func() {
		for ev := range p.cfg.Button {
			if ev.Kind == panel.Press {
				p.pressed(context.Background(), ev.At)
			}
		}
	}()
}

// browserOf is the hash that binds a button claim to the request's
// browser, or false when the browser has no pre-session cookie.
func browserOf(r *http.Request) ([sha256.Size]byte, bool) {
	c, err := r.Cookie(preCookieName)
	if err != nil || c.Value == "" {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256([]byte(c.Value)), true
}

// pressed confirms the waiting claim: the owner it carries becomes the
// box's owner at once, so the claim holds even if the browser never comes
// back (the person then logs in with the passphrase).
func (p *Pages) pressed(ctx context.Context, at time.Time) {
	ps := p.presence
	ps.mu.Lock()
	defer ps.mu.Unlock()
	c := ps.claim
	now := p.now()
	if c == nil || c.state != claimWaiting || !now.Before(c.until) {
		if ps.pressedForLogin(now) {
			p.log.Info("owner: button pressed; the waiting browser may log in past the lock")
			return
		}
		p.log.Info("owner: button pressed; no claim or login is waiting for it")
		return
	}
	err := p.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.Owner(); err == nil {
			return errClaimed
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.SetOwner(c.owner); err != nil {
			return err
		}
		if err := tx.DeleteSetupCode(); err != nil {
			return err
		}
		return tx.DeleteOwnerFailures(kindClaim)
	})
	switch {
	case errors.Is(err, errClaimed):
		c.state = claimFailed
		p.log.Warn("owner: button pressed, but the box was claimed with the setup code first", "remote", c.remote)
	case err != nil:
		// Left waiting: another press may succeed.
		p.log.Error("owner: save the owner claimed with the button", "err", err)
	default:
		c.state, c.until = claimConfirmed, now.Add(buttonLogin)
		p.removeSetupCodeFile()
		p.log.Info("owner: box claimed with the button", "remote", c.remote, "waited", now.Sub(c.started).Round(time.Second))
	}
}

// claimButtonPage is the page that waits for the press.
type claimButtonPage struct {
	basePage
	Until   time.Time
	Seconds int // left to press
}

// claimButtonPost starts a claim that waits for the button (or cancels
// this browser's).
func (p *Pages) claimButtonPost(w http.ResponseWriter, r *http.Request) {
	if p.presence == nil {
		p.message(w, r, http.StatusNotFound, "No button",
			"This box has no button to press (or it is not connected), so it can only be claimed with its setup code.", "Claim this box", "/claim")
		return
	}
	browser, _ := browserOf(r)
	if r.PostFormValue("action") == "cancel" {
		p.presence.mu.Lock()
		if c := p.presence.claim; c != nil && c.browser == browser && c.state == claimWaiting {
			p.presence.claim = nil
		}
		p.presence.mu.Unlock()
		http.Redirect(w, r, "/claim", http.StatusSeeOther)
		return
	}
	release, now, ok := p.claimGate(w, r, true)
	if !ok {
		return
	}
	defer release()
	ctx := r.Context()
	if other, busy := p.otherClaim(browser, now); busy {
		// Someone else's claim waits: a press now would make them the
		// owner, so the person at the box must not be invited to press.
		// This counts as a failed claim, like a wrong code.
		n, until, all, err := p.claimFailure(ctx, r, now)
		if err != nil {
			p.internal(w, r, "record the failed claim", err)
			return
		}
		p.log.Warn("owner: button claim refused: another one is waiting", "remote", r.RemoteAddr, "waiting_from", other.remote, "failures", n)
		if !until.IsZero() {
			p.locked(w, r, until, all)
			return
		}
		w.Header().Set("Retry-After", fmt.Sprint(int(other.until.Sub(now).Seconds()+1)))
		p.showClaim(w, r, http.StatusConflict, fmt.Sprintf(
			"Another claim, started from %s, is waiting for the button. Do not press the button for it unless it is yours. Try again after %s (in %s), or use the setup code.",
			other.remote, other.until.UTC().Format("15:04:05 UTC"), span(other.until.Sub(now))), 0)
		return
	}

	o, ok := p.claimOwner(w, r, now)
	if !ok {
		return
	}
	p.presence.mu.Lock()
	p.presence.claim = &buttonClaim{browser: browser, owner: o, remote: r.RemoteAddr, started: now, until: now.Add(buttonWait)}
	p.presence.mu.Unlock()
	p.log.Info("owner: a claim waits for the button", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/claim/button", http.StatusSeeOther)
}

// otherClaim returns a claim of another browser that still waits for the
// press.
func (p *Pages) otherClaim(browser [sha256.Size]byte, now time.Time) (buttonClaim, bool) {
	p.presence.mu.Lock()
	defer p.presence.mu.Unlock()
	c := p.presence.claim
	if c == nil || c.browser == browser || c.state != claimWaiting || !now.Before(c.until) {
		return buttonClaim{}, false
	}
	return *c, true
}

// claimButtonWait shows this browser's claim: waiting (the page reloads
// itself), or, once the button was pressed, logs the browser in.
func (p *Pages) claimButtonWait(w http.ResponseWriter, r *http.Request) {
	if p.presence == nil {
		http.Redirect(w, r, "/claim", http.StatusSeeOther)
		return
	}
	browser, ok := browserOf(r)
	now := p.now()
	p.presence.mu.Lock()
	c := p.presence.claim
	if !ok || c == nil || c.browser != browser {
		p.presence.mu.Unlock()
		http.Redirect(w, r, "/claim", http.StatusSeeOther)
		return
	}
	cl := *c
	if cl.state != claimWaiting || !now.Before(cl.until) {
		p.presence.claim = nil // each outcome is shown once
	}
	p.presence.mu.Unlock()

	switch {
	case cl.state == claimFailed:
		p.message(w, r, http.StatusConflict, "Already claimed",
			"The button was pressed, but someone claimed this box with the setup code first. Log in with that passphrase, or reset it on the box's console with "+p.resetCommand()+".", "Log in", "/login")
	case cl.state == claimConfirmed && now.Before(cl.until):
		err := p.st.Update(r.Context(), func(tx *store.Tx) error { return p.startSession(r.Context(), w, tx) })
		if err != nil {
			p.internal(w, r, "start your session", err)
			return
		}
		clearCookie(w, preCookieName)
		http.Redirect(w, r, "/status", http.StatusSeeOther)
	case cl.state == claimConfirmed:
		p.message(w, r, http.StatusOK, "Box claimed",
			"The button was pressed and the box is yours. Log in with the passphrase you chose.", "Log in", "/login")
	case !now.Before(cl.until):
		p.showClaim(w, r, http.StatusOK, "The button was not pressed within two minutes, so the box is still unclaimed. Start again, and press the button on the box while this page waits.", 0)
	default:
		if claimed, err := p.claimed(r.Context()); err != nil {
			p.internal(w, r, "read the owner", err)
			return
		} else if claimed {
			p.presence.mu.Lock()
			if p.presence.claim != nil && p.presence.claim.browser == browser {
				p.presence.claim = nil
			}
			p.presence.mu.Unlock()
			p.message(w, r, http.StatusConflict, "Already claimed",
				"Someone claimed this box with the setup code while this page waited for the button. Log in with that passphrase, or reset it on the box's console with "+p.resetCommand()+".", "Log in", "/login")
			return
		}
		tok, err := preToken(w, r)
		if err != nil {
			p.internal(w, r, "make a form token", err)
			return
		}
		w.Header().Set("Refresh", fmt.Sprint(buttonRefresh))
		p.render(w, r, http.StatusOK, "claim_button", &claimButtonPage{
			basePage: basePage{Title: "Press the button", CSRF: tok},
			Until:    cl.until,
			Seconds:  int(cl.until.Sub(now).Seconds()),
		})
	}
}

// claimFailure records a failed claim of r's source and locks claiming
// with the setup code for that source after its fifth within the window,
// or for everyone (all) after claimTriesAll from all sources; it returns
// the source's failures counted and, when it locked, until when.
func (p *Pages) claimFailure(ctx context.Context, r *http.Request, now time.Time) (n int, until time.Time, all bool, err error) {
	src := bucket(kindClaim, sourceOf(r))
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.InsertOwnerFailure(src, now); err != nil {
			return err
		}
		fails, err := tx.OwnerFailuresSince(src, now.Add(-claimWindow))
		if err != nil {
			return err
		}
		n = len(fails)
		total, err := tx.CountOwnerFailures(kindClaim, now.Add(-claimWindow))
		if err != nil {
			return err
		}
		switch {
		case n >= claimTries:
			until = now.Add(claimLock)
			if err := tx.SetOwnerLock(src, until); err != nil {
				return err
			}
			return tx.DeleteOwnerFailures(src)
		case total >= claimTriesAll:
			until, all = now.Add(claimLock), true
			if err := tx.SetOwnerLock(kindClaim, until); err != nil {
				return err
			}
			return tx.DeleteOwnerFailures(kindClaim)
		}
		return nil
	})
	return n, until, all, err
}
