package appliance

import (
	"context"
	"errors"
	"net/http"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/setupnet"
)

// SetupOwner is the box's owner as the setup Wi-Fi network's page needs
// it: being on the setup network proves presence, so an unclaimed box is
// claimed there without the setup code (owner.Pages.ClaimInPerson).
func (b *Box) SetupOwner() setupnet.Owner { return setupOwner{b.owner} }

type setupOwner struct{ p *owner.Pages }

func (o setupOwner) Claimed(ctx context.Context) (bool, error) { return o.p.Claimed(ctx) }

func (o setupOwner) CheckOwnerPassphrase(r *http.Request, pass string) (bool, error) {
	ok, err := o.p.CheckOwnerPassphrase(r, pass)
	var le *owner.LockedError
	if errors.As(err, &le) {
		return false, errors.Join(&setupnet.LockedError{Until: le.Until}, err)
	}
	return ok, err
}

func (o setupOwner) ClaimInPerson(ctx context.Context, pass string) error {
	err := o.p.ClaimInPerson(ctx, pass)
	switch {
	case errors.Is(err, owner.ErrAlreadyClaimed):
		return errors.Join(setupnet.ErrClaimed, err)
	case errors.Is(err, owner.ErrBadPassphrase):
		return errors.Join(setupnet.ErrOwnerPassphrase, err)
	}
	return err
}

// holdReleased is the button held past the reset warning (5 s) and let go
// before the reset (10 s): the setup Wi-Fi network opens, where the box
// has one. (A short press is the claim's proof of presence; a hold to the
// end, the factory reset.)
func (b *Box) holdReleased(ctx context.Context) {
	if b.cfg.WiFi == nil {
		return
	}
	if err := b.cfg.WiFi.OpenSetupNetwork(ctx, "button"); err != nil {
		b.log.Warn("button: open the setup network", "err", err)
		return
	}
	b.log.Info("button: the setup Wi-Fi network is open")
}
