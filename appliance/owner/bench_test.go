package owner

import (
	"context"
	"testing"

	"github.com/openlolo/openlolo/hw/sim"
)

// BenchmarkPageJPEG is the Status page's screenshot cost: a phone-sized
// frame (1179×2556) scaled to 480 wide and encoded, once per refresh.
func BenchmarkPageJPEG(b *testing.B) {
	ph, err := sim.New(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ph.Close()
	f, err := ph.Screenshot(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pageJPEG(f); err != nil {
			b.Fatal(err)
		}
	}
}
