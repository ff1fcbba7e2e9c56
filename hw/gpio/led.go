package gpio

import (
	"time"

	"periph.io/x/conn/v3/gpio"
)

// LED is what the status LED shows.
type LED int

// LED states.
const (
	// Off: booting.
	Off LED = iota
	// SlowBlink: unclaimed, or waiting for the owner's approval.
	SlowBlink
	// On: ready.
	On
	// FastBlink: an error.
	FastBlink
	// warnBlink: the button is held long enough for a reset (internal).
	warnBlink
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
	case warnBlink:
		return "reset_warning"
	}
	return "unknown"
}

// Blink half-periods.
const (
	slowHalf = 500 * time.Millisecond
	fastHalf = 125 * time.Millisecond
	warnHalf = 50 * time.Millisecond
)

// level is the LED pin's level for state s at time t since start.
func level(s LED, t time.Duration) gpio.Level {
	blink := func(half time.Duration) gpio.Level {
		return gpio.Level((t/half)%2 == 0)
	}
	switch s {
	case On:
		return gpio.High
	case SlowBlink:
		return blink(slowHalf)
	case FastBlink:
		return blink(fastHalf)
	case warnBlink:
		return blink(warnHalf)
	}
	return gpio.Low
}
