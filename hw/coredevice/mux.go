package coredevice

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/usb"
)

// recordsDir is the state directory's folder of pair records (and the
// usbmux host's system BUID): one copy of each record.
func recordsDir(stateDir string) string { return filepath.Join(stateDir, "coredevice") }

// startMux returns the usbmux the backend speaks through: usbmuxd's
// socket when socket is set, else the box's own usbmux over the USB
// ports of bus, which finds iPhones until ctx ends (in wg).
func startMux(ctx context.Context, wg *sync.WaitGroup, socket string, bus usb.Bus, stateDir string, log *slog.Logger) usbmux.Mux {
	if socket != "" {
		return &usbmux.Client{Socket: socket}
	}
	h := &muxusb.Host{Records: lockdown.Store{Dir: recordsDir(stateDir)}}
	wg.Go(func() { h.WatchUSB(ctx, muxusb.USB{Bus: bus, Log: log}) })
	return h
}

// attachWait is how long selftest waits for the box's own usbmux to find
// an iPhone: a few looks at the ports and a version exchange.
const attachWait = 5 * time.Second

// usbDevices returns the devices on USB that mux lists, asking again
// every 100 ms for up to wait while there are none.
func usbDevices(ctx context.Context, mux usbmux.Mux, wait time.Duration) ([]usbmux.Device, error) {
	deadline := time.After(wait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		all, err := mux.ListDevices(ctx)
		if err != nil {
			return nil, err
		}
		var devs []usbmux.Device
		for _, d := range all {
			if d.ConnectionType == "USB" {
				devs = append(devs, d)
			}
		}
		if len(devs) > 0 {
			return devs, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline:
			return nil, nil
		case <-tick.C:
		}
	}
}
