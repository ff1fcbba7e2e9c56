package adbusb

import (
	"context"
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/usb"
)

// The ADB interface's class, subclass and protocol (AOSP adb.h).
const (
	Class    = 0xff
	SubClass = 0x42
	Protocol = 0x01
)

// maxTransfer bounds one OUT transfer, as adb's own host does (16 KiB
// keeps usbdevfs's and the phone's buffers small).
const maxTransfer = 16 << 10

// ErrNoInterface means the device shows no ADB interface: USB debugging
// is off (or it is not an Android device).
var ErrNoInterface = errors.New("adbusb: the device has no ADB interface; turn on USB debugging in the phone's Developer options")

// Devices lists the devices on bus that show an ADB interface.
func Devices(bus usb.Bus) ([]usb.DeviceInfo, error) {
	return bus.DevicesWith(func(d usb.DeviceInfo) bool {
		_, _, ok := d.Find(Class, SubClass, Protocol)
		return ok
	})
}

// Endpoints finds dev's ADB interface, the configuration holding it and
// its bulk endpoints.
func Endpoints(dev usb.DeviceInfo) (usb.Config, usb.Interface, usb.Endpoint, usb.Endpoint, error) {
	c, iface, ok := dev.Find(Class, SubClass, Protocol)
	if !ok {
		return c, iface, usb.Endpoint{}, usb.Endpoint{}, fmt.Errorf("%w (%s)", ErrNoInterface, dev)
	}
	in, out, ok := iface.Bulk()
	if !ok {
		return c, iface, in, out, fmt.Errorf("adbusb: %s: the ADB interface %d has no bulk IN and OUT endpoints", dev, iface.Number)
	}
	return c, iface, in, out, nil
}

// Dial opens dev, claims its ADB interface (selecting the configuration
// that holds it) and runs hw/adb's handshake over the bulk endpoints.
// Like [adb.Client], it waits while the phone asks its owner to allow
// the box's key. When the phone is unplugged the connection fails with
// an error wrapping [usb.ErrDeviceGone].
func Dial(ctx context.Context, dev usb.DeviceInfo, cfg adb.ClientConfig) (*adb.Conn, error) {
	c, iface, in, out, err := Endpoints(dev)
	if err != nil {
		return nil, err
	}
	d, err := usb.Open(dev.Path)
	if err != nil {
		return nil, err
	}
	if dev.ActiveConfig != c.Value {
		if err := d.SetConfiguration(c.Value); err != nil {
			d.Close()
			return nil, err
		}
	}
	if err := d.Claim(iface.Number); err != nil {
		d.Close()
		return nil, err
	}
	if iface.Alternate != 0 {
		if err := d.SetAlternate(iface.Number, iface.Alternate); err != nil {
			d.Close()
			return nil, err
		}
	}
	p := usb.Pipe{Device: d, InEndpoint: in.Address, OutEndpoint: out.Address}
	t := NewTransport(Pipe{
		In:          p.In,
		Out:         p.Out,
		MaxPacket:   int(out.MaxPacket),
		MaxTransfer: maxTransfer,
		Close:       p.Close,
	})
	conn, err := adb.Client(ctx, t, cfg)
	if err != nil {
		return nil, fmt.Errorf("adbusb: %s: %w", dev, err)
	}
	return conn, nil
}
