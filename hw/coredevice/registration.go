package coredevice

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/phone"
)

// SocketHelp is the help of the --usbmuxd flag (serve and selftest).
const SocketHelp = "coredevice: usbmuxd's socket, on a desktop that runs usbmuxd (default: none; the box speaks usbmux over its own USB ports)"

// autoLook bounds --phone auto's question to usbmuxd (with --usbmuxd).
const autoLook = 3 * time.Second

// Registration is the CoreDevice backend's registration with the binary (see
// phone.Registration), on top of base: --phone coredevice, and --phone auto's
// first choice when an iPhone is on a USB port (the box speaks usbmux
// itself; --usbmuxd PATH goes through a running usbmuxd instead). Pair records go to the state directory's coredevice folder
// and, unless base says otherwise, the developer disk image is mounted
// from its coredevice/ddi folder.
func Registration(base Options) phone.Registration {
	return phone.Registration{Name: "coredevice", Help: "an iPhone on a USB port", AutoHelp: "if an iPhone is on a USB port", Flags: func(fs *flag.FlagSet) phone.Opener {
		o := base
		fs.StringVar(&o.Socket, "usbmuxd", o.Socket, SocketHelp)
		open := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			o := o
			if o.StateDir == "" {
				o.StateDir = env.StateDir
			}
			if o.Logger == nil {
				o.Logger = env.Logger
			}
			if o.Mount == nil {
				// The developer disk image, signed by Apple after every restart of the phone.
				o.Mount = MountFrom(filepath.Join(o.StateDir, "coredevice", "ddi"), ddi.TSS{})
			}
			p, err := Open(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("--phone coredevice: %w", err)
			}
			return p, nil
		}
		auto := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			if o.Socket == "" {
				devs, err := muxusb.Devices(o.USB)
				if err != nil {
					return nil, fmt.Errorf("%w: %w", phone.ErrUnavailable, err)
				}
				if len(devs) == 0 {
					return nil, fmt.Errorf("%w: no iPhone on a USB port", phone.ErrUnavailable)
				}
				return open(ctx, env)
			}
			lctx, cancel := context.WithTimeout(ctx, autoLook)
			devs, err := (&usbmux.Client{Socket: o.Socket}).ListDevices(lctx)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("%w: usbmuxd: %w", phone.ErrUnavailable, err)
			}
			for _, d := range devs {
				if d.ConnectionType == "USB" {
					return open(ctx, env)
				}
			}
			return nil, fmt.Errorf("%w: usbmuxd sees no iPhone on USB", phone.ErrUnavailable)
		}
		return phone.Opener{Open: open, Auto: auto}
	}}
}
