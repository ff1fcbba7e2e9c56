package main

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/hid"
)

// inputs turns test actions into report sequences over the gadget's
// writers, with the field timings (50 ms key taps, 70 ms touch hold,
// 80 ms pointer settle).
type inputs struct {
	w *gadget.Writer
}

func newInputs(w *gadget.Writer) *inputs { return &inputs{w: w} }

func (in *inputs) seq(ctx context.Context, k hid.Kind, hold time.Duration, reports ...[]byte) error {
	for i, r := range reports {
		if i > 0 {
			time.Sleep(hold)
		}
		if err := in.w.WriteReport(ctx, k, r); err != nil {
			return err
		}
	}
	return nil
}

// Type types printable ASCII on the boot keyboard.
func (in *inputs) Type(ctx context.Context, text string) error {
	for i := 0; i < len(text); i++ {
		key, shift, ok := hid.CharKey(text[i])
		if !ok {
			return fmt.Errorf("cannot type %q", text[i])
		}
		var mods hid.Modifiers
		if shift {
			mods = hid.LeftShift
		}
		if err := in.seq(ctx, hid.KindKeyboard, 50*time.Millisecond, hid.Keyboard(mods, key), hid.Keyboard(0)); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// TapTouch taps the digitizer at a fraction of the screen.
func (in *inputs) TapTouch(ctx context.Context, x, y float64) error {
	X, Y := hid.Scale(x), hid.Scale(y)
	return in.seq(ctx, hid.KindTouch, 70*time.Millisecond,
		hid.Touch(hid.TouchState{Contact: true, X: X, Y: Y}), hid.Touch(hid.TouchState{X: X, Y: Y}))
}

// Consumer presses and releases a consumer usage.
func (in *inputs) Consumer(ctx context.Context, u uint16) error {
	return in.seq(ctx, hid.KindConsumer, 50*time.Millisecond, hid.Consumer(u), hid.Consumer(hid.ConsumerNone))
}

// ClickAbs moves the absolute pointer, settles and clicks.
func (in *inputs) ClickAbs(ctx context.Context, x, y float64) error {
	X, Y := hid.Scale(x), hid.Scale(y)
	return in.seq(ctx, hid.KindAbsMouse, 80*time.Millisecond,
		hid.AbsMouse(0, X, Y, 0), hid.AbsMouse(hid.ButtonLeft, X, Y, 0), hid.AbsMouse(0, X, Y, 0))
}

// MoveRel moves the relative pointer once.
func (in *inputs) MoveRel(ctx context.Context, dx, dy int8) error {
	return in.w.WriteReport(ctx, hid.KindRelMouse, hid.RelMouse(0, dx, dy, 0))
}
