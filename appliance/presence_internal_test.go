package appliance

import (
	"context"
	"image"
	"testing"

	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/gpio"
	"github.com/openlolo/openlolo/hw/sim"
)

// A box that cannot read its store blinks fast: the owner must look.
func TestLEDStateStoreError(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	b := &Box{store: st, cfg: Config{Phone: ph}}
	if got := b.ledState(context.Background()); got.led != gpio.SlowBlink {
		t.Errorf("unclaimed: LED %s (%s), want slow_blink", got.led, got.why)
	}
	st.Close()
	if got := b.ledState(context.Background()); got.led != gpio.FastBlink || got.why == "" {
		t.Errorf("closed store: LED %s (%s), want fast_blink with the reason", got.led, got.why)
	}
}
