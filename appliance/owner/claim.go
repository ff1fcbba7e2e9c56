package owner

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// claimPage is the "Claim this box" form.
type claimPage struct {
	basePage
	Error string
	Left  int // tries left before the lock, when the last code was wrong
	// Button offers the claim by the box's button.
	Button bool
}

// claimForm shows the claim form, or sends a claimed box's visitor on.
func (p *Pages) claimForm(w http.ResponseWriter, r *http.Request) {
	ok, err := p.claimed(r.Context())
	if err != nil {
		p.internal(w, r, "read the owner", err)
		return
	}
	if ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if p.claimLockShown(w, r) {
		return
	}
	p.showClaim(w, r, http.StatusOK, "", 0)
}

func (p *Pages) showClaim(w http.ResponseWriter, r *http.Request, status int, msg string, left int) {
	tok, err := preToken(w, r)
	if err != nil {
		p.internal(w, r, "make a form token", err)
		return
	}
	p.render(w, r, status, "claim", &claimPage{basePage: basePage{Title: "Claim this box", CSRF: tok}, Error: msg, Left: left, Button: p.presence != nil})
}

// claimPost checks the setup code and sets the owner's passphrase.
func (p *Pages) claimPost(w http.ResponseWriter, r *http.Request) {
	release, now, ok := p.claimGate(w, r, false)
	if !ok {
		return
	}
	defer release()
	ctx := r.Context()

	var code string
	err := p.st.View(ctx, func(tx *store.Tx) (err error) { code, err = tx.SetupCode(); return err })
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		p.internal(w, r, "read the setup code", err)
		return
	}
	typed := normalizeCode(r.PostFormValue("code"))
	if code == "" || subtle.ConstantTimeCompare([]byte(typed), []byte(code)) != 1 {
		p.wrongCode(w, r, now)
		return
	}

	o, ok := p.claimOwner(w, r, now)
	if !ok {
		return
	}
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.Owner(); err == nil {
			return errClaimed
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.SetOwner(o); err != nil {
			return err
		}
		if err := tx.DeleteSetupCode(); err != nil {
			return err
		}
		if err := tx.DeleteOwnerFailures(kindClaim); err != nil {
			return err
		}
		return p.startSession(ctx, w, tx)
	})
	if errors.Is(err, errClaimed) {
		p.message(w, r, http.StatusConflict, "Already claimed", "Someone claimed this box a moment ago.", "Log in", "/login")
		return
	}
	if err != nil {
		p.internal(w, r, "save the owner", err)
		return
	}
	p.removeSetupCodeFile()
	clearCookie(w, preCookieName)
	p.log.Info("owner: box claimed", "remote", r.RemoteAddr)
	p.record(r.Context(), actClaim, "claimed the box "+from(r))
	http.Redirect(w, r, "/status", http.StatusSeeOther)
}

var errClaimed = errors.New("owner: box already claimed")

// wrongCode records a wrong setup code and locks claiming after the fifth
// within the window.
func (p *Pages) wrongCode(w http.ResponseWriter, r *http.Request, now time.Time) {
	n, until, all, err := p.claimFailure(r.Context(), r, now)
	if err != nil {
		p.internal(w, r, "record the failed claim", err)
		return
	}
	p.log.Warn("owner: wrong setup code", "remote", r.RemoteAddr, "failures", n)
	p.record(r.Context(), actClaimFailed, "a wrong setup code was entered "+from(r))
	if !until.IsZero() {
		p.locked(w, r, until, all)
		return
	}
	p.showClaim(w, r, http.StatusForbidden, "That setup code is wrong. Check the code the box printed and type it again.", claimTries-n)
}

// locked answers 429 while claiming with the setup code is locked for r's
// source, or for everyone (all), naming the ways through that prove
// presence.
func (p *Pages) locked(w http.ResponseWriter, r *http.Request, until time.Time, all bool) {
	wait := until.Sub(p.now())
	w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds()+1)))
	p.message(w, r, http.StatusTooManyRequests, "Claiming is locked", p.claimLockText(until, all), "Try again", "/claim")
}

// claimLockText says why claiming with the setup code is locked until
// when, and the ways through that prove presence.
func (p *Pages) claimLockText(until time.Time, all bool) string {
	wait := until.Sub(p.now())
	who := fmt.Sprintf("%d wrong setup codes were typed from this device", claimTries)
	if all {
		who = fmt.Sprintf("%d wrong setup codes were typed from across the network", claimTriesAll)
	}
	msg := fmt.Sprintf("%s within ten minutes, so the box stopped taking codes for a while. Try again after %s (in %s).",
		who, until.UTC().Format("15:04:05 UTC"), span(wait))
	if p.presence != nil {
		msg += " If you are at the box, claim it with its button instead: the press proves you are there, and the lock does not apply."
	}
	return msg + " On the box's console, " + p.resetCommand() + " claims it too."
}

// claimGate is what every claim passes first, with the setup code or the
// button: the box must be unclaimed and, for the setup code, claiming not
// locked for r's source nor for everyone (a button claim proves presence,
// so no lock applies to it). It takes the claim lock (one claim attempt at
// a time: the lock counts must not race, and the passphrase hash takes
// 64 MiB) and returns its release; when it returns false it has already
// answered.
func (p *Pages) claimGate(w http.ResponseWriter, r *http.Request, button bool) (release func(), now time.Time, ok bool) {
	ctx := r.Context()
	claimed, err := p.claimed(ctx)
	if err != nil {
		p.internal(w, r, "read the owner", err)
		return nil, time.Time{}, false
	}
	if claimed {
		p.message(w, r, http.StatusConflict, "Already claimed",
			"This box already has an owner. Log in with the passphrase, or reset it on the box's console with "+p.resetCommand()+".", "Log in", "/login")
		return nil, time.Time{}, false
	}
	p.hashMu <- struct{}{}
	release = func() { <-p.hashMu }
	now = p.now()
	if button {
		return release, now, true
	}
	var until, all time.Time
	if err := p.st.View(ctx, func(tx *store.Tx) (err error) {
		if until, err = tx.OwnerLock(bucket(kindClaim, sourceOf(r))); err != nil {
			return err
		}
		all, err = tx.OwnerLock(kindClaim)
		return err
	}); err != nil {
		release()
		p.internal(w, r, "read the claim lock", err)
		return nil, time.Time{}, false
	}
	switch {
	case now.Before(until):
		release()
		p.locked(w, r, until, false)
		return nil, time.Time{}, false
	case now.Before(all):
		release()
		p.locked(w, r, all, true)
		return nil, time.Time{}, false
	}
	return release, now, true
}

// claimOwner reads the chosen passphrase and its confirmation from a claim
// form and hashes it into the owner to store; when it returns false it has
// already answered (a passphrase too short or long, or the two differ).
func (p *Pages) claimOwner(w http.ResponseWriter, r *http.Request, now time.Time) (store.Owner, bool) {
	pass := r.PostFormValue("passphrase")
	if err := checkPassphrase(pass); err != nil {
		p.showClaim(w, r, http.StatusBadRequest, "Choose a passphrase of at least 10 characters (and at most 1024 bytes).", 0)
		return store.Owner{}, false
	}
	if pass != r.PostFormValue("confirm") {
		p.showClaim(w, r, http.StatusBadRequest, "The two passphrases differ. Type the same passphrase twice.", 0)
		return store.Owner{}, false
	}
	o, err := hashPassphrase(pass, now)
	if err != nil {
		p.internal(w, r, "hash the passphrase", err)
		return store.Owner{}, false
	}
	return o, true
}
