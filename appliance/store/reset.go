package store

import "fmt"

// resetTables are emptied by a factory reset, children before parents so
// the foreign keys hold at every step. Of the settings table, a reset
// removes the settings declared Forget (settingsTable); the box-wide ask
// marks and the files outside the database (the LAN certificate, the box
// name, the tailnet node's state) are not touched.
var resetTables = [...]string{
	"owner_sessions", "owner_failures", "owner_locks", "owner_setup", "owner",
	"oauth_auth_codes", "oauth_tokens", "oauth_device_requests", "oauth_grants", "oauth_clients",
	"events", "operation_thumbs", "operations", "actions", "asks", "client_ask_marks", "phone_names",
}

// FactoryReset forgets the owner and everyone the owner let in: the
// owner's passphrase, sessions, failure counts and locks, the setup code,
// the owner's settings (those declared Forget, such as the linked tailnet
// login), every OAuth client, request, grant, token and code, the
// operation journal, the watch events and the names the owner gave the
// phones (they may name their people). It returns how many rows each
// table lost. Run it inside the same Update that stores the new setup
// code, so a box is never seen without an owner and without a code.
func (t *Tx) FactoryReset() (map[string]int64, error) {
	t.credChanged = true
	out := make(map[string]int64, len(resetTables))
	for _, table := range resetTables {
		res, err := t.tx.Exec("DELETE FROM " + table)
		if err != nil {
			return nil, fmt.Errorf("store: factory reset: empty %s: %w", table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("store: factory reset: %s: %w", table, err)
		}
		out[table] = n
	}
	for _, s := range settingsTable {
		key, reset := s.declaration()
		if reset != Forget {
			continue
		}
		res, err := t.tx.Exec("DELETE FROM settings WHERE key = ?", key)
		if err != nil {
			return nil, fmt.Errorf("store: factory reset: forget setting %q: %w", key, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("store: factory reset: setting %q: %w", key, err)
		}
		out["settings"] += n
	}
	return out, nil
}
