package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A thumbnail is stored with its operation, listed with it by
// RecentOperations, refused when empty or for an unknown operation, and
// pruned with the operation (same age and count retention).
func TestOperationThumbSavedAndPruned(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	pic := []byte("\xff\xd8 a small jpeg \xff\xd9")
	err := s.Update(ctx, func(tx *Tx) error {
		for i := range 4 {
			at := t0.Add(time.Duration(i) * time.Hour)
			if err := tx.InsertOperation(Operation{ID: fmt.Sprint("op", i), ClientID: "c", Tool: "openlolo_tap",
				Fingerprint: "f", State: OpSucceeded, Created: at, Updated: at}); err != nil {
				return err
			}
			if i == 3 {
				continue // op3 has no thumbnail
			}
			if err := tx.SetOperationThumb("c", fmt.Sprint("op", i), Thumb{Width: 72, Height: 160, JPEG: pic}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetOperationThumb("c", "nope", Thumb{Width: 1, Height: 1, JPEG: pic}); err == nil {
			return errors.New("a thumbnail for an unknown operation was stored")
		}
		if err := tx.SetOperationThumb("c", "op3", Thumb{}); err == nil {
			return errors.New("an empty thumbnail was stored")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		th, err := tx.OperationThumb("c", "op2")
		if err != nil {
			return err
		}
		if th.Width != 72 || th.Height != 160 || !bytes.Equal(th.JPEG, pic) {
			return fmt.Errorf("op2's thumbnail = %d×%d %q", th.Width, th.Height, th.JPEG)
		}
		if _, err := tx.OperationThumb("c", "op3"); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("op3's thumbnail: err %v, want ErrNotFound", err)
		}
		ops, err := tx.RecentOperations(10)
		if err != nil {
			return err
		}
		if len(ops) != 4 || ops[0].ID != "op3" || ops[0].ThumbWidth != 0 || ops[1].ThumbWidth != 72 || ops[1].ThumbHeight != 160 {
			return fmt.Errorf("recent operations %+v: want op3 without a thumbnail, then op2 with 72×160", ops)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// op0 goes by age, op1 beyond the newest 2: their thumbnails go too.
	err = s.Update(ctx, func(tx *Tx) error {
		_, err := tx.PruneOperations(t0.Add(time.Hour), 2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		for id, want := range map[string]bool{"op0": false, "op1": false, "op2": true} {
			_, err := tx.OperationThumb("c", id)
			if got := err == nil; got != want {
				return fmt.Errorf("after pruning, %s's thumbnail kept = %v (err %v), want %v", id, got, err, want)
			}
		}
		var n int
		if err := tx.tx.QueryRow(`SELECT COUNT(*) FROM operation_thumbs`).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("%d thumbnails left, want 1", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
