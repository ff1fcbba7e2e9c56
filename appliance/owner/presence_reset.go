package owner

import (
	"context"
	"fmt"

	"github.com/openlolo/openlolo/appliance/store"
)

// FactoryReset returns the box to unclaimed, for the button held down ten
// seconds (physical access is the proof, as for the setup code). In one
// transaction it forgets the owner (passphrase, sessions, the linked
// tailnet login, failure counts and locks), every client and what they
// were granted (requests, grants, tokens, codes), the operation journal
// and the watch events, and stores a new setup code; then it writes the
// code to Config.SetupCodeFile and returns it, with the number of rows each
// table lost. A claim waiting for the button is dropped.
//
// It keeps what makes the box itself: the LAN certificate (clients that
// pinned it still recognise the box, and the new owner can make a new one
// with serve --rotate-cert), the box name, the journal key, the remote
// entry's on/off choice and the tailnet node's own login. A full reset,
// certificate included, is deleting the state directory.
func (p *Pages) FactoryReset(ctx context.Context) (code string, lost map[string]int64, err error) {
	if code, err = newSetupCode(); err != nil {
		return "", nil, err
	}
	err = p.st.Update(ctx, func(tx *store.Tx) (err error) {
		if lost, err = tx.FactoryReset(); err != nil {
			return err
		}
		if err := tx.DeleteSetting(SettingTailnetLogin); err != nil {
			return err
		}
		return tx.SetSetupCode(code, p.now())
	})
	if err != nil {
		return "", nil, fmt.Errorf("owner: factory reset: %w", err)
	}
	if p.presence != nil {
		p.presence.mu.Lock()
		p.presence.claim = nil
		p.presence.mu.Unlock()
	}
	// SetupCode finds the new code and writes the setup-code file.
	if _, _, err := p.SetupCode(ctx); err != nil {
		return "", nil, err
	}
	return code, lost, nil
}
