package gpio

import (
	"time"

	"periph.io/x/conn/v3/gpio"
)

// EventKind names what the button did.
type EventKind string

// Button events.
const (
	// Press is a short press (released before the reset warning).
	Press EventKind = "press"
	// ResetWarning: the button has been held for Options.HoldWarn; the
	// LED warns. Letting go now cancels.
	ResetWarning EventKind = "reset_warning"
	// ResetCancelled: released after the warning, before the reset.
	ResetCancelled EventKind = "reset_cancelled"
	// Reset: held for Options.HoldReset; start the factory reset.
	Reset EventKind = "reset"
)

// Event is one button event.
type Event struct {
	Kind EventKind
	At   time.Time
}

// button is the debounced press/hold state machine, fed with samples of
// the pin's level. It does no I/O, so it is tested with synthetic times.
type button struct {
	debounce, warn, reset time.Duration

	raw      gpio.Level // last sampled level
	rawSince time.Time  // when raw last changed
	pressed  bool       // debounced state (active low: Low = pressed)
	since    time.Time  // when the debounced state became pressed
	warned   bool
	fired    bool
	started  bool
}

// update takes a sample and returns the events it causes.
func (b *button) update(level gpio.Level, now time.Time) []EventKind {
	if !b.started {
		b.started, b.raw, b.rawSince = true, level, now
		// A button held at start does not count until released.
		b.pressed, b.since, b.fired = level == gpio.Low, now, level == gpio.Low
		return nil
	}
	if level != b.raw {
		b.raw, b.rawSince = level, now
	}
	var out []EventKind
	stable := now.Sub(b.rawSince) >= b.debounce
	want := b.raw == gpio.Low
	if stable && want != b.pressed {
		b.pressed = want
		if want {
			b.since, b.warned, b.fired = b.rawSince, false, false
		} else {
			held := b.rawSince.Sub(b.since)
			switch {
			case b.fired:
			case b.warned:
				out = append(out, ResetCancelled)
			case held >= b.debounce:
				out = append(out, Press)
			}
			b.warned, b.fired = false, false
		}
	}
	if b.pressed && !b.fired {
		held := now.Sub(b.since)
		if !b.warned && held >= b.warn {
			b.warned = true
			out = append(out, ResetWarning)
		}
		if held >= b.reset {
			b.fired = true
			out = append(out, Reset)
		}
	}
	return out
}

// warning reports whether the LED should show the reset warning.
func (b *button) warning() bool { return b.pressed && b.warned && !b.fired }
