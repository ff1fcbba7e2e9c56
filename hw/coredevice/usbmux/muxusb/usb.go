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

// A device whose interface could not be claimed or whose version
// exchange failed (a phone still starting its USB side, an interface
// another program held for a moment) is tried again openRetries times,
// after firstRetry, then twice that, and so on; after the last, it is
// left until it is plugged in again.
const (
	openRetries = 3
	firstRetry  = 2 * time.Second
)

// retry is a device WatchUSB will try again, and when.
type retry struct {
	dev   usb.DeviceInfo
	tries int // tries made so far
	at    time.Time
}

// WatchUSB attaches every device on u's bus that speaks usbmux, with its
// USB serial number as UDID, until ctx ends; a device unplugged ends its
// session, which drops it from the list. A device whose interface cannot
// be claimed or whose version exchange fails is logged and tried again
// after 2, 4 and 8 s while it stays plugged in, then left until it is
// plugged in again. WatchUSB returns when ctx ends, with every session it
// opened closed.
func (h *Host) WatchUSB(ctx context.Context, u USB) {
	log := u.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	claim := u.Claim
	if claim == nil {
		claim = Claim
	}
	sessions := map[string]*Mux{}  // by usbdevfs path
	retries := map[string]*retry{} // by usbdevfs path
	defer func() {
		for _, m := range sessions {
			m.Close()
		}
	}()
	attach := func(dev usb.DeviceInfo, tries int) {
		m, err := h.openUSB(ctx, dev, claim, log)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if tries < openRetries {
				wait := firstRetry << tries
				log.Info("muxusb: cannot reach the device's usbmux yet; trying again", "device", dev.String(), "in", wait, "err", err)
				retries[dev.Path] = &retry{dev: dev, tries: tries + 1, at: time.Now().Add(wait)}
				return
			}
			log.Warn("muxusb: cannot reach the device's usbmux; unplug and plug it in again", "device", dev.String(), "tries", tries+1, "err", err)
			return
		}
		sessions[dev.Path] = m
		listed := h.Attach(m, usbmux.Device{UDID: dev.Serial, ProductID: uint64(dev.Product), LocationID: uint64(dev.Bus)<<16 | uint64(dev.Address)})
		log.Info("muxusb: device attached", "device", dev.String(), "id", listed.ID)
	}
	events := u.Bus.Watch(ctx, u.Interval, log)
	for {
		var wake <-chan time.Time
		var timer *time.Timer
		if len(retries) > 0 {
			next := time.Time{}
			for _, r := range retries {
				if next.IsZero() || r.at.Before(next) {
					next = r.at
				}
			}
			timer = time.NewTimer(time.Until(next))
			wake = timer.C
		}
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			dev := ev.Device
			if !ev.Added {
				delete(retries, dev.Path)
				if m, ok := sessions[dev.Path]; ok {
					log.Info("muxusb: device unplugged", "device", dev.String())
					m.Close()
					delete(sessions, dev.Path)
				}
				continue
			}
			if _, _, ok := Find(dev); ok {
				delete(retries, dev.Path)
				attach(dev, 0)
			}
		case <-wake:
			now := time.Now()
			for path, r := range retries {
				if !r.at.After(now) {
					delete(retries, path)
					attach(r.dev, r.tries)
				}
			}
		}
		if timer != nil {
			timer.Stop()
		}
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
