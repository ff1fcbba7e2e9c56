package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Owner is the claimed box's owner: the argon2id hash of the passphrase,
// its salt and the parameters it was made with.
type Owner struct {
	Hash      []byte
	Salt      []byte
	TimeCost  uint32
	MemoryKiB uint32
	Threads   uint8
	Created   time.Time
	Updated   time.Time
}

// OwnerSession is one owner login on the box page. IDHash is the SHA-256 of
// the cookie value; the value itself is never stored.
type OwnerSession struct {
	IDHash   []byte
	Created  time.Time
	LastSeen time.Time
	// UserAgent is the browser's User-Agent header as last seen ("" until
	// the session's first page after the login).
	UserAgent string
}

// MaxUserAgent is how much of a User-Agent header a session keeps.
const MaxUserAgent = 512

// Owner returns the box's owner, or ErrNotFound while the box is unclaimed.
func (t *Tx) Owner() (Owner, error) {
	var o Owner
	var created, updated int64
	err := t.tx.QueryRow(`SELECT hash, salt, time_cost, memory_kib, threads, created, updated
		FROM owner WHERE id = 1`).Scan(&o.Hash, &o.Salt, &o.TimeCost, &o.MemoryKiB, &o.Threads, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Owner{}, ErrNotFound
	}
	if err != nil {
		return Owner{}, fmt.Errorf("store: owner: %w", err)
	}
	o.Created, o.Updated = ownerTime(created), ownerTime(updated)
	return o, nil
}

// SetOwner stores o as the owner, replacing the passphrase of an existing
// one (its Created time is then kept).
func (t *Tx) SetOwner(o Owner) error {
	_, err := t.tx.Exec(`INSERT INTO owner(id, hash, salt, time_cost, memory_kib, threads, created, updated)
		VALUES(1, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET hash = excluded.hash, salt = excluded.salt,
			time_cost = excluded.time_cost, memory_kib = excluded.memory_kib,
			threads = excluded.threads, updated = excluded.updated`,
		o.Hash, o.Salt, o.TimeCost, o.MemoryKiB, o.Threads, ownerMillis(o.Created), ownerMillis(o.Updated))
	if err != nil {
		return fmt.Errorf("store: set owner: %w", err)
	}
	return nil
}

// SetupCode returns the unclaimed box's setup code, or ErrNotFound if none
// was made yet (or the box was claimed).
func (t *Tx) SetupCode() (string, error) {
	var code string
	err := t.tx.QueryRow("SELECT code FROM owner_setup WHERE id = 1").Scan(&code)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("store: setup code: %w", err)
	}
	return code, nil
}

// SetSetupCode stores the setup code, replacing any earlier one.
func (t *Tx) SetSetupCode(code string, created time.Time) error {
	_, err := t.tx.Exec(`INSERT INTO owner_setup(id, code, created) VALUES(1, ?, ?)
		ON CONFLICT(id) DO UPDATE SET code = excluded.code, created = excluded.created`, code, ownerMillis(created))
	if err != nil {
		return fmt.Errorf("store: set setup code: %w", err)
	}
	return nil
}

// DeleteSetupCode voids the setup code (at the claim).
func (t *Tx) DeleteSetupCode() error {
	if _, err := t.tx.Exec("DELETE FROM owner_setup"); err != nil {
		return fmt.Errorf("store: delete setup code: %w", err)
	}
	return nil
}

// InsertOwnerSession stores a new owner session.
func (t *Tx) InsertOwnerSession(s OwnerSession) error {
	_, err := t.tx.Exec("INSERT INTO owner_sessions(id_hash, created, last_seen) VALUES(?, ?, ?)",
		s.IDHash, ownerMillis(s.Created), ownerMillis(s.LastSeen))
	if err != nil {
		return fmt.Errorf("store: insert owner session: %w", err)
	}
	return nil
}

// OwnerSession returns the session whose cookie hashes to idHash, or
// ErrNotFound.
func (t *Tx) OwnerSession(idHash []byte) (OwnerSession, error) {
	var created, seen int64
	var ua string
	err := t.tx.QueryRow("SELECT created, last_seen, user_agent FROM owner_sessions WHERE id_hash = ?", idHash).Scan(&created, &seen, &ua)
	if errors.Is(err, sql.ErrNoRows) {
		return OwnerSession{}, ErrNotFound
	}
	if err != nil {
		return OwnerSession{}, fmt.Errorf("store: owner session: %w", err)
	}
	return OwnerSession{IDHash: idHash, Created: ownerTime(created), LastSeen: ownerTime(seen), UserAgent: ua}, nil
}

// TouchOwnerSession records that the session was used at seen.
func (t *Tx) TouchOwnerSession(idHash []byte, seen time.Time) error {
	if _, err := t.tx.Exec("UPDATE owner_sessions SET last_seen = ? WHERE id_hash = ?", ownerMillis(seen), idHash); err != nil {
		return fmt.Errorf("store: touch owner session: %w", err)
	}
	return nil
}

