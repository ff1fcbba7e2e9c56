package usb_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
)

var (
	adbInterface = usb.Interface{Number: 1, Class: 0xff, SubClass: 0x42, Protocol: 1, Endpoints: usbtest.Bulk}
	mtpInterface = usb.Interface{Number: 0, Class: 6, SubClass: 1, Protocol: 1, Endpoints: []usb.Endpoint{
		{Address: 0x82, Attributes: 2, MaxPacket: 512}, {Address: 0x02, Attributes: 2, MaxPacket: 512},
		{Address: 0x83, Attributes: 3, MaxPacket: 28, Interval: 6},
	}}
	hubInterface = usb.Interface{Class: 9, Endpoints: []usb.Endpoint{{Address: 0x81, Attributes: 3, MaxPacket: 4, Interval: 12}}}
	phoneConfig  = usb.Config{Value: 1, Attributes: 0x80, MaxPower: 250, Interfaces: []usb.Interface{mtpInterface, adbInterface}}

	rootHub = usb.DeviceInfo{Name: "usb1", Bus: 1, Address: 1, Path: "/dev/bus/usb/001/001",
		DeviceDescriptor: usb.DeviceDescriptor{USB: 0x200, Class: 9, Vendor: 0x1d6b, Product: 2, Release: 0x601, NumConfigs: 1},
		Speed:            "480", ActiveConfig: 1, Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{hubInterface}}}}
)

// phone is a Pixel with USB debugging on, at an address.
func phone(name string, address int) usb.DeviceInfo {
	return usb.DeviceInfo{Name: name, Bus: 1, Address: address, Path: fmt.Sprintf("/dev/bus/usb/001/%03d", address),
		DeviceDescriptor: usb.DeviceDescriptor{USB: 0x200, MaxPacket0: 64, Vendor: 0x18d1, Product: 0x4ee7, Release: 0x100, NumConfigs: 1},
		Manufacturer:     "Google", ProductName: "Pixel 7", Serial: "28AX", Speed: "480", ActiveConfig: 1, Configs: []usb.Config{phoneConfig}}
}

func tree(t *testing.T, devs ...usb.DeviceInfo) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range devs {
		if err := usbtest.WriteDevice(root, d); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDevices(t *testing.T) {
	want := []usb.DeviceInfo{rootHub, phone("1-1", 7)}
	got, err := usb.Bus{SysRoot: tree(t, want[1], want[0]), DevRoot: "/dev/bus/usb"}.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Devices:\n got %+v\nwant %+v", got, want)
	}
	if s := got[1].String(); s != "1-1 18d1:4ee7 Pixel 7 (serial 28AX)" {
		t.Errorf("String = %q", s)
	}
	c, i, ok := got[1].Find(0xff, 0x42, 1)
	in, out, bulk := i.Bulk()
	if !ok || c.Value != 1 || i.Number != 1 || !bulk || in.Address != 0x81 || out.Address != 0x01 {
		t.Errorf("Find ADB: config %d interface %d ok=%v; bulk in %#x out %#x ok=%v", c.Value, i.Number, ok, in.Address, out.Address, bulk)
	}
	if _, _, ok := got[1].Find(0xff, 0xfe, 2); ok {
		t.Error("Find found a usbmux interface the phone does not have")
	}
	if _, _, ok := hubInterface.Bulk(); ok {
		t.Error("a hub's interrupt endpoint counted as bulk")
	}
}

// DevicesWith keeps the devices that match, and gives nil for none.
func TestDevicesWith(t *testing.T) {
	bus := usb.Bus{SysRoot: tree(t, phone("1-1", 7), rootHub), DevRoot: "/dev/bus/usb"}
	got, err := bus.DevicesWith(func(d usb.DeviceInfo) bool { return d.Path != rootHub.Path })
	if err != nil || len(got) != 1 || got[0].Name != "1-1" {
		t.Errorf("DevicesWith(not the hub) = %+v, %v; want the phone", got, err)
	}
	if got, err := bus.DevicesWith(func(usb.DeviceInfo) bool { return false }); got != nil || err != nil {
		t.Errorf("DevicesWith(none) = %+v, %v; want nil", got, err)
	}
}

