package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAsks(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	now := time.UnixMilli(1_800_000_000_000).UTC()
	a := Ask{ID: "a1", OperationID: "op1", ClientID: "c1", ClientName: "nightly", Tool: "openlolo_launch_app",
		Fingerprint: "f", Kind: "app", Subject: "com.apple.Passbook", What: "launch Wallet", State: AskPending,
		Created: now, Expires: now.Add(10 * time.Minute)}
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.InsertAsk(a); err != nil {
			return err
		}
		b := a
		b.ID = "a2"
		if err := tx.InsertAsk(b); err == nil {
			t.Error("a second ask for the same operation id was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		got, err := tx.AskByOperation("c1", "op1")
		if err != nil {
			return err
		}
		if got != a {
			t.Errorf("AskByOperation = %+v, want %+v", got, a)
		}
		if _, err := tx.AskByID("nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("AskByID(nope) = %v, want ErrNotFound", err)
		}
		for _, c := range []struct {
			at   time.Time
			want int
		}{{now, 1}, {now.Add(10 * time.Minute), 0}} {
			n, err := tx.CountPendingAsks(c.at)
			if err != nil || n != c.want {
				t.Errorf("CountPendingAsks(%v) = %d, %v; want %d", c.at, n, err, c.want)
			}
		}
		ex, err := tx.ExpirableAsks(now.Add(10 * time.Minute))
		if err != nil || len(ex) != 1 {
			t.Errorf("ExpirableAsks = %v, %v; want the one", ex, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		ok, err := tx.DecideAsk("a1", AskAllowed, true, now.Add(time.Minute), now.Add(11*time.Minute))
		if err != nil || !ok {
			t.Errorf("DecideAsk = %v, %v; want true", ok, err)
		}
		ok, err = tx.DecideAsk("a1", AskDenied, false, now.Add(2*time.Minute), now)
		if err != nil || ok {
			t.Errorf("second DecideAsk = %v, %v; want false (decided already)", ok, err)
		}
		got, err := tx.AskByID("a1")
		if err != nil || got.State != AskAllowed || !got.Always || !got.Decided.Equal(now.Add(time.Minute)) {
			t.Errorf("after the decision: %+v, %v", got, err)
		}
		if n, err := tx.PruneAsks(now.Add(time.Second)); err != nil || n != 1 {
			t.Errorf("PruneAsks = %d, %v; want 1", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAskMarks(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetBoxAskMarks([]AskMark{{Kind: "app", Subject: "com.apple.Passbook"}, {Kind: "url"}}); err != nil {
			return err
		}
		if err := tx.SetClientAskMark(AskMark{ClientID: "c1", Kind: "app", Subject: "com.apple.Passbook", Ask: false}); err != nil {
			return err
		}
		if err := tx.SetClientAskMark(AskMark{ClientID: "c1", Kind: "text", Ask: true}); err != nil {
			return err
		}
		if err := tx.SetClientAskMark(AskMark{Kind: "text", Ask: true}); err == nil {
			t.Error("a client mark without a client id was accepted")
		}
		if err := tx.SetClientAskMark(AskMark{ClientID: "c1", Kind: "nonsense", Ask: true}); err == nil {
			t.Error("a mark of an unknown kind was accepted")
		}
		return tx.SetClientAskMarks("c2", []AskMark{{Kind: "input", Ask: true}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []AskMark
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.AskMarks(); return err }); err != nil {
		t.Fatal(err)
	}
	want := []AskMark{{"", "app", "com.apple.Passbook", true}, {"", "url", "", true},
		{"c1", "app", "com.apple.Passbook", false}, {"c1", "text", "", true}, {"c2", "input", "", true}}
	if len(got) != len(want) {
		t.Fatalf("AskMarks = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("AskMarks[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
