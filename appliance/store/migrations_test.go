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

// A grant from before grants named phones reaches every phone (migration
// 0014); a new one reaches the phones it names.
func TestMigrationGrantPhones(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	atVersion(t, dir, 13,
		`INSERT INTO oauth_clients (client_id, name, kind, entry, created_ms) VALUES ('c1', 'Agent', 'device', 'lan', 1)`,
		`INSERT INTO oauth_grants (grant_id, client_id, scopes, entry, life, created_ms) VALUES ('g1', 'c1', 'phone:read', 'lan', 'forever', 1)`)
	s := openT(t, dir)
	err := s.Update(ctx, func(tx *Tx) error {
		return tx.InsertGrant(OAuthGrant{GrantID: "g2", ClientID: "c1", Scopes: []string{"phone:read"}, Entry: "lan", Life: "forever",
			Created: time.UnixMilli(1), Phones: []string{"sim-1", "sim-3"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		old, err := tx.GrantByID("g1")
		if err != nil {
			return err
		}
		if old.Phones != nil || !old.Reaches("sim-2") {
			t.Errorf("the old grant's phones = %q, want every phone", old.Phones)
		}
		g, err := tx.GrantByID("g2")
		if err != nil {
			return err
		}
		if len(g.Phones) != 2 || !g.Reaches("sim-3") || g.Reaches("sim-2") {
			t.Errorf("the new grant's phones = %q, want sim-1 and sim-3", g.Phones)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
