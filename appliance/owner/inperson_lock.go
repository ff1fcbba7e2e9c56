package owner

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// LockedError is CheckOwnerPassphrase's refusal while the request's
// source, or the whole box, is past the login limit.
type LockedError struct {
	Until time.Time // when a try is counted again
	All   bool      // the box-wide limit (many sources), not this one's
}

func (e *LockedError) Error() string {
	who := "this device"
	if e.All {
		who = "many devices"
	}
	return fmt.Sprintf("owner: too many wrong passphrases from %s; locked until %s", who, e.Until.UTC().Format(time.RFC3339))
}

// CheckOwnerPassphrase checks passphrase for a form that is not the login
// (the setup Wi-Fi network's page asks for it to change the Wi-Fi) under
// the login's lock-out: wrong ones count as failed logins of r's source,
// so guesses there and on the login form share one budget (loginTries per
// source, loginTriesAll box-wide, per loginWindow). While locked it
// answers a *LockedError without checking. False on an unclaimed box.
func (p *Pages) CheckOwnerPassphrase(r *http.Request, passphrase string) (bool, error) {
	ctx := r.Context()
	select {
	case p.hashMu <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-p.hashMu }()
	now := p.now()
	until, all, err := p.loginLock(ctx, r, now)
	if err != nil {
		return false, fmt.Errorf("owner: check passphrase: %w", err)
	}
	if !until.IsZero() {
		return false, &LockedError{Until: until, All: all}
	}
	var o store.Owner
	err = p.st.View(ctx, func(tx *store.Tx) (err error) { o, err = tx.Owner(); return err })
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("owner: check passphrase: %w", err)
	}
	if matches(o, passphrase) {
		return true, nil
	}
	if err := p.st.Update(ctx, func(tx *store.Tx) error {
		return tx.InsertOwnerFailure(bucket(kindLogin, sourceOf(r)), now)
	}); err != nil {
		return false, fmt.Errorf("owner: record the wrong passphrase: %w", err)
	}
	p.log.Warn("owner: wrong passphrase on the setup network", "remote", r.RemoteAddr)
	p.record(ctx, actLoginFailed, "a wrong passphrase was entered on the setup Wi-Fi network "+from(r))
	return false, nil
}
