package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestOwnerRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	t0 := time.UnixMilli(1_700_000_000_000).UTC()

	err := s.View(ctx, func(tx *Tx) error { _, err := tx.Owner(); return err })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Owner() on a new store = %v, want ErrNotFound", err)
	}
	o := Owner{Hash: []byte("hash1"), Salt: []byte("salt1"), TimeCost: 3, MemoryKiB: 65536, Threads: 4, Created: t0, Updated: t0}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetOwner(o) }); err != nil {
		t.Fatal(err)
	}
	o2 := Owner{Hash: []byte("hash2"), Salt: []byte("salt2"), TimeCost: 2, MemoryKiB: 1024, Threads: 1, Created: t0.Add(time.Hour), Updated: t0.Add(time.Hour)}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetOwner(o2) }); err != nil {
		t.Fatal(err)
	}
	var got Owner
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.Owner(); return err }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Hash, o2.Hash) || !bytes.Equal(got.Salt, o2.Salt) || got.TimeCost != 2 || got.MemoryKiB != 1024 || got.Threads != 1 {
		t.Errorf("Owner() = %+v, want the replaced passphrase %+v", got, o2)
	}
	if !got.Created.Equal(t0) || !got.Updated.Equal(t0.Add(time.Hour)) {
		t.Errorf("Owner() times = %v, %v; want created kept %v and updated %v", got.Created, got.Updated, t0, t0.Add(time.Hour))
	}
}

func TestSetupCode(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	get := func() (string, error) {
		var c string
		err := s.View(ctx, func(tx *Tx) (err error) { c, err = tx.SetupCode(); return err })
		return c, err
	}
	if _, err := get(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetupCode() on a new store = %v, want ErrNotFound", err)
	}
	for _, code := range []string{"AAAA4444", "CCCC7777"} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.SetSetupCode(code, time.Now()) }); err != nil {
			t.Fatal(err)
		}
		if c, err := get(); err != nil || c != code {
			t.Fatalf("SetupCode() = %q, %v; want %q", c, err, code)
		}
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.DeleteSetupCode() }); err != nil {
		t.Fatal(err)
	}
	if _, err := get(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetupCode() after delete = %v, want ErrNotFound", err)
	}
}

func TestOwnerSessions(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	a := OwnerSession{IDHash: []byte{1}, Created: t0, LastSeen: t0}
	b := OwnerSession{IDHash: []byte{2}, Created: t0.Add(time.Hour), LastSeen: t0.Add(time.Hour)}
	if err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.InsertOwnerSession(a); err != nil {
			return err
		}
		return tx.InsertOwnerSession(b)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.InsertOwnerSession(a) }); err == nil {
		t.Error("inserting a session with the same hash twice succeeded")
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.TouchOwnerSession(a.IDHash, t0.Add(2*time.Hour)) }); err != nil {
		t.Fatal(err)
	}
	var got OwnerSession
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.OwnerSession(a.IDHash); return err }); err != nil {
		t.Fatal(err)
	}
	if !got.Created.Equal(t0) || !got.LastSeen.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("OwnerSession = %+v, want created %v last seen %v", got, t0, t0.Add(2*time.Hour))
	}
	// Prune: a was created before t0+30m; b was last seen at t0+1h.
	var n int64
	if err := s.Update(ctx, func(tx *Tx) (err error) {
		n, err = tx.PruneOwnerSessions(t0.Add(30*time.Minute), t0.Add(30*time.Minute))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("PruneOwnerSessions deleted %d, want 1", n)
	}
	err := s.View(ctx, func(tx *Tx) error { _, err := tx.OwnerSession(a.IDHash); return err })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("pruned session still found: %v", err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.DeleteOwnerSessions() }); err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error { _, err := tx.OwnerSession(b.IDHash); return err })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("session after DeleteOwnerSessions: %v, want ErrNotFound", err)
	}
}

func TestOwnerFailuresAndLocks(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	if err := s.Update(ctx, func(tx *Tx) error {
		for i := 0; i < 5; i++ {
			if err := tx.InsertOwnerFailure("claim", t0.Add(time.Duration(i)*time.Minute)); err != nil {
				return err
			}
		}
		return tx.InsertOwnerFailure("login", t0)
	}); err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	if err := s.Update(ctx, func(tx *Tx) (err error) { got, err = tx.OwnerFailuresSince("claim", t0.Add(2*time.Minute)); return err }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got[0].Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("OwnerFailuresSince = %v, want 3 from t0+2m", got)
	}
	// The older ones were pruned: even an earlier since sees only 3.
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.OwnerFailuresSince("claim", t0); return err }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("after pruning, %d failures, want 3", len(got))
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.DeleteOwnerFailures("claim") }); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.OwnerFailuresSince("login", t0); return err }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("login failures = %d, want 1 (deleting claim failures must not touch them)", len(got))
	}

	var until time.Time
	if err := s.View(ctx, func(tx *Tx) (err error) { until, err = tx.OwnerLock("claim"); return err }); err != nil || !until.IsZero() {
		t.Fatalf("OwnerLock before any lock = %v, %v; want zero", until, err)
	}
	for _, want := range []time.Time{t0.Add(10 * time.Minute), t0.Add(30 * time.Minute)} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.SetOwnerLock("claim", want) }); err != nil {
			t.Fatal(err)
		}
		if err := s.View(ctx, func(tx *Tx) (err error) { until, err = tx.OwnerLock("claim"); return err }); err != nil || !until.Equal(want) {
			t.Fatalf("OwnerLock = %v, %v; want %v", until, err, want)
		}
	}
}
