package muxusb

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/usb"
)

// Apple's USB vendor ID, and the usbmux interface's class, subclass and
// protocol (usbmuxd's usb.h).
const (
	AppleVendor       = 0x05ac
	InterfaceClass    = 0xff
	InterfaceSubClass = 0xfe
	InterfaceProtocol = 0x02
)

// openTimeout bounds the version exchange with a device just plugged in.
const openTimeout = 10 * time.Second

// Find returns dev's usbmux interface and the configuration holding it,
// or false when dev is not an Apple device showing one.
func Find(dev usb.DeviceInfo) (usb.Config, usb.Interface, bool) {
	if dev.Vendor != AppleVendor {
		return usb.Config{}, usb.Interface{}, false
	}
	return dev.Find(InterfaceClass, InterfaceSubClass, InterfaceProtocol)
}

// Devices lists the devices on bus that speak usbmux (iPhones and iPads).
func Devices(bus usb.Bus) ([]usb.DeviceInfo, error) {
	return bus.DevicesWith(func(d usb.DeviceInfo) bool {
		_, _, ok := Find(d)
		return ok
	})
}

// Claim opens dev through usbdevfs, selects the configuration holding its
// usbmux interface (an iPhone starts in one without it, as usbmuxd
// finds), claims the interface, and returns its bulk pair and the OUT
// endpoint's packet size.
func Claim(dev usb.DeviceInfo) (Pipe, int, error) {
	c, iface, ok := Find(dev)
	if !ok {
		return nil, 0, fmt.Errorf("muxusb: %s shows no usbmux interface (class ff/fe/02)", dev)
	}
	in, out, ok := iface.Bulk()
	if !ok {
		return nil, 0, fmt.Errorf("muxusb: %s: the usbmux interface %d has no bulk IN and OUT endpoints", dev, iface.Number)
	}
	d, err := usb.Open(dev.Path)
	if err != nil {
		return nil, 0, err
	}
	if dev.ActiveConfig != c.Value {
		err = d.SetConfiguration(c.Value)
	}
	if err == nil {
		err = d.Claim(iface.Number)
	}
	if err == nil && iface.Alternate != 0 {
		err = d.SetAlternate(iface.Number, iface.Alternate)
	}
	if err != nil {
		d.Close()
		return nil, 0, fmt.Errorf("muxusb: %s: claim the usbmux interface: %w", dev, err)
	}
	return usb.Pipe{Device: d, InEndpoint: in.Address, OutEndpoint: out.Address}, int(out.MaxPacket), nil
}

// USB finds the iPhones on a host's USB ports for [Host.WatchUSB].
type USB struct {
	// Bus is where devices are looked for (zero: the real system's).
	Bus usb.Bus
	// Interval is how often the bus is listed (0: usb.DefaultWatchInterval).
	Interval time.Duration
	// Log receives arrivals, departures and failures (nil: discarded).
	Log *slog.Logger
	// Claim opens a device's usbmux interface (nil: [Claim], through
	// usbdevfs); tests replace it.
	Claim func(usb.DeviceInfo) (Pipe, int, error)
}

// WatchUSB attaches every device on u's bus that speaks usbmux, with its
// USB serial number as UDID, until ctx ends; a device unplugged ends its
// session, which drops it from the list. A device whose interface cannot
// be claimed or whose version exchange fails is logged and tried again
// when it is plugged in again. WatchUSB returns when ctx ends, with every
// session it opened closed.
func (h *Host) WatchUSB(ctx context.Context, u USB) {
	log := u.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	claim := u.Claim
	if claim == nil {
		claim = Claim
	}
	sessions := map[string]*Mux{} // by usbdevfs path
	defer func() {
		for _, m := range sessions {
			m.Close()
		}
	}()
	for ev := range u.Bus.Watch(ctx, u.Interval, log) {
		dev := ev.Device
		if !ev.Added {
			if m, ok := sessions[dev.Path]; ok {
				log.Info("muxusb: device unplugged", "device", dev.String())
				m.Close()
				delete(sessions, dev.Path)
			}
			continue
		}
		if _, _, ok := Find(dev); !ok {
			continue
		}
		m, err := h.openUSB(ctx, dev, claim, log)
		if err != nil {
			log.Warn("muxusb: cannot reach the device's usbmux; unplug and plug it in again", "device", dev.String(), "err", err)
			continue
		}
		sessions[dev.Path] = m
		listed := h.Attach(m, usbmux.Device{UDID: dev.Serial, ProductID: uint64(dev.Product), LocationID: uint64(dev.Bus)<<16 | uint64(dev.Address)})
		log.Info("muxusb: device attached", "device", dev.String(), "id", listed.ID)
	}
}

func (h *Host) openUSB(ctx context.Context, dev usb.DeviceInfo, claim func(usb.DeviceInfo) (Pipe, int, error), log *slog.Logger) (*Mux, error) {
	pipe, maxPacket, err := claim(dev)
	if err != nil {
		return nil, err
	}
	octx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	return Open(octx, pipe, Config{MaxPacket: maxPacket, Name: dev.Serial, Log: log})
}
