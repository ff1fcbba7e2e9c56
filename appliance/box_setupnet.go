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
