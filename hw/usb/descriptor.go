package usb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Descriptor types (USB 2.0, table 9-5).
const (
	descDevice    = 1
	descConfig    = 2
	descInterface = 4
	descEndpoint  = 5
)

// ErrBadDescriptor is returned for descriptors that do not parse.
var ErrBadDescriptor = errors.New("usb: malformed descriptors")

// TransferType is an endpoint's transfer type (bmAttributes bits 0-1).
type TransferType uint8

// Transfer types.
const (
	TransferControl     TransferType = 0
	TransferIsochronous TransferType = 1
	TransferBulk        TransferType = 2
	TransferInterrupt   TransferType = 3
)

// String names the transfer type.
func (t TransferType) String() string {
	return [...]string{"control", "isochronous", "bulk", "interrupt"}[t&3]
}

// Endpoint is one endpoint of an interface.
type Endpoint struct {
	Address    uint8 // bEndpointAddress: number, with bit 7 set for IN
	Attributes uint8 // bmAttributes
	MaxPacket  uint16
	Interval   uint8
}

// In reports whether data flows from the device to the box.
func (e Endpoint) In() bool { return e.Address&0x80 != 0 }

// Type is the endpoint's transfer type.
func (e Endpoint) Type() TransferType { return TransferType(e.Attributes & 3) }

// Interface is one alternate setting of an interface.
type Interface struct {
	Number, Alternate         uint8
	Class, SubClass, Protocol uint8
	Endpoints                 []Endpoint
}

// Bulk returns the interface's first bulk IN and bulk OUT endpoints; ok
// is false unless it has both.
func (i Interface) Bulk() (in, out Endpoint, ok bool) {
	var hasIn, hasOut bool
	for _, e := range i.Endpoints {
		if e.Type() != TransferBulk {
			continue
		}
		switch {
		case e.In() && !hasIn:
			in, hasIn = e, true
		case !e.In() && !hasOut:
			out, hasOut = e, true
		}
	}
	return in, out, hasIn && hasOut
}

// Config is one configuration of a device.
type Config struct {
	Value      uint8 // bConfigurationValue, what SetConfiguration takes
	Attributes uint8
	MaxPower   uint8 // in units of 2 mA
	Interfaces []Interface
}

// DeviceDescriptor is the fixed part of a device's descriptors.
type DeviceDescriptor struct {
	USB                       uint16 // bcdUSB
	Class, SubClass, Protocol uint8
	MaxPacket0                uint8
	Vendor, Product           uint16
	Release                   uint16 // bcdDevice
	NumConfigs                uint8
}

// ParseDescriptors parses what sysfs's `descriptors` file and a usbdevfs
// node both hold: the 18-byte device descriptor, then every
// configuration with its interfaces and endpoints (little-endian, as on
// the bus). Descriptors of other types (class-specific, interface
// associations) are skipped.
func ParseDescriptors(b []byte) (DeviceDescriptor, []Config, error) {
	var d DeviceDescriptor
	if len(b) < 18 || b[0] < 18 || b[1] != descDevice {
		return d, nil, fmt.Errorf("%w: no device descriptor in %d bytes", ErrBadDescriptor, len(b))
	}
	d = DeviceDescriptor{
		USB:   binary.LittleEndian.Uint16(b[2:]),
		Class: b[4], SubClass: b[5], Protocol: b[6], MaxPacket0: b[7],
		Vendor:     binary.LittleEndian.Uint16(b[8:]),
		Product:    binary.LittleEndian.Uint16(b[10:]),
		Release:    binary.LittleEndian.Uint16(b[12:]),
		NumConfigs: b[17],
	}
	var configs []Config
	var iface *Interface
	for off := int(b[0]); off < len(b); {
		n := int(b[off])
		if n < 2 || off+n > len(b) {
			return d, nil, fmt.Errorf("%w: descriptor at byte %d has length %d (%d bytes left)", ErrBadDescriptor, off, n, len(b)-off)
		}
		p := b[off : off+n]
		off += n
		short := func(min int) error {
			return fmt.Errorf("%w: descriptor type %d at byte %d is %d bytes (at least %d)", ErrBadDescriptor, p[1], off-n, n, min)
		}
		switch p[1] {
		case descConfig:
			if n < 9 {
				return d, nil, short(9)
			}
			configs = append(configs, Config{Value: p[5], Attributes: p[7], MaxPower: p[8]})
			iface = nil
		case descInterface:
			if n < 9 {
				return d, nil, short(9)
			}
			if len(configs) == 0 {
				return d, nil, fmt.Errorf("%w: interface before any configuration", ErrBadDescriptor)
			}
			c := &configs[len(configs)-1]
			c.Interfaces = append(c.Interfaces, Interface{Number: p[2], Alternate: p[3], Class: p[5], SubClass: p[6], Protocol: p[7]})
			iface = &c.Interfaces[len(c.Interfaces)-1]
		case descEndpoint:
			if n < 7 {
				return d, nil, short(7)
			}
			if iface == nil {
				return d, nil, fmt.Errorf("%w: endpoint before any interface", ErrBadDescriptor)
			}
			iface.Endpoints = append(iface.Endpoints, Endpoint{
				Address: p[2], Attributes: p[3],
				MaxPacket: binary.LittleEndian.Uint16(p[4:]), Interval: p[6],
			})
		}
	}
	return d, configs, nil
}
