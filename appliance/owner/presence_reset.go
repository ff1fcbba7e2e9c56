package owner

import (
	"context"
	"fmt"

	"github.com/openlolo/openlolo/appliance/store"
)

// FactoryReset returns the box to unclaimed, for the button held down ten
// seconds (physical access is the proof, as for the setup code). In one
// transaction it runs the store's FactoryReset, which alone decides what
// goes (the owner, the owner's settings, every client and what they were
// granted, the journal and the watch events) and what stays (the LAN
// certificate, the box name, the settings declared Keep), and stores a new
// setup code; then it writes the code to Config.SetupCodeFile and returns
// it, with the number of rows each table lost. A claim waiting for the
// button is dropped. A full reset, certificate included, is deleting the
// state directory.
func (p *Pages) FactoryReset(ctx context.Context) (code string, lost map[string]int64, err error) {
	if code, err = newSetupCode(); err != nil {
		return "", nil, err
	}
	err = p.st.Update(ctx, func(tx *store.Tx) (err error) {
		if lost, err = tx.FactoryReset(); err != nil {
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
