package appliance

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// A pending ask blinks the LED as a pending pairing does, until it is
// decided or expires.
func TestLEDBlinksWhileAnAskWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	now := time.Now()
	err = st.Update(ctx, func(tx *store.Tx) error {
		return tx.SetOwner(store.Owner{Hash: []byte("h"), Salt: []byte("s"), TimeCost: 1, MemoryKiB: 8, Threads: 1, Created: now, Updated: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &Box{store: st, cfg: Config{Phone: ph}}
	if got := b.ledState(ctx); got.led != panel.On {
		t.Fatalf("claimed, nothing waiting: LED %s (%s), want on", got.led, got.why)
	}
	err = st.Update(ctx, func(tx *store.Tx) error {
		return tx.InsertAsk(store.Ask{ID: "a1", OperationID: "op1", ClientID: "c1", Tool: "openlolo_launch_app", Fingerprint: "f",
			Kind: "app", Subject: "com.apple.Passbook", What: "launch Wallet", State: store.AskPending, Created: now, Expires: now.Add(time.Minute)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ledState(ctx); got.led != panel.SlowBlink {
		t.Fatalf("an ask waiting: LED %s (%s), want slow_blink", got.led, got.why)
	}
	err = st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.DecideAsk("a1", store.AskDenied, false, now, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ledState(ctx); got.led != panel.On {
		t.Fatalf("the ask decided: LED %s (%s), want on", got.led, got.why)
	}
}
