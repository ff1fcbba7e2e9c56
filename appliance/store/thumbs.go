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

// SetOperationThumb stores the thumbnail of clientID's operation id
// (replacing one stored before). The operation must exist: ErrNotFound
// otherwise (pruned meanwhile).
func (t *Tx) SetOperationThumb(clientID, id string, th Thumb) error {
	if len(th.JPEG) == 0 || th.Width <= 0 || th.Height <= 0 {
		return fmt.Errorf("store: thumbnail of %s: empty picture (%d×%d, %d bytes)", id, th.Width, th.Height, len(th.JPEG))
	}
	res, err := t.tx.Exec(`INSERT INTO operation_thumbs (client_id, operation_id, width, height, jpeg)
		SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM operations WHERE client_id = ? AND id = ?)
		ON CONFLICT (client_id, operation_id) DO UPDATE SET width = excluded.width, height = excluded.height, jpeg = excluded.jpeg`,
		clientID, id, th.Width, th.Height, th.JPEG, clientID, id)
	if err != nil {
		return fmt.Errorf("store: thumbnail of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: thumbnail of %s: %w", id, ErrNotFound)
	}
	return nil
}

// OperationThumb returns the thumbnail of clientID's operation id, or
// ErrNotFound when it has none (a refused call, a read, an input without
// an observation, or a pruned operation). With clientID "" it is the
// newest thumbnail of any client's operation id.
func (t *Tx) OperationThumb(clientID, id string) (Thumb, error) {
	var th Thumb
	err := t.tx.QueryRow(`SELECT width, height, jpeg FROM operation_thumbs
		WHERE operation_id = ? AND (? = '' OR client_id = ?) ORDER BY rowid DESC LIMIT 1`, id, clientID, clientID).
		Scan(&th.Width, &th.Height, &th.JPEG)
	if errors.Is(err, sql.ErrNoRows) {
		return Thumb{}, ErrNotFound
	}
	if err != nil {
		return Thumb{}, fmt.Errorf("store: thumbnail of %s: %w", id, err)
	}
	return th, nil
}
