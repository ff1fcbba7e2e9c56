package android_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
	"github.com/openlolo/openlolo/phone"
)

func TestRegistration(t *testing.T) {
	t.Parallel()
	bus := usb.Bus{SysRoot: t.TempDir(), DevRoot: t.TempDir()} // no USB devices
	parse := func(args ...string) phone.Opener {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		o := android.Registration(android.Options{Bus: bus}).Flags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o
	}
	env := phone.Env{StateDir: t.TempDir()}
	o := parse()
	if err := o.Check("sim"); err != nil {
		t.Errorf("no --adb with --phone sim: %v", err)
	}
	if _, err := o.Auto(t.Context(), env); !errors.Is(err, phone.ErrUnavailable) || !strings.Contains(err.Error(), "no phone with USB debugging") {
		t.Errorf("auto without --adb or a phone on USB = %v, want ErrUnavailable", err)
	}
	// --phone android without --adb looks on the USB host ports and
	// says what it misses.
	p, err := o.Open(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, p, func() bool { return p.State().Problems != 0 }) {
		t.Fatalf("state %+v, want a problem", p.State())
	}
	if st := p.State(); !st.Problems.Has(phone.USBDebuggingOff) || !strings.Contains(st.Reason, "USB host ports") {
		t.Errorf("state %+v, want usb_debugging_off naming the host ports", st)
	}
	p.Close()
	// A phone with USB debugging on a host port: auto takes android.
	adbIface := usb.Interface{Number: 1, Class: adbusb.Class, SubClass: adbusb.SubClass, Protocol: adbusb.Protocol, Endpoints: usbtest.Bulk}
	if err := usbtest.WriteDevice(bus.SysRoot, usb.DeviceInfo{Name: "1-2", Bus: 1, Address: 6, DeviceDescriptor: usb.DeviceDescriptor{Vendor: 0x18d1, Product: 0x4ee7},
		Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{adbIface}}}}); err != nil {
		t.Fatal(err)
	}
	if p, err = o.Auto(t.Context(), env); err != nil {
		t.Fatalf("auto with a phone on USB = %v", err)
	}
	p.Close()
	if err := parse("--adb", "10.0.0.2:5555").Check("sim"); err == nil || !strings.Contains(err.Error(), "--adb is for --phone android") {
		t.Errorf("--adb with --phone sim: %v", err)
	}
	if err := parse("--adb", "10.0.0.2").Check("android"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("--adb without a port: %v", err)
	}
	f := startPhone(t, nil, true)
	o = parse("--adb", f.Addr)
	if err := o.Check("auto"); err != nil {
		t.Fatal(err)
	}
	if p, err = o.Auto(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitState(t, p.(*android.Backend), api.StateReady)
}
