package aoa_test

import (
	"context"
	"fmt"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// The android backend opens AOA input on the phone's control endpoint
// (hw/usb's device; here the fake phone) and taps through it.
func ExampleOpen() {
	ctx := context.Background()
	p := &aoatest.Phone{}
	in, err := aoa.Open(ctx, aoa.Options{Controller: p, Settle: -1, Sleep: noWait})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	if _, err := in.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.25}, phone.TapHold)); err != nil {
		fmt.Println(err)
		return
	}
	ts, _ := p.Touches(aoa.ID(hid.KindTouch))
	down := ts[len(ts)-4]
	fmt.Printf("protocol %d, devices %v, contact %v at (%.2f, %.2f), %d transfers\n",
		in.Protocol(), p.IDs(), down.Contact, down.Point().X, down.Point().Y, in.Transfers())
	// Output: protocol 2, devices [1 2 3], contact true at (0.50, 0.25), 4 transfers
}
