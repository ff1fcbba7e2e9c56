package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Backup writes a consistent copy of the database to path, which must not
// exist (VACUUM INTO: one transaction's view, without the WAL), and syncs
// it. An error wraps syscall.ENOSPC when the disk filled up.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := s.write.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrFull || errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("store: backup to %s: %w (%v)", path, syscall.ENOSPC, err)
		}
		return fmt.Errorf("store: backup to %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("store: backup: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}
