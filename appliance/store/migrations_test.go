package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// atVersion makes dir's database as the box at schema version n left it
// and runs rows (SQL statements) on it, so a test can open it with every
// migration and see what the newer ones made of the old rows.
func atVersion(t *testing.T, dir string, n int, rows ...string) {
	t.Helper()
	migs, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", dsn(filepath.Join(dir, FileName), "rwc", "immediate"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	old := &Store{path: filepath.Join(dir, FileName), write: db}
	if err := old.migrate(context.Background(), migs[:n]); err != nil {
		t.Fatal(err)
	}
	for _, q := range rows {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// An ask and an action from before a box named its phones belong to no
// named phone (migration 0013); new ones keep theirs.
func TestMigrationAsksActionsPhone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	atVersion(t, dir, 12,
		`INSERT INTO asks (id, operation_id, client_id, client_name, tool, fingerprint, kind, what, state, created, expires)
			VALUES ('a1', 'op1', 'c1', 'Agent', 'openlolo_launch_app', 'fp', 'app', 'launch Wallet', 'pending', 1, 2)`,
		`INSERT INTO actions (at, actor, action, detail) VALUES (1, 'owner', 'pause', 'paused phone control')`)
	s := openT(t, dir)
	now := time.UnixMilli(5000)
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.InsertAsk(Ask{ID: "a2", OperationID: "op2", ClientID: "c1", Tool: "openlolo_tap", State: AskPending,
			Created: now, Expires: now.Add(time.Minute), Phone: "sim-2"}); err != nil {
			return err
		}
		return tx.InsertAction(Action{At: now, Actor: "owner", Action: "pause", Phone: "sim-2"})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		for id, want := range map[string]string{"a1": "", "a2": "sim-2"} {
			a, err := tx.AskByID(id)
			if err != nil {
				return err
			}
			if a.Phone != want {
				t.Errorf("ask %s: Phone = %q, want %q", id, a.Phone, want)
			}
		}
		acts, err := tx.RecentActions(10)
		if err != nil {
			return err
		}
		if len(acts) != 2 || acts[0].Phone != "sim-2" || acts[1].Phone != "" {
			t.Errorf("RecentActions phones = %+v, want sim-2 then none", acts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
