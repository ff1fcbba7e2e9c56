// Package panel is the box's front panel as the appliance sees it: the
// button's events and what the status LED shows. It holds types only; the
// hardware behind them (GPIO pins, debouncing, blink timing) is the
// caller's, adapted to [Panel] (cmd/openlolo adapts hw/gpio), so the
// appliance builds and is tested without any GPIO library.
//
// A short press of the button ([Press]) is proof of presence: it confirms
// an owner claim that waits for one. Holding it warns ([ResetWarning], at
// 5 s), and held on it resets the box ([Reset], at 10 s); letting go after
// the warning cancels the reset and opens the setup Wi-Fi network
// ([ResetCancelled]), so one hold does both jobs without a second timer.
package panel

import "time"

// Panel is the box's button and status LED. Its methods are safe for
// concurrent use.
type Panel interface {
	// Events are the button's presses and holds; closed when the panel
	// closes.
	Events() <-chan Event
	// SetLED sets what the LED shows.
	SetLED(LED)
	// Available reports whether a button or an LED is attached.
	Available() bool
	// HasButton reports whether a button is attached.
	HasButton() bool
}

// EventKind names what the button did.
type EventKind string

// Button events.
const (
	// Press is a short press (released before the reset warning).
	Press EventKind = "press"
	// ResetWarning: the button has been held long enough that the box
	// warns it will reset; letting go now cancels.
	ResetWarning EventKind = "reset_warning"
	// ResetCancelled: released after the warning, before the reset; the
	// box opens its setup Wi-Fi network (where it has one).
	ResetCancelled EventKind = "reset_cancelled"
	// Reset: held long enough; the box resets to factory state.
	Reset EventKind = "reset"
)

// Event is one button event.
type Event struct {
	Kind EventKind
	At   time.Time // when the button did it
}

// LED is what the status LED shows.
type LED int

// LED states.
const (
	// Off: booting, or the box has stopped.
	Off LED = iota
	// SlowBlink: unclaimed, or waiting for the owner's approval.
	SlowBlink
	// On: ready.
	On
	// FastBlink: an error the owner must fix at the box.
	FastBlink
)

// String names the state.
func (l LED) String() string {
	switch l {
	case Off:
		return "off"
	case SlowBlink:
		return "slow_blink"
	case On:
		return "on"
	case FastBlink:
		return "fast_blink"
	}
	return "unknown"
}
