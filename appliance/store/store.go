package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// FileName is the database file's name inside the state directory.
const FileName = "openlolo.db"

// Errors Open returns; test them with errors.Is.
var (
	// ErrCorrupt means the file exists but is not a healthy SQLite
	// database. It was not modified.
	ErrCorrupt = errors.New("store: database file is corrupt or not a database")
	// ErrTooNew means a newer version of the box wrote the file. It was not
	// modified.
	ErrTooNew = errors.New("store: database was written by a newer version")
	// ErrNotFound is returned by typed getters when no row matches.
	ErrNotFound = errors.New("store: not found")
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the open database. It is safe for concurrent use.
type Store struct {
	path  string
	write *sql.DB // one connection, BEGIN IMMEDIATE
	read  *sql.DB // read-only pool

	// credGen counts the write transactions that took a credential away
	// (see CredentialGeneration).
	credGen atomic.Uint64

	closeOnce sync.Once
	closeErr  error
}

// CredentialGeneration changes whenever a committed write may have made a
// valid access token invalid or changed who it names: a grant revoked or
// its expiry set, access tokens deleted, a client renamed, a prune, a
// factory reset. A cache of bearer checks stays valid only while the
// generation it read before its query is still current. It moves before
// and after the commit, so no reader can tag pre-commit data with the
// post-commit value.
func (s *Store) CredentialGeneration() uint64 { return s.credGen.Load() }

// Open opens (creating if needed) openlolo.db in dir, checks it, and applies
// pending migrations. dir must exist.
func Open(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, FileName)
	migs, err := migrations()
	if err != nil {
		return nil, err
	}
	if err := checkExisting(ctx, path, len(migs)); err != nil {
		return nil, err
	}
	// Create the file ourselves so its mode is 0600 from the first byte;
	// SQLite gives the -wal and -shm files the same mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	f.Close()
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("store: chmod %s: %w", path, err)
	}

	s := &Store{path: path}
	s.write, err = sql.Open("sqlite3", dsn(path, "rw", "immediate"))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s.write.SetMaxOpenConns(1)
	if err := s.migrate(ctx, migs); err != nil {
		s.write.Close()
		return nil, err
	}
	s.read, err = sql.Open("sqlite3", dsn(path, "ro", "deferred"))
	if err != nil {
		s.write.Close()
		return nil, fmt.Errorf("store: open %s read-only: %w", path, err)
	}
	s.read.SetMaxOpenConns(4)
	return s, nil
}

func dsn(path, mode, txlock string) string {
	v := url.Values{}
	v.Set("mode", mode)
	v.Set("_txlock", txlock)
	v.Set("_busy_timeout", "10000")
	v.Set("_foreign_keys", "on")
	v.Set("_synchronous", "FULL")
	if mode == "rw" {
		v.Set("_journal_mode", "WAL")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
}

// checkExisting opens an existing, non-empty file read-only and refuses it
// if SQLite cannot read it or a newer schema wrote it, before anything could
// write to it.
func checkExisting(ctx context.Context, path string, known int) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && st.Size() == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	// immutable=1: SQLite neither writes nor creates -wal/-shm files; an
	// existing -wal is then ignored, which is fine for this check.
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil {
		return corrupt(path, err)
	}
	if res != "ok" {
		return fmt.Errorf("%w: %s: quick_check says %q; move it aside to start afresh, or restore a backup", ErrCorrupt, path, res)
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return corrupt(path, err)
	}
	if version > known {
		return fmt.Errorf("%w: %s has schema %d, this box knows up to %d; run the newer openlolo or restore a backup", ErrTooNew, path, version, known)
	}
	return nil
}

func corrupt(path string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt) {
		return fmt.Errorf("%w: %s: %v; move it aside to start afresh, or restore a backup", ErrCorrupt, path, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
}

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var migs []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("store: migration %q is not named NNNN_name.sql", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		migs = append(migs, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].version < migs[j].version })
	for i, m := range migs {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migrations must be numbered 1..n without gaps; %s is number %d", m.name, i+1)
		}
	}
	return migs, nil
}

// migrate applies every migration above the file's user_version in one
// transaction.
func (s *Store) migrate(ctx context.Context, migs []migration) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: begin: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: migrate: read version: %w", err)
	}
	if version > len(migs) {
		return fmt.Errorf("%w: %s has schema %d, this box knows up to %d", ErrTooNew, s.path, version, len(migs))
	}
	if version == len(migs) {
		return nil
	}
	for _, m := range migs[version:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("store: migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migs))); err != nil {
		return fmt.Errorf("store: migrate: set version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: commit: %w", err)
	}
	return nil
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// Version is the schema version of the open file.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.read.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("store: read version: %w", err)
	}
	return v, nil
}

// Tx is one transaction. The typed methods for each subject are defined on
// it in the files named for that subject. A Tx must not be used after the
// function it was passed to returns.
type Tx struct {
	tx       *sql.Tx
	writable bool
	// credChanged: this transaction took a credential away (see
	// Store.CredentialGeneration).
	credChanged bool
}

// Update runs fn in a write transaction (BEGIN IMMEDIATE on the single
// writer connection) and commits if fn returns nil; otherwise it rolls back
// and returns fn's error.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	return s.run(ctx, s.write, true, fn)
}

// View runs fn in a read-only transaction that sees one consistent snapshot.
func (s *Store) View(ctx context.Context, fn func(*Tx) error) error {
	return s.run(ctx, s.read, false, fn)
}

func (s *Store) run(ctx context.Context, db *sql.DB, writable bool, fn func(*Tx) error) error {
	sqltx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: !writable})
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer sqltx.Rollback()
	tx := &Tx{tx: sqltx, writable: writable}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.credChanged {
		s.credGen.Add(1)
		defer s.credGen.Add(1)
	}
	if err := sqltx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns an error wrapping
// ErrCorrupt unless SQLite answers "ok".
func (s *Store) IntegrityCheck(ctx context.Context) error {
	rows, err := s.read.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return fmt.Errorf("store: integrity check: %w", err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return fmt.Errorf("%w: integrity_check: %s", ErrCorrupt, strings.Join(msgs, "; "))
	}
	return nil
}

// Close checkpoints the WAL and closes the database. It is safe to call more
// than once; later calls return the first call's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		errR := s.read.Close()
		_, _ = s.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		errW := s.write.Close()
		s.closeErr = errors.Join(errR, errW)
	})
	return s.closeErr
}
