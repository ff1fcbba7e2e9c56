package usb

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// descriptors builds the bytes of a device's `descriptors` file.
func descriptors(vendor, product uint16, configs ...Config) []byte {
	b := []byte{18, descDevice, 0x00, 0x02, 0, 0, 0, 64}
	b = binary.LittleEndian.AppendUint16(b, vendor)
	b = binary.LittleEndian.AppendUint16(b, product)
	b = append(b, 0x00, 0x01, 1, 2, 3, byte(len(configs)))
	for _, c := range configs {
		var body []byte
		for _, i := range c.Interfaces {
			body = append(body, 9, descInterface, i.Number, i.Alternate, byte(len(i.Endpoints)), i.Class, i.SubClass, i.Protocol, 0)
			body = append(body, 5, 0x24, 0, 0x10, 0x01) // a class-specific descriptor, skipped
			for _, e := range i.Endpoints {
				body = append(body, 7, descEndpoint, e.Address, e.Attributes)
				body = binary.LittleEndian.AppendUint16(body, e.MaxPacket)
				body = append(body, e.Interval)
			}
		}
		b = append(b, 9, descConfig)
		b = binary.LittleEndian.AppendUint16(b, uint16(9+len(body)))
		b = append(b, byte(len(c.Interfaces)), c.Value, 0, c.Attributes, c.MaxPower)
		b = append(b, body...)
	}
	return b
}

var (
	adbInterface = Interface{Number: 1, Class: 0xff, SubClass: 0x42, Protocol: 1, Endpoints: []Endpoint{
		{Address: 0x81, Attributes: 2, MaxPacket: 512}, {Address: 0x01, Attributes: 2, MaxPacket: 512},
	}}
	mtpInterface = Interface{Number: 0, Class: 6, SubClass: 1, Protocol: 1, Endpoints: []Endpoint{
		{Address: 0x82, Attributes: 2, MaxPacket: 512}, {Address: 0x02, Attributes: 2, MaxPacket: 512},
		{Address: 0x83, Attributes: 3, MaxPacket: 28, Interval: 6},
	}}
	hubInterface = Interface{Class: 9, Endpoints: []Endpoint{{Address: 0x81, Attributes: 3, MaxPacket: 4, Interval: 12}}}
	phoneConfig  = Config{Value: 1, Attributes: 0x80, MaxPower: 250, Interfaces: []Interface{mtpInterface, adbInterface}}
)

// fakeTree writes a sysfs device folder per entry: attribute files, the
// descriptors file, and an interface folder (which listing skips).
func fakeTree(t *testing.T, root string, devs map[string]map[string]string) {
	t.Helper()
	for name, attrs := range devs {
		dir := filepath.Join(root, name)
		os.MkdirAll(filepath.Join(root, name+":1.0"), 0o755)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range attrs {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func phoneAttrs(devnum string) map[string]string {
	return map[string]string{
		"descriptors": string(descriptors(0x18d1, 0x4ee7, phoneConfig)),
		"busnum":      "1\n", "devnum": devnum + "\n", "bConfigurationValue": "1\n",
		"manufacturer": "Google\n", "product": "Pixel 7\n", "serial": "28AX\n", "speed": "480\n",
	}
}

func TestDevices(t *testing.T) {
	root := t.TempDir()
	fakeTree(t, root, map[string]map[string]string{
		"usb1": {"descriptors": string(descriptors(0x1d6b, 2, Config{Value: 1, Interfaces: []Interface{hubInterface}})),
			"busnum": "1", "devnum": "1", "bConfigurationValue": "1", "speed": "480"},
		"1-1": phoneAttrs("7"),
	})
	got, err := Bus{SysRoot: root, DevRoot: "/dev/bus/usb"}.Devices()
	if err != nil {
		t.Fatal(err)
	}
	dd := func(v, p uint16) DeviceDescriptor {
		return DeviceDescriptor{USB: 0x200, MaxPacket0: 64, Vendor: v, Product: p, Release: 0x100, NumConfigs: 1}
	}
	want := []DeviceInfo{
		{Name: "usb1", Bus: 1, Address: 1, Path: "/dev/bus/usb/001/001", DeviceDescriptor: dd(0x1d6b, 2), Speed: "480", ActiveConfig: 1,
			Configs: []Config{{Value: 1, Interfaces: []Interface{hubInterface}}}},
		{Name: "1-1", Bus: 1, Address: 7, Path: "/dev/bus/usb/001/007", DeviceDescriptor: dd(0x18d1, 0x4ee7),
			Manufacturer: "Google", ProductName: "Pixel 7", Serial: "28AX", Speed: "480", ActiveConfig: 1, Configs: []Config{phoneConfig}},
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

func TestDevicesErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs map[string]string
		want  string
	}{
		{"bad busnum", map[string]string{"busnum": "x"}, `busnum is "x", not a number`},
		{"bad config", map[string]string{"bConfigurationValue": "300"}, `bConfigurationValue is "300"`},
		{"bad descriptors", map[string]string{"descriptors": "\x12\x01"}, "no device descriptor in 2 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			attrs := phoneAttrs("3")
			for k, v := range tc.attrs {
				attrs[k] = v
			}
			fakeTree(t, root, map[string]map[string]string{"1-1": attrs})
			_, err := Bus{SysRoot: root}.Devices()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "usb: 1-1:") {
				t.Errorf("Devices: %v; want an error naming 1-1 and %q", err, tc.want)
			}
		})
	}
	// A device without a descriptors file left while it was read.
	root := t.TempDir()
	fakeTree(t, root, map[string]map[string]string{"1-1": {"busnum": "1"}, "1-2": phoneAttrs("4")})
	got, err := Bus{SysRoot: root}.Devices()
	if err != nil || len(got) != 1 || got[0].Name != "1-2" {
		t.Errorf("Devices with one vanished: %v %v", got, err)
	}
	// No USB host at all is an empty list.
	if got, err := (Bus{SysRoot: filepath.Join(root, "none")}).Devices(); err != nil || got != nil {
		t.Errorf("Devices without sysfs folder: %v %v", got, err)
	}
}

func TestParseDescriptorsErrors(t *testing.T) {
	good := descriptors(1, 2, phoneConfig)
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
			_, _, err := ParseDescriptors(tc.b)
			if !errors.Is(err, ErrBadDescriptor) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseDescriptors: %v; want ErrBadDescriptor with %q", err, tc.want)
			}
		})
	}
}

func FuzzParseDescriptors(f *testing.F) {
	f.Add(descriptors(0x18d1, 0x4ee7, phoneConfig))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseDescriptors(b) // must not panic
	})
}