// Find prefers the active configuration: an iPhone shows usbmux only in
// its last one, an unconfigured device none.
func TestFindPrefersActiveConfig(t *testing.T) {
	mux := usb.Interface{Number: 1, Class: 0xff, SubClass: 0xfe, Protocol: 2, Endpoints: usbtest.Bulk}
	d := usb.DeviceInfo{ActiveConfig: 4, Configs: []usb.Config{
		{Value: 1, Interfaces: []usb.Interface{{Class: 6}}},
		{Value: 3, Interfaces: []usb.Interface{mux}},
		{Value: 4, Interfaces: []usb.Interface{{Class: 6}, mux}},
	}}
	if c, _, ok := d.Find(0xff, 0xfe, 2); !ok || c.Value != 4 {
		t.Errorf("Find = config %d %v, want the active 4", c.Value, ok)
	}
	d.ActiveConfig = 0
	if c, _, ok := d.Find(0xff, 0xfe, 2); !ok || c.Value != 3 {
		t.Errorf("Find unconfigured = config %d %v, want the first holding it, 3", c.Value, ok)
	}
}

func TestDevicesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, value, want string
	}{
		{"bad busnum", "busnum", "x", `busnum is "x", not a number`},
		{"bad config", "bConfigurationValue", "300", `bConfigurationValue is "300"`},
		{"bad descriptors", "descriptors", "\x12\x01", "no device descriptor in 2 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, phone("1-1", 3))
			os.WriteFile(filepath.Join(root, "1-1", tc.file), []byte(tc.value), 0o644)
			_, err := usb.Bus{SysRoot: root}.Devices()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "usb: 1-1:") {
				t.Errorf("Devices: %v; want an error naming 1-1 and %q", err, tc.want)
			}
		})
	}
	// A device whose descriptors are gone left while it was read.
	root := tree(t, phone("1-1", 3), phone("1-2", 4))
	os.Remove(filepath.Join(root, "1-1", "descriptors"))
	got, err := usb.Bus{SysRoot: root}.Devices()
	if err != nil || len(got) != 1 || got[0].Name != "1-2" {
		t.Errorf("Devices with one vanished: %v %v", got, err)
	}
	// No USB host at all is an empty list.
	if got, err := (usb.Bus{SysRoot: filepath.Join(root, "none")}).Devices(); err != nil || got != nil {
		t.Errorf("Devices without sysfs folder: %v %v", got, err)
	}
}

func TestParseDescriptorsSkipsOthers(t *testing.T) {
	b := usbtest.Descriptors(usb.DeviceDescriptor{Vendor: 1}, phoneConfig)
	// A class-specific descriptor after the first interface.
	i := 18 + 9 + 9
	b = append(b[:i:i], append([]byte{5, 0x24, 0, 0x10, 0x01}, b[i:]...)...)
	_, configs, err := usb.ParseDescriptors(b)
	if err != nil || !reflect.DeepEqual(configs, []usb.Config{phoneConfig}) {
		t.Errorf("ParseDescriptors: %+v %v", configs, err)
	}
}

func TestParseDescriptorsErrors(t *testing.T) {
	good := usbtest.Descriptors(usb.DeviceDescriptor{Vendor: 1}, phoneConfig)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "no device descriptor in 0 bytes"},
		{"not a device", append([]byte{18, 2}, good[2:]...), "no device descriptor"},
		{"truncated", good[:len(good)-3], "has length 7 (4 bytes left)"},
		{"zero length", append(good[:18:18], 0, 2), "has length 0"},
		{"short config", append(good[:18:18], 4, 2, 0, 0), "descriptor type 2 at byte 18 is 4 bytes (at least 9)"},
		{"short endpoint", append(good[:18+9+9:18+9+9], 4, 5, 0x81, 2), "descriptor type 5 at byte 36 is 4 bytes (at least 7)"},
		{"interface first", append(good[:18:18], 9, 4, 0, 0, 0, 0, 0, 0, 0), "interface before any configuration"},
		{"endpoint first", append(good[:18+9:18+9], 7, 5, 0x81, 2, 0, 2, 0), "endpoint before any interface"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := usb.ParseDescriptors(tc.b)
			if !errors.Is(err, usb.ErrBadDescriptor) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseDescriptors: %v; want ErrBadDescriptor with %q", err, tc.want)
			}
		})
	}
}

func FuzzParseDescriptors(f *testing.F) {
	f.Add(usbtest.Descriptors(usb.DeviceDescriptor{Vendor: 1}, phoneConfig))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, configs, err := usb.ParseDescriptors(b)
		if err != nil {
			return
		}
		// What parsed writes back to the same device and configurations.
		d2, configs2, err := usb.ParseDescriptors(usbtest.Descriptors(d, configs...))
		if err != nil || d2.Vendor != d.Vendor || len(configs2) != len(configs) {
			t.Errorf("round trip: %+v %d configs %v", d2, len(configs2), err)
		}
	})
}
