package usb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bus names where the kernel shows USB devices. The zero value is the
// real system's.
type Bus struct {
	// SysRoot is sysfs's device folder; empty means /sys/bus/usb/devices.
	SysRoot string
	// DevRoot holds the device nodes; empty means /dev/bus/usb.
	DevRoot string
}

func (b Bus) sysRoot() string {
	if b.SysRoot == "" {
		return "/sys/bus/usb/devices"
	}
	return b.SysRoot
}

func (b Bus) devRoot() string {
	if b.DevRoot == "" {
		return "/dev/bus/usb"
	}
	return b.DevRoot
}

// DeviceInfo is one device on a host port, as sysfs shows it.
type DeviceInfo struct {
	// Name is the sysfs name: "usb1" for a root hub, "1-1.2" for the
	// device on port 2 of the hub on port 1 of bus 1.
	Name string
	// Bus and Address are the bus and device numbers; the address
	// changes each time the device is plugged in.
	Bus, Address int
	// Path is the usbdevfs node [Open] takes.
	Path string
	DeviceDescriptor
	// Manufacturer, ProductName and Serial are the device's strings
	// (empty when it has none).
	Manufacturer, ProductName, Serial string
	// Speed is the link speed in Mbit/s as sysfs says it ("480").
	Speed string
	// ActiveConfig is the configuration in use (0: unconfigured).
	ActiveConfig uint8
	// Configs are every configuration the device offers.
	Configs []Config
}

// String names the device for logs: "1-1 18d1:4ee7 Pixel 7 (serial X)".
func (d DeviceInfo) String() string {
	s := fmt.Sprintf("%s %04x:%04x", d.Name, d.Vendor, d.Product)
	if d.ProductName != "" {
		s += " " + d.ProductName
	}
	if d.Serial != "" {
		s += " (serial " + d.Serial + ")"
	}
	return s
}

// Find returns the first interface with the class, subclass and
// protocol, searching the active configuration first, and the
// configuration that holds it.
func (d DeviceInfo) Find(class, subClass, protocol uint8) (Config, Interface, bool) {
	configs := slices.Clone(d.Configs)
	slices.SortStableFunc(configs, func(a, b Config) int {
		return boolInt(b.Value == d.ActiveConfig) - boolInt(a.Value == d.ActiveConfig)
	})
	for _, c := range configs {
		for _, i := range c.Interfaces {
			if i.Class == class && i.SubClass == subClass && i.Protocol == protocol {
				return c, i, true
			}
		}
	}
	return Config{}, Interface{}, false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DevicesWith lists the devices of [Bus.Devices] that match (a backend's
// interface: [DeviceInfo.Find]); nil when none does.
func (b Bus) DevicesWith(match func(DeviceInfo) bool) ([]DeviceInfo, error) {
	all, err := b.Devices()
	if err != nil {
		return nil, err
	}
	var out []DeviceInfo
	for _, d := range all {
		if match(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Devices lists the devices sysfs shows, sorted by bus and address. A
// device that goes away while it is read is left out.
func (b Bus) Devices() ([]DeviceInfo, error) {
	entries, err := os.ReadDir(b.sysRoot())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no USB host controller at all
	}
	if err != nil {
		return nil, fmt.Errorf("usb: list devices: %w", err)
	}
	var out []DeviceInfo
	for _, e := range entries {
		if strings.Contains(e.Name(), ":") { // an interface, not a device
			continue
		}
		d, err := b.device(e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b DeviceInfo) int {
		if a.Bus != b.Bus {
			return a.Bus - b.Bus
		}
		return a.Address - b.Address
	})
	return out, nil
}

// device reads one device's folder.
func (b Bus) device(name string) (DeviceInfo, error) {
	dir := filepath.Join(b.sysRoot(), name)
	d := DeviceInfo{Name: name}
	raw, err := os.ReadFile(filepath.Join(dir, "descriptors"))
	if err != nil {
		return d, fmt.Errorf("usb: %s: %w", name, err)
	}
	if d.DeviceDescriptor, d.Configs, err = ParseDescriptors(raw); err != nil {
		return d, fmt.Errorf("usb: %s: %w", name, err)
	}
	for _, n := range []struct {
		file string
		dst  *int
	}{{"busnum", &d.Bus}, {"devnum", &d.Address}} {
		s, err := readAttr(dir, n.file)
		if err != nil {
			return d, fmt.Errorf("usb: %s: %w", name, err)
		}
		if *n.dst, err = strconv.Atoi(s); err != nil {
			return d, fmt.Errorf("usb: %s: %s is %q, not a number", name, n.file, s)
		}
	}
	// Strings and the configuration are optional: a device may have no
	// serial, and an unconfigured one shows an empty value.
	d.Manufacturer, _ = readAttr(dir, "manufacturer")
	d.ProductName, _ = readAttr(dir, "product")
	d.Serial, _ = readAttr(dir, "serial")
	d.Speed, _ = readAttr(dir, "speed")
	if s, _ := readAttr(dir, "bConfigurationValue"); s != "" {
		v, err := strconv.ParseUint(s, 10, 8)
		if err != nil {
			return d, fmt.Errorf("usb: %s: bConfigurationValue is %q, not a number", name, s)
		}
		d.ActiveConfig = uint8(v)
	}
	d.Path = filepath.Join(b.devRoot(), fmt.Sprintf("%03d", d.Bus), fmt.Sprintf("%03d", d.Address))
	return d, nil
}

func readAttr(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	return strings.TrimSpace(string(b)), err
}
