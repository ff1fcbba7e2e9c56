package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Operation states, as the journal records them.
const (
	OpQueued         = "queued"
	OpDispatched     = "dispatched"
	OpSucceeded      = "succeeded"
	OpFailed         = "failed"
	OpCancelled      = "cancelled"
	OpOutcomeUnknown = "outcome_unknown"
)

// Operation is one row of the operation journal.
type Operation struct {
	ID          string
	ClientID    string
	ClientName  string
	Tool        string
	Fingerprint string // hex keyed HMAC of tool and arguments
	State       string // one of the Op* constants
	Code        string // stable error code when the call failed
	Answer      string // the JSON answer, without images or typed text
	Created     time.Time
	Updated     time.Time
	// Summary is the arguments in words, without secrets (which app,
	// which URL, a tap's position, typed text as its length).
	Summary string
	// RunID and RunTitle name the run the call is a step of ("" when none).
	RunID, RunTitle string
	// Phone is the id of the phone the operation was for.
	Phone string
	// ThumbWidth and ThumbHeight are the size of its thumbnail (the
	// screen after the input; OperationThumb), 0 when it has none. Only
	// RecentOperations fills them.
	ThumbWidth, ThumbHeight int
}

// Event is one row of the watch event log; ID is its cursor.
type Event struct {
	ID       int64
	At       time.Time
	Kind     string
	ClientID string // "" for everyone
	Data     string // JSON
	Phone    string // the phone it is about; "" for the box's only phone or none
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// InsertOperation records a new operation. It fails if its client has an
// operation with its id already (ids are per client).
func (t *Tx) InsertOperation(op Operation) error {
	_, err := t.tx.Exec(`INSERT INTO operations
		(id, client_id, client_name, tool, fingerprint, state, code, answer, created, updated, summary, run_id, run_title, phone)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		op.ID, op.ClientID, op.ClientName, op.Tool, op.Fingerprint, op.State, op.Code, op.Answer,
		ms(op.Created), ms(op.Updated), op.Summary, op.RunID, op.RunTitle, op.Phone)
	if err != nil {
		return fmt.Errorf("store: insert operation %s: %w", op.ID, err)
	}
	return nil
}

const opColumns = `id, client_id, client_name, tool, fingerprint, state, code, answer, created, updated, summary, run_id, run_title, phone`

// scanMore scans a row's columns after an operation's into more.
type scanMore struct {
	row  interface{ Scan(...any) error }
	more []any
}

func (s scanMore) Scan(dest ...any) error { return s.row.Scan(append(dest, s.more...)...) }

func scanOperation(row interface{ Scan(...any) error }) (Operation, error) {
	var op Operation
	var created, updated int64
	err := row.Scan(&op.ID, &op.ClientID, &op.ClientName, &op.Tool, &op.Fingerprint,
		&op.State, &op.Code, &op.Answer, &created, &updated, &op.Summary, &op.RunID, &op.RunTitle, &op.Phone)
	op.Created, op.Updated = fromMS(created), fromMS(updated)
	return op, err
}

// OperationByID returns clientID's operation with id, or ErrNotFound.
func (t *Tx) OperationByID(clientID, id string) (Operation, error) {
	op, err := scanOperation(t.tx.QueryRow(`SELECT `+opColumns+` FROM operations WHERE client_id = ? AND id = ?`, clientID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Operation{}, ErrNotFound
	}
	if err != nil {
		return Operation{}, fmt.Errorf("store: operation %s: %w", id, err)
	}
	return op, nil
}

// SetOperationState moves clientID's operation id to state with its error
// code and answer, or returns ErrNotFound.
func (t *Tx) SetOperationState(clientID, id, state, code, answer string, at time.Time) error {
	res, err := t.tx.Exec(`UPDATE operations SET state = ?, code = ?, answer = ?, updated = ? WHERE client_id = ? AND id = ?`,
		state, code, answer, ms(at), clientID, id)
	if err != nil {
		return fmt.Errorf("store: set operation %s to %s: %w", id, state, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RecentOperations returns up to n operations, newest first.
func (t *Tx) RecentOperations(n int) ([]Operation, error) {
	rows, err := t.tx.Query(`SELECT `+opColumns+`, COALESCE(t.width, 0), COALESCE(t.height, 0)
		FROM operations LEFT JOIN (SELECT client_id AS thumb_client, operation_id AS thumb_op, width, height FROM operation_thumbs) t
			ON t.thumb_client = operations.client_id AND t.thumb_op = operations.id
		ORDER BY created DESC, operations.rowid DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: recent operations: %w", err)
	}
	defer rows.Close()
	var ops []Operation
	for rows.Next() {
		var w, h int
		op, err := scanOperation(scanMore{rows, []any{&w, &h}})
		op.ThumbWidth, op.ThumbHeight = w, h
		if err != nil {
			return nil, fmt.Errorf("store: recent operations: %w", err)
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: recent operations: %w", err)
	}
	return ops, nil
}

// InterruptOperations is run at start: operations that were dispatched
// when the box stopped become outcome_unknown (the phone may have seen
// them), queued ones cancelled (nothing reached the phone). Stored answers
// are cleared so a replay reports the new state. It returns how many rows
// changed.
func (t *Tx) InterruptOperations(at time.Time) (int64, error) {
	var total int64
	for _, m := range []struct{ from, to, code string }{
		{OpDispatched, OpOutcomeUnknown, "OUTCOME_UNKNOWN"},
		{OpQueued, OpCancelled, ""},
	} {
		res, err := t.tx.Exec(`UPDATE operations SET state = ?, code = ?, answer = '', updated = ? WHERE state = ?`,
			m.to, m.code, ms(at), m.from)
		if err != nil {
			return total, fmt.Errorf("store: interrupt %s operations: %w", m.from, err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

// InsertEvent appends an event and returns its id (the cursor after it).
func (t *Tx) InsertEvent(e Event) (int64, error) {
	res, err := t.tx.Exec(`INSERT INTO events (at, kind, client_id, data, phone) VALUES (?, ?, ?, ?, ?)`,
		ms(e.At), e.Kind, e.ClientID, e.Data, e.Phone)
	if err != nil {
		return 0, fmt.Errorf("store: insert %s event: %w", e.Kind, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store: insert %s event: %w", e.Kind, err)
	}
	return id, nil
}

// EventsAfter returns up to limit events with an id above after, oldest
// first, that clientID may see (events for everyone and its own).
func (t *Tx) EventsAfter(after int64, clientID string, limit int) ([]Event, error) {
	rows, err := t.tx.Query(`SELECT id, at, kind, client_id, data, phone FROM events
		WHERE id > ? AND (client_id = '' OR client_id = ?) ORDER BY id LIMIT ?`, after, clientID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: events after %d: %w", after, err)
	}
	defer rows.Close()
	var evs []Event
	for rows.Next() {
		var e Event
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Kind, &e.ClientID, &e.Data, &e.Phone); err != nil {
			return nil, fmt.Errorf("store: events after %d: %w", after, err)
		}
		e.At = fromMS(at)
		evs = append(evs, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events after %d: %w", after, err)
	}
	return evs, nil
}

// EventBounds returns the lowest id still kept (0 when none are) and the
// highest id ever given (0 when none was).
func (t *Tx) EventBounds() (first, last int64, err error) {
	var lo sql.NullInt64
	if err := t.tx.QueryRow(`SELECT MIN(id) FROM events`).Scan(&lo); err != nil {
		return 0, 0, fmt.Errorf("store: event bounds: %w", err)
	}
	// sqlite_sequence keeps the highest id even after trimming.
	err = t.tx.QueryRow(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("store: event bounds: %w", err)
	}
	return lo.Int64, last, nil
}

// TrimEvents deletes all but the newest keep events.
func (t *Tx) TrimEvents(keep int) error {
	_, err := t.tx.Exec(`DELETE FROM events WHERE id <= (SELECT MAX(id) FROM events) - ?`, keep)
	if err != nil {
		return fmt.Errorf("store: trim events: %w", err)
	}
	return nil
}

// PruneOperations deletes finished operations (not queued or dispatched)
// created before cutoff, then the oldest finished ones beyond keep. It
// returns how many went. A client retrying an id after it was pruned
// runs it again, so the age is days, far past any retry.
func (t *Tx) PruneOperations(cutoff time.Time, keep int) (int64, error) {
	res, err := t.tx.Exec(`DELETE FROM operations WHERE state NOT IN ('queued', 'dispatched') AND
		(created < ? OR rowid IN (SELECT rowid FROM operations ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET ?))`, ms(cutoff), keep)
	if err != nil {
		return 0, fmt.Errorf("store: prune operations: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// PruneEventsBefore deletes watch events older than cutoff (TrimEvents
// bounds their count).
func (t *Tx) PruneEventsBefore(cutoff time.Time) (int64, error) {
	res, err := t.tx.Exec(`DELETE FROM events WHERE at < ?`, ms(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune events: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
