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
	Detail   string // a sentence without secrets; a call's arguments' summary
	// Tool, Outcome and Code are set for a tool call that left no
	// operation (a read, or a refused call).
	Tool, Outcome, Code string
	// RunID and RunTitle name the run a call is a step of.
	RunID, RunTitle string
	// Phone is the id of the phone the action was on; "" for the box's
	// own (a login, an approval) and for every phone at once.
	Phone string
}

// InsertAction records a.
func (t *Tx) InsertAction(a Action) error {
	_, err := t.tx.Exec(`INSERT INTO actions (at, actor, client_id, action, detail, tool, outcome, code, run_id, run_title, phone)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ms(a.At), a.Actor, a.ClientID, a.Action, a.Detail, a.Tool, a.Outcome, a.Code, a.RunID, a.RunTitle, a.Phone)
	if err != nil {
		return fmt.Errorf("store: insert action %s: %w", a.Action, err)
	}
	return nil
}

// RecentActions returns up to n actions, newest first.
func (t *Tx) RecentActions(n int) ([]Action, error) {
	rows, err := t.tx.Query(`SELECT id, at, actor, client_id, action, detail, tool, outcome, code, run_id, run_title, phone FROM actions ORDER BY at DESC, id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: recent actions: %w", err)
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		var a Action
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Actor, &a.ClientID, &a.Action, &a.Detail, &a.Tool, &a.Outcome, &a.Code, &a.RunID, &a.RunTitle, &a.Phone); err != nil {
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

// InsertCallAction records a tool call as an action unless an operation
// with operationID exists (the journal has it already). It reports
// whether it wrote.
func (t *Tx) InsertCallAction(a Action, operationID string) (bool, error) {
	if operationID != "" {
		var n int
		if err := t.tx.QueryRow(`SELECT COUNT(*) FROM operations WHERE client_id = ? AND id = ?`, a.ClientID, operationID).Scan(&n); err != nil {
			return false, fmt.Errorf("store: insert call action: %w", err)
		}
		if n > 0 {
			return false, nil
		}
	}
	return true, t.InsertAction(a)
}

// PruneActions deletes actions older than cutoff, then the oldest beyond
// keep, and returns how many went.
func (t *Tx) PruneActions(cutoff time.Time, keep int) (int64, error) {
	res, err := t.tx.Exec(`DELETE FROM actions WHERE at < ? OR id IN
		(SELECT id FROM actions ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?)`, ms(cutoff), keep)
	if err != nil {
		return 0, fmt.Errorf("store: prune actions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Retention of the journal, the actions and the watch events: each is
// pruned by age and by count (the box page's Activity footer says so).
const (
	// KeepAge is how long operations, actions and events are kept.
	KeepAge = 30 * 24 * time.Hour
	// KeepOperations is how many finished operations are kept at most.
	KeepOperations = 10000
	// KeepActions is how many actions (owner actions, reads, refused
	// calls) are kept at most.
	KeepActions = 10000
)

// Prune applies the retention at now: operations, actions and events
// older than KeepAge, finished operations beyond KeepOperations and
// actions beyond KeepActions go. It returns how many rows went.
func (t *Tx) Prune(now time.Time) (int64, error) {
	cutoff := now.Add(-KeepAge)
	a, err := t.PruneOperations(cutoff, KeepOperations)
	if err != nil {
		return 0, err
	}
	b, err := t.PruneActions(cutoff, KeepActions)
	if err != nil {
		return 0, err
	}
	c, err := t.PruneEventsBefore(cutoff)
	if err != nil {
		return 0, err
	}
	d, err := t.PruneAsks(cutoff)
	return a + b + c + d, err
}
