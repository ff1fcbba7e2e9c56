package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// Thumb is the screen after an input as a small JPEG, for the Activity
// page. It is deleted with its operation.
type Thumb struct {
	Width, Height int
	JPEG          []byte
}

// SetOperationThumb stores the thumbnail of operation id (replacing one
// stored before). The operation must exist.
func (t *Tx) SetOperationThumb(id string, th Thumb) error {
	if len(th.JPEG) == 0 || th.Width <= 0 || th.Height <= 0 {
		return fmt.Errorf("store: thumbnail of %s: empty picture (%d×%d, %d bytes)", id, th.Width, th.Height, len(th.JPEG))
	}
	_, err := t.tx.Exec(`INSERT INTO operation_thumbs (operation_id, width, height, jpeg) VALUES (?, ?, ?, ?)
		ON CONFLICT (operation_id) DO UPDATE SET width = excluded.width, height = excluded.height, jpeg = excluded.jpeg`,
		id, th.Width, th.Height, th.JPEG)
	if err != nil {
		return fmt.Errorf("store: thumbnail of %s: %w", id, err)
	}
	return nil
}

// OperationThumb returns operation id's thumbnail, or ErrNotFound when it
// has none (a refused call, a read, an input without an observation, or a
// pruned operation).
func (t *Tx) OperationThumb(id string) (Thumb, error) {
	var th Thumb
	err := t.tx.QueryRow(`SELECT width, height, jpeg FROM operation_thumbs WHERE operation_id = ?`, id).
		Scan(&th.Width, &th.Height, &th.JPEG)
	if errors.Is(err, sql.ErrNoRows) {
		return Thumb{}, ErrNotFound
	}
	if err != nil {
		return Thumb{}, fmt.Errorf("store: thumbnail of %s: %w", id, err)
	}
	return th, nil
}
