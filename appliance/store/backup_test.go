package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestBackup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openT(t, t.TempDir())
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetSetting("k", "before the update") }); err != nil {
		t.Fatal(err)
	}
	restored := t.TempDir()
	if err := s.Backup(ctx, filepath.Join(restored, FileName)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(restored, FileName)); st.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", st.Mode().Perm())
	}
	b := openT(t, restored)
	var v string
	if err := b.View(ctx, func(tx *Tx) (err error) { v, err = tx.Setting("k"); return err }); err != nil || v != "before the update" {
		t.Errorf("the backup's setting = %q, %v", v, err)
	}
}

// TestBackupDiskFull: a full disk is reported as ENOSPC (the updater
// tells the owner the data partition is full). /dev/full fails every
// write with ENOSPC.
func TestBackupDiskFull(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	s := openT(t, t.TempDir())
	err := s.Backup(context.Background(), "/dev/full")
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Backup to a full disk = %v, want ENOSPC", err)
	}
}
