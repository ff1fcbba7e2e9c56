package android

import (
	"context"
	"flag"
	"fmt"
	"net"

	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/phone"
)

// Registration is the Android backend's registration with the binary
// (see phone.Registration), on top of base: --phone android, a phone
// with USB debugging on a USB host port of the box, or with --adb
// HOST:PORT one in `adb tcpip` mode; --phone auto takes it when --adb is
// given or such a phone is on a host port. The box's ADB key is made
// once in the state directory's android folder.
func Registration(base Options) phone.Registration {
	return phone.Registration{Name: "android", Help: "an Android phone over ADB", AutoHelp: "if --adb is given or a phone with USB debugging is on a host port", Flags: func(fs *flag.FlagSet) phone.Opener {
		o := base
		var addr string
		fs.StringVar(&addr, "adb", "", "android: the phone's ADB over TCP, HOST:PORT (a phone in `adb tcpip 5555` mode; without it, a phone on a USB host port)")
		open := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			o := o
			if o.StateDir == "" {
				o.StateDir = env.StateDir
			}
			if o.Logger == nil {
				o.Logger = env.Logger
			}
			switch {
			case o.Dial != nil:
			case addr != "":
				o.Dial, o.Where = TCP(addr), "at "+addr
			default:
				o.Dial, o.Where = USB(o.Bus), "on the box's USB host ports"
				if o.Input == nil { // AOA HID on the same cable, the shell's input where refused
					o.Input, o.InputName = &USBInput{Bus: o.Bus, Logger: o.Logger}, AOAInput
				}
			}
			p, err := Open(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("--phone android: %w", err)
			}
			return p, nil
		}
		auto := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			if addr != "" || base.Dial != nil {
				return open(ctx, env)
			}
			devs, err := adbusb.Devices(o.Bus)
			if err != nil {
				return nil, fmt.Errorf("%w: no --adb address, and the USB devices: %w", phone.ErrUnavailable, err)
			}
			if len(devs) == 0 {
				return nil, fmt.Errorf("%w: no --adb address, and no phone with USB debugging on a host port", phone.ErrUnavailable)
			}
			return open(ctx, env)
		}
		check := func(chosen string) error {
			if addr == "" {
				return nil
			}
			if chosen != "android" && chosen != "auto" {
				return fmt.Errorf("--adb is for --phone android, not --phone %s", chosen)
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return fmt.Errorf("--adb %q: want HOST:PORT, e.g. 192.168.1.20:5555 (%v)", addr, err)
			}
			return nil
		}
		return phone.Opener{Open: open, Auto: auto, Check: check}
	}}
}
