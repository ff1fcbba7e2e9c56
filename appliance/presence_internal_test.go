package appliance

import (
	"bytes"
	"context"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/store"
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
	if got := b.ledState(context.Background()); got.led != panel.SlowBlink {
		t.Errorf("unclaimed: LED %s (%s), want slow_blink", got.led, got.why)
	}
	st.Close()
	if got := b.ledState(context.Background()); got.led != panel.FastBlink || got.why == "" {
		t.Errorf("closed store: LED %s (%s), want fast_blink with the reason", got.led, got.why)
	}
}

// The reset prints the new code where the person who started the box
// reads it, and the box is unclaimed afterwards.
func TestFactoryResetPrintsTheCode(t *testing.T) {
	t.Parallel()
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	var out bytes.Buffer
	ctx := context.Background()
	b, err := New(ctx, Config{StateDir: filepath.Join(t.TempDir(), "state"), Name: "openlolo-test", Phone: ph, LANAddr: "127.0.0.1:0", Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	before, _, err := b.owner.SetupCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.factoryReset(ctx); err != nil {
		t.Fatal(err)
	}
	code, claimed, err := b.owner.SetupCode(ctx)
	if err != nil || claimed || code == before {
		t.Fatalf("after the reset SetupCode() = %q, %v, %v; want a new code (old %q)", code, claimed, err, before)
	}
	if want := "Setup code:   " + code + "\n"; !strings.Contains(out.String(), want) {
		t.Errorf("Out = %q, want a line %q", out.String(), want)
	}
	b.store.Close()
	if err := b.factoryReset(ctx); err == nil || !strings.Contains(err.Error(), "factory reset") {
		t.Errorf("factoryReset with the store closed = %v, want an error naming the reset", err)
	}
}
