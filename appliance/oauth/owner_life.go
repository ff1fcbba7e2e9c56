package oauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/appliance/store"
)

// SetClientLife changes how long clientID's active grant lasts, counted
// from now: 24 hours, 30 days (renewed on use), or until the owner removes
// it. ErrBadLife for an unknown life, ErrNoClient when the client has no
// active grant.
func (s *Server) SetClientLife(ctx context.Context, clientID string, life Life) error {
	if !life.valid() {
		return ErrBadLife
	}
	now := s.nowUTC()
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		grants, _, err := tx.ActiveGrants(now)
		if err != nil {
			return err
		}
		for _, g := range grants {
			if g.ClientID == clientID {
				return tx.SetGrantLife(g.GrantID, string(life), life.expiry(now))
			}
		}
		return ErrNoClient
	})
	if errors.Is(err, ErrNoClient) {
		return err
	}
	if err != nil {
		return fmt.Errorf("oauth: set life of client %q: %w", clientID, err)
	}
	s.log.Info("oauth: owner changed client's grant life", "client_id", clientID, "life", life)
	return nil
}
