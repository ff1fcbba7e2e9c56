package store

import (
	"fmt"
	"time"
)

// Action is one row of the actions log: something done on the box that is
// not a tool call (the owner's claim, logins, approvals, pause and resume;
// a client's pause and resume).
type Action struct {
	ID       int64
	At       time.Time
	Actor    string // "owner" or a client's name
	ClientID string // the client's id when a client acted; "" for the owner
	Action   string // a short verb: "pause", "resume", "login", ...
	Detail   string // a sentence without secrets
}

// InsertAction records a.
func (t *Tx) InsertAction(a Action) error {
	_, err := t.tx.Exec(`INSERT INTO actions (at, actor, client_id, action, detail) VALUES (?, ?, ?, ?, ?)`,
		ms(a.At), a.Actor, a.ClientID, a.Action, a.Detail)
	if err != nil {
		return fmt.Errorf("store: insert action %s: %w", a.Action, err)
	}
	return nil
}

// RecentActions returns up to n actions, newest first.
func (t *Tx) RecentActions(n int) ([]Action, error) {
	rows, err := t.tx.Query(`SELECT id, at, actor, client_id, action, detail FROM actions ORDER BY at DESC, id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: recent actions: %w", err)
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		var a Action
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Actor, &a.ClientID, &a.Action, &a.Detail); err != nil {
			return nil, fmt.Errorf("store: recent actions: %w", err)
		}
		a.At = fromMS(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: recent actions: %w", err)
	}
	return out, nil
}
