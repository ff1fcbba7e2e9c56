package gadget

import (
	"context"
	"flag"
	"fmt"

	"github.com/openlolo/openlolo/phone"
)

// Registration is the USB gadget's registration with the binary (see
// phone.Registration), on top of base: --phone gadget, and --phone auto's
// choice on a board that can be a gadget. Its flags are --platform,
// --udc and --video.
func Registration(base Options) phone.Registration {
	return phone.Registration{Name: "gadget", Help: "USB gadget + capture", AutoHelp: "if the board can be one", Flags: func(fs *flag.FlagSet) phone.Opener {
		o := base
		if o.Platform == "" {
			o.Platform = IOS
		}
		fs.StringVar(&o.Platform, "platform", o.Platform, "gadget: the phone's platform: ios (absolute pointer), ios-relative or android (touchscreen)")
		fs.StringVar(&o.UDC, "udc", o.UDC, "gadget: USB device controller (default: the first)")
		fs.StringVar(&o.Video, "video", o.Video, "gadget: capture device /dev/videoN (default: the first that streams; none: input only)")
		open := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			o := o
			if o.Logger == nil {
				o.Logger = env.Logger
			}
			p, err := Open(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("--phone gadget: %w", err)
			}
			return p, nil
		}
		auto := func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			p, err := open(ctx, env)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", phone.ErrUnavailable, err)
			}
			return p, nil
		}
		return phone.Opener{Open: open, Auto: auto}
	}}
}
