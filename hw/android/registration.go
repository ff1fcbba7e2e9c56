package android

import (
	"context"
	"flag"
	"fmt"
	"net"

	"github.com/openlolo/openlolo/hw/phone"
)

// Registration is the Android backend's registration with the binary
// (see phone.Registration), on top of base: --phone android with
// --adb HOST:PORT, a phone in `adb tcpip` mode; --phone auto takes it
// when --adb is given. The box's ADB key is made once in the state
// directory's android folder.
func Registration(base Options) phone.Registration {
	return phone.Registration{Name: "android", Help: "an Android phone over ADB", AutoHelp: "if --adb is given", Flags: func(fs *flag.FlagSet) phone.Opener {
		o := base
		var addr string
		fs.StringVar(&addr, "adb", "", "android: the phone's ADB over TCP, HOST:PORT (a phone in `adb tcpip 5555` mode)")
		open := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			o := o
			if o.StateDir == "" {
				o.StateDir = env.StateDir
			}
			if o.Logger == nil {
				o.Logger = env.Logger
			}
			if o.Dial == nil {
				if addr == "" {
					return nil, fmt.Errorf("--phone android: give the phone's address with --adb HOST:PORT (the phone in `adb tcpip 5555` mode); USB comes later")
				}
				o.Dial, o.Where = TCP(addr), "at "+addr
			}
			p, err := Open(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("--phone android: %w", err)
			}
			return p, nil
		}
		auto := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			if addr == "" && base.Dial == nil {
				return nil, fmt.Errorf("%w: no --adb address", phone.ErrUnavailable)
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
