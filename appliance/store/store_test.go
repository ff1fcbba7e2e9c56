package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func openT(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenAppliesMigrationsOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openT(t, dir)
	migs, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(migs) {
		t.Fatalf("Version() = %d, want %d", v, len(migs))
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetSetting("k", "v1") }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening is a no-op: data kept, version unchanged, migrations not rerun
	// (rerunning CREATE TABLE would fail).
	s2 := openT(t, dir)
	if v2, _ := s2.Version(ctx); v2 != v {
		t.Fatalf("Version after reopen = %d, want %d", v2, v)
	}
	var got string
	if err := s2.View(ctx, func(tx *Tx) error {
		var err error
		got, err = tx.Setting("k")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got != "v1" {
		t.Fatalf("Setting(k) = %q, want v1", got)
	}
}

func TestFileModes(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	if err := s.Update(context.Background(), func(tx *Tx) error { return tx.SetSetting("a", "b") }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("stat %s: %v", name, err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", name, st.Mode().Perm())
		}
	}
}

func TestBadFilesRefusedUntouched(t *testing.T) {
	ctx := context.Background()
	// A real database to truncate.
	good := t.TempDir()
	s := openT(t, good)
	if err := s.Update(ctx, func(tx *Tx) error {
		for i := 0; i < 200; i++ {
			if err := tx.SetSetting(string(rune('a'+i%26))+string(rune('a'+i/26)), string(bytes.Repeat([]byte("x"), 500))); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	full, err := os.ReadFile(filepath.Join(good, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) < 3*4096 {
		t.Fatalf("test database too small to truncate: %d bytes", len(full))
	}

	tooNew := t.TempDir()
	s = openT(t, tooNew)
	if _, err := s.write.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	tooNewBytes, _ := os.ReadFile(filepath.Join(tooNew, FileName))

	tests := []struct {
		name    string
		content []byte
		want    error
	}{
		{"garbage", bytes.Repeat([]byte("not a database "), 500), ErrCorrupt},
		{"truncated", full[:len(full)/2], ErrCorrupt},
		{"header only", full[:100], ErrCorrupt},
		{"newer version", tooNewBytes, ErrTooNew},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(ctx, dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open() error = %v, want %v", err, tt.want)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !bytes.Equal(after, tt.content) {
				t.Fatalf("Open() modified the refused file")
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("Open() left %d files in the state dir, want only the refused one", len(ents))
			}
		})
	}
}

func TestUpdateRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetSetting("k", "v"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update() = %v, want boom", err)
	}
	err = s.View(ctx, func(tx *Tx) error { _, err := tx.Setting("k"); return err })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Setting after rollback: %v, want ErrNotFound", err)
	}
}

func TestConcurrentWritersNeverBusy(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 20; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs <- s.Update(ctx, func(tx *Tx) error {
				v, err := tx.Setting("n")
				if err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
				return tx.SetSetting("n", v+"x")
			})
		}()
		go func() {
			defer wg.Done()
			errs <- s.View(ctx, func(tx *Tx) error {
				_, err := tx.Setting("n")
				if errors.Is(err, ErrNotFound) {
					return nil
				}
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n string
	s.View(ctx, func(tx *Tx) error { n, _ = tx.Setting("n"); return nil })
	if len(n) != 20 {
		t.Fatalf("after 20 increments, len = %d (lost updates)", len(n))
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestViewIsReadOnly(t *testing.T) {
	s := openT(t, t.TempDir())
	err := s.View(context.Background(), func(tx *Tx) error { return tx.SetSetting("k", "v") })
	if err == nil {
		t.Fatal("SetSetting in View succeeded, want an error")
	}
}
