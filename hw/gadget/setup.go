package gadget

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
)

// Platform profiles: which pointer function the gadget offers.
const (
	// Android: keyboard, consumer control, multitouch digitizer.
	Android = "android"
	// IOS: keyboard, consumer control, absolute mouse (AssistiveTouch).
	IOS = "ios"
	// IOSRelative: keyboard, consumer control, relative boot mouse, the
	// fallback for iOS versions that ignore absolute pointers.
	IOSRelative = "ios-relative"
)

// LayoutFor returns the gadget layout of a platform profile: keyboard,
// consumer control, then the platform's pointer last.
func LayoutFor(platform string, id Identity) (Layout, error) {
	fns := []hid.Function{hid.KeyboardFunction(), hid.ConsumerFunction()}
	// Each profile has its own bcdDevice so a host that saw another
	// profile does not reuse what it cached about the interfaces.
	var dev uint16
	switch platform {
	case Android:
		fns, dev = append(fns, hid.TouchFunction()), DeviceAndroid
	case IOS:
		fns, dev = append(fns, hid.AbsMouseFunction()), DeviceIOS
	case IOSRelative:
		fns, dev = append(fns, hid.RelMouseFunction()), DeviceIOSRelative
	default:
		return Layout{}, fmt.Errorf("gadget: unknown platform %q (want %s, %s or %s)", platform, Android, IOS, IOSRelative)
	}
	if id.Device == 0 {
		id.Device = dev
	}
	return Layout{Identity: id, Functions: fns}, nil
}

// bcdDevice of each profile (when Identity.Device is zero).
const (
	DeviceAndroid     = 0x0101
	DeviceIOS         = 0x0102
	DeviceIOSRelative = 0x0103
)

// Setup says where the gadget lives. Zero values pick the documented
// defaults, which are the real kernel paths.
type Setup struct {
	// Platform is Android, IOS or IOSRelative.
	Platform string
	// Identity is the USB identity (serial from the board).
	Identity Identity
	// UDC is the controller to bind; "" means the first one listed.
	UDC string
	// ConfigFS is the configfs gadget root; "" means DefaultConfigFS.
	ConfigFS string
	// UDCDir is the UDC class folder; "" means DefaultUDCDir.
	UDCDir string
	// DevDir holds the hidg nodes; "" means /dev.
	DevDir string
}

// Bound is a gadget set up and bound to a UDC.
type Bound struct {
	// UDC is the controller the gadget is bound to.
	UDC string
	// Layout is what was applied.
	Layout Layout
	// Paths maps each function to its /dev/hidgN node.
	Paths map[hid.Kind]string
	r     *Reconciler
	udcs  string
}

// Apply reconciles the platform's layout and binds it (once: an already
// bound, unchanged gadget is left alone), then waits up to wait for the
// hidg nodes to appear. Errors wrap ErrNoUDC when there is no controller.
func (s Setup) Apply(ctx context.Context, wait time.Duration) (*Bound, error) {
	l, err := LayoutFor(s.Platform, s.Identity)
	if err != nil {
		return nil, err
	}
	udc, err := PickUDC(s.UDCDir, s.UDC)
	if err != nil {
		return nil, err
	}
	r := &Reconciler{Root: s.ConfigFS}
	if _, err := r.Reconcile(l); err != nil {
		return nil, err
	}
	name := l.Name
	if err := r.Bind(name, udc); err != nil {
		return nil, err
	}
	b := &Bound{UDC: udc, Layout: l, Paths: map[hid.Kind]string{}, r: r, udcs: s.UDCDir}
	for _, f := range l.Functions {
		p, err := r.DevicePath(name, f.Name, s.DevDir)
		if err != nil {
			return nil, err
		}
		if err := waitFile(ctx, p, wait); err != nil {
			return nil, fmt.Errorf("gadget: %s for %s: %w", p, f.Name, err)
		}
		b.Paths[f.Kind] = p
	}
	return b, nil
}

// StateUnbound is what Bound.State reports when the gadget is no longer
// bound to its UDC (someone wrote UDC): the controller's own state file
// may still say "configured" then.
const StateUnbound = "unbound"

// State reads the bound UDC's state ("configured" when the phone has set
// the device up), or StateUnbound when the gadget left the UDC.
func (b *Bound) State() string {
	if u, err := b.r.Bound(b.Layout.Name); err != nil || u != b.UDC {
		return StateUnbound
	}
	return UDCState(b.udcs, b.UDC)
}

// Teardown unbinds and removes the gadget. Close writers first.
func (b *Bound) Teardown() error { return b.r.Teardown(b.Layout.Name) }
