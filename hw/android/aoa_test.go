package android_test

import (
	"context"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/phone"
)

// AOA input (hw/aoa on its fake phone) plugs in as the backend's input
// path: a tap goes as HID reports, not as an `input` command, and the
// answer says so.
func TestAOAInput(t *testing.T) {
	t.Parallel()
	ctl := &aoatest.Phone{}
	in, err := aoa.Open(t.Context(), aoa.Options{Controller: ctl, Settle: -1, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f := startPhone(t, nil, true)
	b := openOn(t, f, android.Options{Input: in})
	waitState(t, b, api.StateReady)
	rep, err := b.Touch(t.Context(), phone.Tap(phone.Point{X: 0.5, Y: 0.25}, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Via != android.AOAInput || len(f.Inputs()) != 0 || in.Transfers() == 0 {
		t.Errorf("tap %+v, the shell got %q, AOA moved %d transfers; want the tap over AOA only", rep, f.Inputs(), in.Transfers())
	}
}
