package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// A test finds the Notes icon through the sim's layout, taps it and types:
// the input travels as HID reports through the simulated host.
func Example() {
	p, err := sim.New(sim.Options{Clock: sim.FixedClock(time.Date(2026, 1, 2, 9, 41, 0, 0, time.UTC))})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	ctx := context.Background()
	notes, _ := p.IconCenter("Notes")
	if _, err := p.Touch(ctx, phone.Tap(notes, 80*time.Millisecond)); err != nil {
		panic(err)
	}
	if _, err := p.Type(ctx, "Hello, box!"); err != nil {
		panic(err)
	}
	f, err := p.Screenshot(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Screen(), p.NoteText(), f.Image.Bounds().Size())
	// Output: notes Hello, box! (1179,2556)
}
