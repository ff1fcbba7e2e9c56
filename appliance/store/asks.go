package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Ask states, as the asks table records them.
const (
	AskPending = "pending"
	AskAllowed = "allowed"
	AskDenied  = "denied"
	AskExpired = "expired"
)

// Ask is one row of the asks table: a call that waits for the owner.
type Ask struct {
	ID          string
	OperationID string
	ClientID    string
	ClientName  string
	Tool        string
	Fingerprint string // the journal's keyed HMAC of tool and arguments
	Kind        string // the mark that made the box ask: app, url, text, input
	Subject     string // the app's bundle id for kind app; "" otherwise
	What        string // the question in words, without secrets
	URL         string // the box page of the ask, on the entry the client called
	State       string // one of the Ask* constants
	Always      bool   // allowed with "always for this client"
	Created     time.Time
	// Expires is when a pending ask expires, or when an allowed one stops
	// waiting for the client's retry.
	Expires time.Time
	Decided time.Time // zero until decided or expired
	// Phone is the id of the phone the call is for.
	Phone string
}

// AskMark is one mark: ask before kind (for subject, an app's bundle id
// when kind is app). ClientID is "" for a box-wide mark; Ask is false for
// a client's exception to a box-wide mark.
type AskMark struct {
	ClientID      string
	Kind, Subject string
	Ask           bool
}

const askColumns = `id, operation_id, client_id, client_name, tool, fingerprint, kind, subject, what, url, state, always, created, expires, decided, phone`

func scanAsk(row interface{ Scan(...any) error }) (Ask, error) {
	var a Ask
	var created, expires, decided int64
	err := row.Scan(&a.ID, &a.OperationID, &a.ClientID, &a.ClientName, &a.Tool, &a.Fingerprint, &a.Kind, &a.Subject,
		&a.What, &a.URL, &a.State, &a.Always, &created, &expires, &decided, &a.Phone)
	a.Created, a.Expires = fromMS(created), fromMS(expires)
	if decided != 0 {
		a.Decided = fromMS(decided)
	}
	return a, err
}

// InsertAsk records a new ask. It fails if its id exists, or its client's
// operation id has an ask.
func (t *Tx) InsertAsk(a Ask) error {
	_, err := t.tx.Exec(`INSERT INTO asks (`+askColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
		a.ID, a.OperationID, a.ClientID, a.ClientName, a.Tool, a.Fingerprint, a.Kind, a.Subject, a.What, a.URL, a.State,
		a.Always, ms(a.Created), ms(a.Expires), a.Phone)
	if err != nil {
		return fmt.Errorf("store: insert ask for %s: %w", a.OperationID, err)
	}
	return nil
}

