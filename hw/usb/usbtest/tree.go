// Package usbtest writes fake sysfs trees of USB devices, so code that
// finds devices through hw/usb (the ADB and usbmux transports, the
// phone backends' auto-detection) is tested without hardware: point a
// usb.Bus's SysRoot at the folder.
package usbtest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/openlolo/openlolo/hw/usb"
)

// Descriptors builds the bytes of a device's sysfs `descriptors` file:
// the device descriptor, then each configuration with its interfaces
// and endpoints (string indexes 1, 2 and 3 for manufacturer, product
// and serial).
func Descriptors(d usb.DeviceDescriptor, configs ...usb.Config) []byte {
	b := []byte{18, 1}
	b = binary.LittleEndian.AppendUint16(b, d.USB)
	b = append(b, d.Class, d.SubClass, d.Protocol, d.MaxPacket0)
	b = binary.LittleEndian.AppendUint16(b, d.Vendor)
	b = binary.LittleEndian.AppendUint16(b, d.Product)
	b = binary.LittleEndian.AppendUint16(b, d.Release)
	b = append(b, 1, 2, 3, byte(len(configs)))
	for _, c := range configs {
		var body []byte
		for _, i := range c.Interfaces {
			body = append(body, 9, 4, i.Number, i.Alternate, byte(len(i.Endpoints)), i.Class, i.SubClass, i.Protocol, 0)
			for _, e := range i.Endpoints {
				body = append(body, 7, 5, e.Address, e.Attributes)
				body = binary.LittleEndian.AppendUint16(body, e.MaxPacket)
				body = append(body, e.Interval)
			}
		}
		b = append(b, 9, 2)
		b = binary.LittleEndian.AppendUint16(b, uint16(9+len(body)))
		b = append(b, byte(len(c.Interfaces)), c.Value, 0, c.Attributes, c.MaxPower)
		b = append(b, body...)
	}
	return b
}

// WriteDevice writes d's sysfs folder under root (d.Name, its
// attribute files and descriptors, and an interface folder a listing
// skips), as the kernel shows a plugged device. Empty strings are left
// out, as for a device without them.
func WriteDevice(root string, d usb.DeviceInfo) error {
	dir := filepath.Join(root, d.Name)
	if err := os.MkdirAll(filepath.Join(root, d.Name+":1.0"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"descriptors":         string(Descriptors(d.DeviceDescriptor, d.Configs...)),
		"busnum":              strconv.Itoa(d.Bus) + "\n",
		"devnum":              strconv.Itoa(d.Address) + "\n",
		"bConfigurationValue": "\n",
		"manufacturer":        d.Manufacturer,
		"product":             d.ProductName,
		"serial":              d.Serial,
		"speed":               d.Speed,
	}
	if d.ActiveConfig != 0 {
		files["bConfigurationValue"] = strconv.Itoa(int(d.ActiveConfig)) + "\n"
	}
	for name, v := range files {
		if v == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			return fmt.Errorf("usbtest: %w", err)
		}
	}
	return nil
}

// RemoveDevice removes a device's folder: it was unplugged.
func RemoveDevice(root, name string) error {
	if err := os.RemoveAll(filepath.Join(root, name+":1.0")); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(root, name))
}

// Bulk is a bulk endpoint pair's descriptors (IN 0x81, OUT 0x01, 512
// bytes: high speed), for a fake interface.
var Bulk = []usb.Endpoint{
	{Address: 0x81, Attributes: byte(usb.TransferBulk), MaxPacket: 512},
	{Address: 0x01, Attributes: byte(usb.TransferBulk), MaxPacket: 512},
}
