package store

import (
	"fmt"
	"time"
)

// CallsSince counts each client's tool calls since since: its operations
// (inputs) and its calls logged as actions (reads and refused calls), by
// client id.
func (t *Tx) CallsSince(since time.Time) (map[string]int, error) {
	rows, err := t.tx.Query(`SELECT client_id, COUNT(*) FROM (
		SELECT client_id FROM operations WHERE created >= ?
		UNION ALL
		SELECT client_id FROM actions WHERE at >= ? AND tool != '' AND client_id != ''
	) GROUP BY client_id`, ms(since), ms(since))
	if err != nil {
		return nil, fmt.Errorf("store: calls since: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("store: calls since: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: calls since: %w", err)
	}
	return out, nil
}