func (t *Tx) askWhere(what, where string, args ...any) (Ask, error) {
	a, err := scanAsk(t.tx.QueryRow(`SELECT `+askColumns+` FROM asks WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Ask{}, ErrNotFound
	}
	if err != nil {
		return Ask{}, fmt.Errorf("store: %s: %w", what, err)
	}
	return a, nil
}

// AskByID returns the ask with id, or ErrNotFound.
func (t *Tx) AskByID(id string) (Ask, error) { return t.askWhere("ask by id", "id = ?", id) }

// AskByOperation returns the ask of clientID's operation id, or
// ErrNotFound.
func (t *Tx) AskByOperation(clientID, id string) (Ask, error) {
	return t.askWhere("ask by operation", "client_id = ? AND operation_id = ?", clientID, id)
}

// PendingAsks returns the asks still pending at now, oldest first.
func (t *Tx) PendingAsks(now time.Time) ([]Ask, error) {
	rows, err := t.tx.Query(`SELECT `+askColumns+` FROM asks WHERE state = 'pending' AND expires > ? ORDER BY created, id`, ms(now))
	if err != nil {
		return nil, fmt.Errorf("store: pending asks: %w", err)
	}
	defer rows.Close()
	var out []Ask
	for rows.Next() {
		a, err := scanAsk(rows)
		if err != nil {
			return nil, fmt.Errorf("store: pending asks: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending asks: %w", err)
	}
	return out, nil
}

// CountPendingAsks counts the asks still pending at now.
func (t *Tx) CountPendingAsks(now time.Time) (int, error) {
	var n int
	if err := t.tx.QueryRow(`SELECT COUNT(*) FROM asks WHERE state = 'pending' AND expires > ?`, ms(now)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count pending asks: %w", err)
	}
	return n, nil
}

// DecideAsk moves the pending ask id to state (AskAllowed, AskDenied or
// AskExpired) at at; expires is the allowed ask's new deadline for the
// retry. It reports false, changing nothing, when the ask is not pending
// (decided already, or unknown).
func (t *Tx) DecideAsk(id, state string, always bool, at, expires time.Time) (bool, error) {
	res, err := t.tx.Exec(`UPDATE asks SET state = ?, always = ?, decided = ?, expires = ? WHERE id = ? AND state = 'pending'`,
		state, always, ms(at), ms(expires), id)
	if err != nil {
		return false, fmt.Errorf("store: decide ask %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ExpirableAsks returns the pending asks whose time is up at now.
func (t *Tx) ExpirableAsks(now time.Time) ([]Ask, error) {
	rows, err := t.tx.Query(`SELECT `+askColumns+` FROM asks WHERE state = 'pending' AND expires <= ? ORDER BY expires, id`, ms(now))
	if err != nil {
		return nil, fmt.Errorf("store: expirable asks: %w", err)
	}
	defer rows.Close()
	var out []Ask
	for rows.Next() {
		a, err := scanAsk(rows)
		if err != nil {
			return nil, fmt.Errorf("store: expirable asks: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// PruneAsks deletes the asks created before cutoff and returns how many
// went.
func (t *Tx) PruneAsks(cutoff time.Time) (int64, error) {
	res, err := t.tx.Exec(`DELETE FROM asks WHERE created < ?`, ms(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune asks: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// AskMarks returns every mark: the box-wide ones (ClientID "", Ask true)
// and every client's.
func (t *Tx) AskMarks() ([]AskMark, error) {
	rows, err := t.tx.Query(`SELECT '', kind, subject, 1 FROM ask_marks
		UNION ALL SELECT client_id, kind, subject, ask FROM client_ask_marks ORDER BY 1, 2, 3`)
	if err != nil {
		return nil, fmt.Errorf("store: ask marks: %w", err)
	}
	defer rows.Close()
	var out []AskMark
	for rows.Next() {
		var m AskMark
		if err := rows.Scan(&m.ClientID, &m.Kind, &m.Subject, &m.Ask); err != nil {
			return nil, fmt.Errorf("store: ask marks: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: ask marks: %w", err)
	}
	return out, nil
}

// SetBoxAskMarks replaces the box-wide marks with marks (their ClientID
// and Ask are ignored: each is an "ask first").
func (t *Tx) SetBoxAskMarks(marks []AskMark) error {
	if _, err := t.tx.Exec(`DELETE FROM ask_marks`); err != nil {
		return fmt.Errorf("store: set box ask marks: %w", err)
	}
	for _, m := range marks {
		if _, err := t.tx.Exec(`INSERT OR IGNORE INTO ask_marks (kind, subject) VALUES (?, ?)`, m.Kind, m.Subject); err != nil {
			return fmt.Errorf("store: set box ask mark %s %q: %w", m.Kind, m.Subject, err)
		}
	}
	return nil
}

// SetClientAskMark stores one client's mark, replacing its earlier one
// for the same kind and subject.
func (t *Tx) SetClientAskMark(m AskMark) error {
	if m.ClientID == "" {
		return errors.New("store: set client ask mark: no client id")
	}
	_, err := t.tx.Exec(`INSERT INTO client_ask_marks (client_id, kind, subject, ask) VALUES (?, ?, ?, ?)
		ON CONFLICT (client_id, kind, subject) DO UPDATE SET ask = excluded.ask`, m.ClientID, m.Kind, m.Subject, m.Ask)
	if err != nil {
		return fmt.Errorf("store: set client ask mark %s %q: %w", m.Kind, m.Subject, err)
	}
	return nil
}

// SetClientAskMarks replaces client's marks with marks (their ClientID is
// ignored).
func (t *Tx) SetClientAskMarks(client string, marks []AskMark) error {
	if _, err := t.tx.Exec(`DELETE FROM client_ask_marks WHERE client_id = ?`, client); err != nil {
		return fmt.Errorf("store: set client ask marks: %w", err)
	}
	for _, m := range marks {
		m.ClientID = client
		if err := t.SetClientAskMark(m); err != nil {
			return err
		}
	}
	return nil
}
