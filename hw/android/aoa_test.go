package android_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
	"github.com/openlolo/openlolo/phone"
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

// USBInput opens AOA on the phone on the host ports at its first input;
// a phone that refused AOA answers phone.ErrUnsupported (the backend's
// shell input then runs) and is not asked again until it is plugged in
// anew; with no phone there it answers the same.
func TestUSBInput(t *testing.T) {
	t.Parallel()
	bus := usb.Bus{SysRoot: t.TempDir(), DevRoot: t.TempDir()}
	opened := map[string]*aoatest.Phone{}
	noAOA := map[string]bool{}
	u := &android.USBInput{Bus: bus, Open: func(ctx context.Context, path string) (phone.Input, func() error, error) {
		ctl := &aoatest.Phone{NoAOA: noAOA[path]}
		in, err := aoa.Open(ctx, aoa.Options{Controller: ctl, Settle: -1, Sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			return nil, nil, err
		}
		opened[path] = ctl
		return in, in.Close, nil
	}}
	defer u.Close()
	tap := phone.Tap(phone.Point{X: 0.5, Y: 0.25}, time.Millisecond)
	if _, err := u.Touch(t.Context(), tap); !errors.Is(err, phone.ErrUnsupported) {
		t.Fatalf("tap with no phone: %v, want phone.ErrUnsupported", err)
	}
	plug := func(addr int) string {
		t.Helper()
		adbIface := usb.Interface{Number: 1, Class: adbusb.Class, SubClass: adbusb.SubClass, Protocol: adbusb.Protocol, Endpoints: usbtest.Bulk}
		if err := usbtest.WriteDevice(bus.SysRoot, usb.DeviceInfo{Name: "1-2", Bus: 1, Address: addr, DeviceDescriptor: usb.DeviceDescriptor{Vendor: 0x18d1, Product: 0x4ee7},
			Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{adbIface}}}}); err != nil {
			t.Fatal(err)
		}
		devs, err := adbusb.Devices(bus)
		if err != nil || len(devs) != 1 {
			t.Fatalf("devices %v, %v", devs, err)
		}
		return devs[0].Path
	}
	first := plug(6)
	noAOA[first] = true
	for range 2 {
		if _, err := u.Touch(t.Context(), tap); !errors.Is(err, phone.ErrUnsupported) || !strings.Contains(err.Error(), "AOA") {
			t.Fatalf("tap on a phone without AOA: %v, want phone.ErrUnsupported", err)
		}
	}
	if len(opened) != 0 {
		t.Fatalf("a refused phone was opened: %v", opened)
	}
	// Plugged in anew (a new device node): asked again, and it has AOA.
	usbtest.RemoveDevice(bus.SysRoot, "1-2")
	second := plug(7)
	if _, err := u.Touch(t.Context(), tap); err != nil {
		t.Fatalf("tap on a phone with AOA: %v", err)
	}
	ctl := opened[second]
	if ctl == nil {
		t.Fatalf("AOA was not opened on %s", second)
	}
	touches, err := ctl.Touches(aoa.ID(hid.KindTouch))
	down := slices.IndexFunc(touches, func(c aoatest.Touch) bool { return c.Contact })
	var x, y float64
	if down >= 0 {
		x, y = float64(touches[down].X)/hid.MaxCoord, float64(touches[down].Y)/hid.MaxCoord
	}
	if err != nil || down < 0 || touches[len(touches)-1].Contact || math.Abs(x-0.5) > 0.01 || math.Abs(y-0.25) > 0.01 {
		t.Errorf("the phone saw %+v, %v; want a touch at 0.5,0.25", touches, err)
	}
	if _, err := u.Press(t.Context(), phone.Home); err != nil {
		t.Fatalf("home: %v", err)
	}
	if len(opened) != 1 {
		t.Errorf("AOA opened %d times for one phone", len(opened))
	}
	if err := u.ReleaseAll(t.Context()); err != nil {
		t.Error(err)
	}
}
