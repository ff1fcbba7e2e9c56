package android

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/phone"
)

// USBInput is AOA v2 HID input (hw/aoa) on the phone that [USB] dials:
// the first phone with USB debugging on the box's host ports. It opens AOA
// on first use, on the control endpoint only (ADB keeps its interface on
// the same cable), and again after the phone was unplugged. Where no phone
// is there or the phone offers no AOA, it answers an error wrapping
// phone.ErrUnsupported, so the backend's shell `input` runs instead; a
// phone that refused AOA is not asked again until it is plugged in anew.
type USBInput struct {
	// Bus is where the phone is (the zero Bus: the system's).
	Bus usb.Bus
	// Logger receives what AOA ignores (nil: discard).
	Logger *slog.Logger
	// Open opens AOA on the device (nil: aoa.Open over usb.Open's
	// device); tests replace it.
	Open func(ctx context.Context, path string) (phone.Input, func() error, error)

	mu      sync.Mutex
	in      phone.Input
	close   func() error
	path    string // the device node the open input is on
	refused string // the device node that refused AOA
}

var _ phone.Input = (*USBInput)(nil)

// openAOA is USBInput's default Open.
func (u *USBInput) openAOA(ctx context.Context, path string) (phone.Input, func() error, error) {
	d, err := usb.Open(path)
	if err != nil {
		return nil, nil, err
	}
	log := u.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	in, err := aoa.Open(ctx, aoa.Options{Controller: d, Logger: log})
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return in, func() error { return errors.Join(in.Close(), d.Close()) }, nil
}

// input is the open AOA input on the phone there now.
func (u *USBInput) input(ctx context.Context) (phone.Input, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.in != nil { // open until the phone goes (do closes it on ErrDeviceGone)
		return u.in, nil
	}
	devs, err := adbusb.Devices(u.Bus)
	if err != nil || len(devs) == 0 {
		return nil, fmt.Errorf("android: aoa: %w: no phone on the box's USB host ports (%v)", phone.ErrUnsupported, err)
	}
	path := devs[0].Path
	if u.refused == path {
		return nil, fmt.Errorf("android: aoa: %w: the phone at %s refused AOA", phone.ErrUnsupported, path)
	}
	open := u.Open
	if open == nil {
		open = u.openAOA
	}
	in, closeIn, err := open(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("android: aoa: open %s: %w", path, err)
		}
		u.refused = path
		return nil, fmt.Errorf("android: aoa: %w: open %s: %w", phone.ErrUnsupported, path, err)
	}
	u.in, u.close, u.path = in, closeIn, path
	return in, nil
}

// closeLocked closes the open input, if any.
func (u *USBInput) closeLocked() {
	if u.close != nil {
		u.close()
	}
	u.in, u.close, u.path = nil, nil, ""
}

// do runs f on the open input; a phone gone mid-input closes it, so the
// next input opens AOA on whatever phone is there then.
func (u *USBInput) do(ctx context.Context, f func(phone.Input) (phone.Report, error)) (phone.Report, error) {
	in, err := u.input(ctx)
	if err != nil {
		return phone.Report{}, err
	}
	rep, err := f(in)
	if errors.Is(err, usb.ErrDeviceGone) {
		u.mu.Lock()
		if u.in == in {
			u.closeLocked()
		}
		u.mu.Unlock()
	}
	return rep, err
}

// Touch performs g over AOA's touch digitizer.
func (u *USBInput) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	return u.do(ctx, func(in phone.Input) (phone.Report, error) { return in.Touch(ctx, g) })
}

// Type types text over AOA's keyboard.
func (u *USBInput) Type(ctx context.Context, text string) (phone.Report, error) {
	return u.do(ctx, func(in phone.Input) (phone.Report, error) { return in.Type(ctx, text) })
}

// Key presses k over AOA's keyboard.
func (u *USBInput) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	return u.do(ctx, func(in phone.Input) (phone.Report, error) { return in.Key(ctx, k) })
}

// Press presses b over AOA's consumer keys.
func (u *USBInput) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	return u.do(ctx, func(in phone.Input) (phone.Report, error) { return in.Press(ctx, b) })
}

// ReleaseAll releases what the open input holds; with none open nothing
// is held.
func (u *USBInput) ReleaseAll(ctx context.Context) error {
	u.mu.Lock()
	in := u.in
	u.mu.Unlock()
	if in == nil {
		return nil
	}
	return in.ReleaseAll(ctx)
}

// Close closes the open input.
func (u *USBInput) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closeLocked()
	return nil
}
