package appliance

import (
	"context"
	"image"
	"testing"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// The box page pauses and resumes input through the adapter, and sees the
// lease as the control service keeps it.
func TestControllerAdapter(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
	svc, err := control.New(ctx, control.Config{Store: st, Phone: ph})
	if err != nil {
		t.Fatal(err)
	}
	c := controller{svc}
	if c.Lease().Paused {
		t.Fatalf("a new service is paused")
	}
	if err := c.Pause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	if !c.Lease().Paused {
		t.Errorf("Lease().Paused = false after Pause")
	}
	if err := c.Resume(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	if c.Lease().Paused {
		t.Errorf("Lease().Paused = true after Resume")
	}
	acts, err := c.Recent(ctx, 10)
	if err != nil || len(acts) != 0 {
		t.Errorf("Recent on an empty journal = %v, %v", acts, err)
	}
}
