package control_test

import (
	"context"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/phone"
)

// BenchmarkElementsVerb: openlolo_elements' verb on the sim's home screen,
// the picture unchanged between calls (the frame is the cached one).
func BenchmarkElementsVerb(b *testing.B) {
	svc, _ := simService(b, nil, nil, control.Limits{CallsPerMinute: -1})
	for b.Loop() {
		if rep := svc.Elements(context.Background(), alice, api.ElementsArgs{}); rep.Error != nil {
			b.Fatal(rep.Error)
		}
	}
}

// BenchmarkElementsVerbNewFrame: the same in Notes with one more letter
// typed before each call (untimed), so every call's frame is a new
// picture the sim renders: the cost an agent sees after an input.
func BenchmarkElementsVerbNewFrame(b *testing.B) {
	svc, ph := simService(b, nil, nil, control.Limits{CallsPerMinute: -1})
	ctx := context.Background()
	notes, _ := ph.IconCenter("Notes")
	if _, err := ph.Touch(ctx, phone.Tap(notes, phone.TapHold)); err != nil || ph.Screen() != "notes" {
		b.Fatalf("open Notes: %v (screen %q)", err, ph.Screen())
	}
	for b.Loop() {
		b.StopTimer()
		if _, err := ph.Type(ctx, "a"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if rep := svc.Elements(ctx, alice, api.ElementsArgs{}); rep.Error != nil {
			b.Fatal(rep.Error)
		}
	}
}
