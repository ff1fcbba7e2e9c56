package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Pruning bounds the journal, the actions and the events by age and by
// count; unfinished operations are never pruned; a call already journaled
// is not recorded twice.
func TestPruneByAgeAndCount(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	err := s.Update(ctx, func(tx *Tx) error {
		for i := range 10 {
			state := OpSucceeded
			if i == 0 {
				state = OpDispatched // the oldest, but still running
			}
			at := t0.Add(time.Duration(i) * time.Hour)
			if err := tx.InsertOperation(Operation{ID: fmt.Sprint("op", i), ClientID: "c", ClientName: "n", Tool: "openlolo_tap",
				Fingerprint: "f", State: state, Created: at, Updated: at, Summary: "at (0.50, 0.50)", RunID: "r1", RunTitle: "t"}); err != nil {
				return err
			}
			if err := tx.InsertAction(Action{At: at, Actor: "owner", Action: "login"}); err != nil {
				return err
			}
			if _, err := tx.InsertEvent(Event{At: at, Kind: "frame", Data: "{}"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var nOps, nActs, nEv int64
	err = s.Update(ctx, func(tx *Tx) error {
		// Age: before hour 2 goes (op1; op0 is dispatched and stays); count: keep 6.
		var err error
		if nOps, err = tx.PruneOperations(t0.Add(2*time.Hour), 6); err != nil {
			return err
		}
		if nActs, err = tx.PruneActions(t0.Add(2*time.Hour), 5); err != nil {
			return err
		}
		nEv, err = tx.PruneEventsBefore(t0.Add(3 * time.Hour))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// op0 stays (dispatched); op1 by age; op2, op3 beyond the newest 6 (op4..op9).
	if nOps != 3 || nActs != 5 || nEv != 3 {
		t.Fatalf("pruned %d operations, %d actions, %d events; want 3, 5, 3", nOps, nActs, nEv)
	}
	err = s.View(ctx, func(tx *Tx) error {
		ops, err := tx.RecentOperations(100)
		if err != nil {
			return err
		}
		if len(ops) != 7 || ops[len(ops)-1].ID != "op0" || ops[0].Summary != "at (0.50, 0.50)" || ops[0].RunTitle != "t" {
			return fmt.Errorf("kept operations %+v", ops)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wrote [2]bool
	err = s.Update(ctx, func(tx *Tx) error {
		var err error
		if wrote[0], err = tx.InsertCallAction(Action{At: t0, Actor: "n", ClientID: "c", Tool: "openlolo_tap", Outcome: "failed", Code: "PAUSED"}, "op9"); err != nil {
			return err
		}
		wrote[1], err = tx.InsertCallAction(Action{At: t0, Actor: "n", Tool: "openlolo_tap", Outcome: "failed", Code: "PAUSED"}, "new-id")
		return err
	})
	if err != nil || wrote != [2]bool{false, true} {
		t.Fatalf("InsertCallAction wrote %v, %v; want only the call without a journaled operation", wrote, err)
	}
}