// SetOwnerSessionAgent records the browser's User-Agent header on the
// session (cut to MaxUserAgent bytes).
func (t *Tx) SetOwnerSessionAgent(idHash []byte, ua string) error {
	if len(ua) > MaxUserAgent {
		ua = ua[:MaxUserAgent]
	}
	if _, err := t.tx.Exec("UPDATE owner_sessions SET user_agent = ? WHERE id_hash = ?", ua, idHash); err != nil {
		return fmt.Errorf("store: owner session agent: %w", err)
	}
	return nil
}

// DeleteOwnerSession ends one session (logout, expiry).
func (t *Tx) DeleteOwnerSession(idHash []byte) error {
	if _, err := t.tx.Exec("DELETE FROM owner_sessions WHERE id_hash = ?", idHash); err != nil {
		return fmt.Errorf("store: delete owner session: %w", err)
	}
	return nil
}

// DeleteOwnerSessions ends every owner session (passphrase reset).
func (t *Tx) DeleteOwnerSessions() error {
	if _, err := t.tx.Exec("DELETE FROM owner_sessions"); err != nil {
		return fmt.Errorf("store: delete owner sessions: %w", err)
	}
	return nil
}

// PruneOwnerSessions deletes sessions created before createdBefore or last
// used before seenBefore, and returns how many it deleted.
func (t *Tx) PruneOwnerSessions(createdBefore, seenBefore time.Time) (int64, error) {
	res, err := t.tx.Exec("DELETE FROM owner_sessions WHERE created < ? OR last_seen < ?",
		ownerMillis(createdBefore), ownerMillis(seenBefore))
	if err != nil {
		return 0, fmt.Errorf("store: prune owner sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// InsertOwnerFailure records a failed attempt of kind ("claim", "login") at
// the given time.
func (t *Tx) InsertOwnerFailure(kind string, at time.Time) error {
	if _, err := t.tx.Exec("INSERT INTO owner_failures(kind, at) VALUES(?, ?)", kind, ownerMillis(at)); err != nil {
		return fmt.Errorf("store: insert owner failure: %w", err)
	}
	return nil
}

// OwnerFailuresSince returns the times of kind's failures at or after
// since, oldest first, and deletes older ones.
func (t *Tx) OwnerFailuresSince(kind string, since time.Time) ([]time.Time, error) {
	if t.writable {
		if _, err := t.tx.Exec("DELETE FROM owner_failures WHERE kind = ? AND at < ?", kind, ownerMillis(since)); err != nil {
			return nil, fmt.Errorf("store: prune owner failures: %w", err)
		}
	}
	rows, err := t.tx.Query("SELECT at FROM owner_failures WHERE kind = ? AND at >= ? ORDER BY at", kind, ownerMillis(since))
	if err != nil {
		return nil, fmt.Errorf("store: owner failures: %w", err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, fmt.Errorf("store: owner failures: %w", err)
		}
		out = append(out, ownerTime(at))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: owner failures: %w", err)
	}
	return out, nil
}

// CountOwnerFailures counts the failures at or after since of kind and of
// every kind "kind:<source>" (the per-source buckets), and deletes older
// ones of them.
func (t *Tx) CountOwnerFailures(kind string, since time.Time) (int, error) {
	if t.writable {
		if _, err := t.tx.Exec("DELETE FROM owner_failures WHERE (kind = ?1 OR substr(kind, 1, length(?1) + 1) = ?1 || ':') AND at < ?2",
			kind, ownerMillis(since)); err != nil {
			return 0, fmt.Errorf("store: prune owner failures: %w", err)
		}
	}
	var n int
	err := t.tx.QueryRow("SELECT count(*) FROM owner_failures WHERE (kind = ?1 OR substr(kind, 1, length(?1) + 1) = ?1 || ':') AND at >= ?2",
		kind, ownerMillis(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count owner failures: %w", err)
	}
	return n, nil
}

// DeleteOwnerFailures forgets kind's failures, and those of every source
// bucket "kind:<source>" (after a lock is set or a success).
func (t *Tx) DeleteOwnerFailures(kind string) error {
	if _, err := t.tx.Exec("DELETE FROM owner_failures WHERE kind = ?1 OR substr(kind, 1, length(?1) + 1) = ?1 || ':'", kind); err != nil {
		return fmt.Errorf("store: delete owner failures: %w", err)
	}
	return nil
}

// OwnerLock returns until when kind is locked; the zero time if it is not.
func (t *Tx) OwnerLock(kind string) (time.Time, error) {
	var until int64
	err := t.tx.QueryRow("SELECT until FROM owner_locks WHERE kind = ?", kind).Scan(&until)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: owner lock: %w", err)
	}
	return ownerTime(until), nil
}

// SetOwnerLock locks kind until the given time.
func (t *Tx) SetOwnerLock(kind string, until time.Time) error {
	_, err := t.tx.Exec(`INSERT INTO owner_locks(kind, until) VALUES(?, ?)
		ON CONFLICT(kind) DO UPDATE SET until = excluded.until`, kind, ownerMillis(until))
	if err != nil {
		return fmt.Errorf("store: set owner lock: %w", err)
	}
	return nil
}

func ownerMillis(t time.Time) int64 { return t.UnixMilli() }

func ownerTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
