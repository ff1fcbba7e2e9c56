package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func TestOperationsJournal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openT(t, dir)
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	ops := []Operation{
		{ID: "a", ClientID: "c1", ClientName: "one", Tool: "openlolo_tap", Fingerprint: "f1", State: OpQueued},
		{ID: "b", ClientID: "c1", ClientName: "one", Tool: "openlolo_swipe", Fingerprint: "f2", State: OpDispatched},
		{ID: "c", ClientID: "c2", ClientName: "two", Tool: "openlolo_key", Fingerprint: "f3", State: OpSucceeded, Answer: `{"status":"ok"}`},
	}
	err := s.Update(ctx, func(tx *Tx) error {
		for i, op := range ops {
			op.Created = t0.Add(time.Duration(i) * time.Second)
			op.Updated = op.Created
			if err := tx.InsertOperation(op); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dup := s.Update(ctx, func(tx *Tx) error { return tx.InsertOperation(ops[0]) })
	if dup == nil {
		t.Fatal("inserting a duplicate id succeeded")
	}
	bad := ops[0]
	bad.ID, bad.State = "z", "running"
	if err := s.Update(ctx, func(tx *Tx) error { return tx.InsertOperation(bad) }); err == nil {
		t.Fatal("inserting an unknown state succeeded")
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetOperationState("c1", "nope", OpFailed, "", "", t0) }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetOperationState(missing) = %v, want ErrNotFound", err)
	}
	s.Close()

	// A restart: dispatched → outcome_unknown, queued → cancelled, the
	// finished one untouched.
	s = openT(t, dir)
	var n int64
	if err := s.Update(ctx, func(tx *Tx) error {
		var err error
		n, err = tx.InterruptOperations(t0.Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("InterruptOperations changed %d rows, want 2", n)
	}
	want := map[string]string{"a": OpCancelled, "b": OpOutcomeUnknown, "c": OpSucceeded}
	clientOf := map[string]string{"a": "c1", "b": "c1", "c": "c2"}
	var recent []Operation
	err = s.View(ctx, func(tx *Tx) error {
		for id, st := range want {
			op, err := tx.OperationByID(clientOf[id], id)
			if err != nil {
				return err
			}
			if op.State != st {
				t.Errorf("op %s state %s, want %s", id, op.State, st)
			}
		}
		if _, err := tx.OperationByID("c1", "missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("OperationByID(missing) = %v, want ErrNotFound", err)
		}
		var err error
		recent, err = tx.RecentOperations(2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 2 || recent[0].ID != "c" || recent[1].ID != "b" {
		t.Fatalf("RecentOperations(2) = %+v, want c then b", recent)
	}
	if recent[0].Answer != `{"status":"ok"}` || !recent[0].Created.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("round trip lost fields: %+v", recent[0])
	}
}

func TestEvents(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	at := time.UnixMilli(1_700_000_000_000).UTC()
	err := s.Update(ctx, func(tx *Tx) error {
		for i, c := range []string{"", "c1", "c2", "", "c1"} {
			if _, err := tx.InsertEvent(Event{At: at, Kind: "k", ClientID: c, Data: `{}`}); err != nil {
				return err
			}
			_ = i
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		evs, err := tx.EventsAfter(0, "c1", 10)
		if err != nil {
			return err
		}
		var ids []int64
		for _, e := range evs {
			ids = append(ids, e.ID)
		}
		if len(ids) != 4 || ids[0] != 1 || ids[1] != 2 || ids[2] != 4 || ids[3] != 5 {
			t.Errorf("EventsAfter(0, c1) ids = %v, want [1 2 4 5]", ids)
		}
		if err := tx.TrimEvents(2); err != nil {
			return err
		}
		first, last, err := tx.EventBounds()
		if err != nil {
			return err
		}
		if first != 4 || last != 5 {
			t.Errorf("EventBounds after trim = %d, %d; want 4, 5", first, last)
		}
		if err := tx.TrimEvents(0); err != nil {
			return err
		}
		first, last, err = tx.EventBounds()
		if first != 0 || last != 5 {
			t.Errorf("EventBounds when empty = %d, %d; want 0, 5", first, last)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrationOperationIDsPerClient: a file of schema 9 (ids unique
// across clients) keeps its journal, thumbnails and asks through
// migration 10, after which another client may use the same ids (issue
// 22 D4).
func TestMigrationOperationIDsPerClient(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	migs, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{path: filepath.Join(dir, FileName)}
	if old.write, err = sql.Open("sqlite3", dsn(old.path, "rwc", "immediate")); err != nil {
		t.Fatal(err)
	}
	if err := old.migrate(ctx, migs[:9]); err != nil {
		t.Fatal(err)
	}
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	for _, q := range []string{
		`INSERT INTO operations (id, client_id, client_name, tool, fingerprint, state, created, updated) VALUES ('op1', 'c1', 'one', 'openlolo_tap', 'f', 'succeeded', 1, 1)`,
		`INSERT INTO operation_thumbs (operation_id, width, height, jpeg) VALUES ('op1', 2, 3, x'ff')`,
		`INSERT INTO asks (id, operation_id, client_id, client_name, tool, fingerprint, kind, what, state, created, expires) VALUES ('a1', 'op2', 'c1', 'one', 'openlolo_launch_app', 'f', 'app', 'launch', 'pending', 1, 2)`,
	} {
		if _, err := old.write.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.write.Close()

	s := openT(t, dir)
	err = s.Update(ctx, func(tx *Tx) error {
		if op, err := tx.OperationByID("c1", "op1"); err != nil || op.Tool != "openlolo_tap" {
			return fmt.Errorf("c1's op1 after the migration = %+v, %v", op, err)
		}
		if th, err := tx.OperationThumb("c1", "op1"); err != nil || th.Width != 2 {
			return fmt.Errorf("op1's thumbnail after the migration = %+v, %v", th, err)
		}
		if a, err := tx.AskByOperation("c1", "op2"); err != nil || a.ID != "a1" {
			return fmt.Errorf("c1's ask for op2 after the migration = %+v, %v", a, err)
		}
		if err := tx.InsertOperation(Operation{ID: "op1", ClientID: "c2", Tool: "openlolo_key", Fingerprint: "g", State: OpQueued, Created: t0, Updated: t0}); err != nil {
			return fmt.Errorf("c2 taking c1's id: %w", err)
		}
		if _, err := tx.OperationByID("c2", "op2"); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("c2's op2 = %v, want ErrNotFound", err)
		}
		return tx.InsertAsk(Ask{ID: "a2", OperationID: "op2", ClientID: "c2", ClientName: "two", Tool: "openlolo_launch_app",
			Fingerprint: "g", Kind: "app", What: "launch", State: AskPending, Created: t0, Expires: t0.Add(time.Minute)})
	})
	if err != nil {
		t.Fatal(err)
	}
}
