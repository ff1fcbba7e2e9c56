package store

import (
	"bytes"
	"fmt"
)

// OwnerSessions lists every owner session, the most recently used first.
func (t *Tx) OwnerSessions() ([]OwnerSession, error) {
	rows, err := t.tx.Query("SELECT id_hash, created, last_seen, user_agent FROM owner_sessions ORDER BY last_seen DESC, created DESC")
	if err != nil {
		return nil, fmt.Errorf("store: owner sessions: %w", err)
	}
	defer rows.Close()
	var out []OwnerSession
	for rows.Next() {
		var s OwnerSession
		var created, seen int64
		if err := rows.Scan(&s.IDHash, &created, &seen, &s.UserAgent); err != nil {
			return nil, fmt.Errorf("store: owner sessions: %w", err)
		}
		s.Created, s.LastSeen = ownerTime(created), ownerTime(seen)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: owner sessions: %w", err)
	}
	return out, nil
}

// DeleteOwnerSessionsExcept ends every owner session but keep's and
// returns how many it ended.
func (t *Tx) DeleteOwnerSessionsExcept(keep []byte) (int, error) {
	all, err := t.OwnerSessions()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range all {
		if bytes.Equal(s.IDHash, keep) {
			continue
		}
		if _, err := t.tx.Exec("DELETE FROM owner_sessions WHERE id_hash = ?", s.IDHash); err != nil {
			return n, fmt.Errorf("store: delete owner session: %w", err)
		}
		n++
	}
	return n, nil
}
