package owner

import (
	"context"
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/appliance/store"
)

// ErrAlreadyClaimed is ClaimInPerson's answer on a box that has an owner.
var ErrAlreadyClaimed = errClaimed

// ErrBadPassphrase is ClaimInPerson's answer to a passphrase under 10
// characters or over MaxPassphrase bytes.
var ErrBadPassphrase = errors.New("owner: choose a passphrase of at least 10 characters (and at most 1024 bytes)")

// Claimed reports whether the box has an owner.
func (p *Pages) Claimed(ctx context.Context) (bool, error) { return p.claimed(ctx) }

// ClaimInPerson claims an unclaimed box with passphrase, without the setup
// code. It is for a presence source other than the button, whose caller
// has already established that the person is at the box: the setup Wi-Fi
// network (appliance/setupnet), which only someone holding the setup card
// and in radio range can join. Like a button claim, no claim lock applies.
// The setup code is deleted as on every claim. No session is started: the
// setup network is plain HTTP, where the session cookie (Secure) cannot
// live; the owner logs in on the LAN address afterwards.
func (p *Pages) ClaimInPerson(ctx context.Context, passphrase string) error {
	if err := checkPassphrase(passphrase); err != nil {
		return ErrBadPassphrase
	}
	p.hashMu <- struct{}{}
	defer func() { <-p.hashMu }()
	now := p.now()
	o, err := hashPassphrase(passphrase, now)
	if err != nil {
		return fmt.Errorf("owner: claim in person: hash: %w", err)
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
		return tx.DeleteOwnerFailures(kindClaim)
	})
	if errors.Is(err, errClaimed) {
		return ErrAlreadyClaimed
	}
	if err != nil {
		return fmt.Errorf("owner: claim in person: %w", err)
	}
	p.removeSetupCodeFile()
	p.record(ctx, actClaim, "claimed the box on the setup Wi-Fi network")
	p.log.Info("owner: box claimed in person (setup network)")
	return nil
}

// IsOwnerPassphrase reports whether passphrase is the owner's; false on an
// unclaimed box. One check at a time (each hash takes 64 MiB), which also
// slows guessing.
func (p *Pages) IsOwnerPassphrase(ctx context.Context, passphrase string) (bool, error) {
	var o store.Owner
	err := p.st.View(ctx, func(tx *store.Tx) (err error) { o, err = tx.Owner(); return err })
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("owner: check passphrase: %w", err)
	}
	p.hashMu <- struct{}{}
	defer func() { <-p.hashMu }()
	return matches(o, passphrase), nil
}
