package sim

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/openlolo/openlolo/phone"
)

// Registration is the simulated phone's registration with the binary (see
// phone.Registration), on top of base: --phone sim, and --phone auto's last
// resort. Its flag --sim-size sets the screen size.
func Registration(base Options) phone.Registration {
	return phone.Registration{Name: "sim", Help: "a simulated iPhone", Flags: func(fs *flag.FlagSet) phone.Opener {
		o, sized := base, false
		fs.Func("sim-size", "screen size of the simulated phone, WxH (default 1179x2556)", func(s string) error {
			size, err := parseDims(s)
			o.Size, sized = size, err == nil
			return err
		})
		open := func(_ context.Context, env phone.Env) (phone.Phone, error) {
			if o.Logger == nil {
				o.Logger = env.Logger
			}
			p, err := New(o)
			if err != nil {
				return nil, fmt.Errorf("--phone sim: %w", err)
			}
			return p, nil
		}
		check := func(chosen string) error {
			if sized && chosen != "sim" && chosen != "auto" {
				return errors.New("--sim-size applies to --phone sim only (or auto, when it falls back to sim)")
			}
			return nil
		}
		return phone.Opener{Open: open, Auto: open, Check: check}
	}}
}
