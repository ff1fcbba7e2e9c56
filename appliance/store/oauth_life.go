package store

import (
	"fmt"
	"time"
)

// SetGrantLife changes how long the unrevoked grant grantID lasts: its
// life name and its expiry (zero: until removed). It returns ErrNotFound
// when no such unrevoked grant exists.
func (t *Tx) SetGrantLife(grantID, life string, expires time.Time) error {
	res, err := t.tx.Exec(`UPDATE oauth_grants SET life = ?, expires_ms = ? WHERE grant_id = ? AND revoked_ms = 0`,
		life, oauthMS(expires), grantID)
	if err != nil {
		return fmt.Errorf("store: set grant life: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: set grant life: %w", err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
