package adbusb_test

import (
	"testing"

	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
)

func TestDevices(t *testing.T) {
	root := t.TempDir()
	adbIface := usb.Interface{Number: 1, Class: adbusb.Class, SubClass: adbusb.SubClass, Protocol: adbusb.Protocol, Endpoints: usbtest.Bulk}
	mtp := usb.Interface{Class: 6, SubClass: 1, Protocol: 1, Endpoints: usbtest.Bulk}
	for _, d := range []usb.DeviceInfo{
		{Name: "1-1", Bus: 1, Address: 5, DeviceDescriptor: usb.DeviceDescriptor{Vendor: 0x18d1, Product: 0x4ee1},
			Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{mtp}}}}, // USB debugging off
		{Name: "1-2", Bus: 1, Address: 6, DeviceDescriptor: usb.DeviceDescriptor{Vendor: 0x18d1, Product: 0x4ee7},
			Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{mtp, adbIface}}}},
		{Name: "1-3", Bus: 1, Address: 7, DeviceDescriptor: usb.DeviceDescriptor{Vendor: 0x05ac, Product: 0x12a8},
			Configs: []usb.Config{{Value: 4, Interfaces: []usb.Interface{{Class: 0xff, SubClass: 0xfe, Protocol: 2, Endpoints: usbtest.Bulk}}}}},
	} {
		if err := usbtest.WriteDevice(root, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := adbusb.Devices(usb.Bus{SysRoot: root})
	if err != nil || len(got) != 1 || got[0].Name != "1-2" || got[0].Path != "/dev/bus/usb/001/006" {
		t.Fatalf("Devices = %v %v; want only the phone with USB debugging, 1-2", got, err)
	}
}
