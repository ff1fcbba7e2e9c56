package main

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/hw/gpio"
)

// maxGPIO is the highest BCM GPIO number on a Raspberry Pi.
const maxGPIO = 53

// gpioFlags are serve's flags for the box's button and LED.
type gpioFlags struct {
	button, led *int
	off         *bool
}

func addGPIOFlags(fs *flag.FlagSet) gpioFlags {
	return gpioFlags{
		button: fs.Int("gpio-button", 17, "BCM GPIO of the button (pull-up, pressed = low): a short press claims the box, 10 s held resets it"),
		led:    fs.Int("gpio-led", 27, "BCM GPIO of the status LED (high = lit)"),
		off:    fs.Bool("no-gpio", false, "use no button and no LED (a machine without GPIO needs no flag: they are then left out)"),
	}
}

// check refuses pins that cannot be a Pi's GPIO and flags that contradict.
func (g gpioFlags) check(fs *flag.FlagSet) error {
	if *g.off {
		for _, name := range []string{"gpio-button", "gpio-led"} {
			if flagSet(fs, name) {
				return usagef("--%s has no effect with --no-gpio: drop one of them", name)
			}
		}
		return nil
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"gpio-button", *g.button}, {"gpio-led", *g.led}} {
		if f.n < 0 || f.n > maxGPIO {
			return usagef("--%s %d is not a GPIO: use a BCM GPIO number from 0 to %d (the button defaults to 17, the LED to 27)", f.name, f.n, maxGPIO)
		}
	}
	if *g.button == *g.led {
		return usagef("--gpio-button and --gpio-led are both GPIO%d: give the button and the LED a pin each", *g.button)
	}
	return nil
}

// open opens the button and the LED; close turns the LED off and stops
// watching the button. A machine without GPIO, or without those pins,
// gives a panel with nothing attached: not an error. With --no-gpio the
// panel is nil and GPIO is not looked at.
func (g gpioFlags) open(log *slog.Logger) (p panel.Panel, close func() error, err error) {
	if *g.off {
		return nil, func() error { return nil }, nil
	}
	gp, err := gpio.Open(gpio.Options{
		Button: fmt.Sprintf("GPIO%d", *g.button),
		LED:    fmt.Sprintf("GPIO%d", *g.led),
		Logger: log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("--gpio-button/--gpio-led: %w", err)
	}
	a := adaptGPIO(gp)
	return a, a.Close, nil
}

// gpioPanel is hw/gpio's button and LED as the appliance's panel.Panel:
// it carries the button's events and the LED's states across, kind by
// kind, so that neither package imports the other.
type gpioPanel struct {
	gp     *gpio.Panel
	events chan panel.Event
	done   chan struct{} // closed when events is
}

// adaptGPIO starts carrying gp's button events; Close closes both.
func adaptGPIO(gp *gpio.Panel) *gpioPanel {
	a := &gpioPanel{gp: gp, events: make(chan panel.Event, cap(gp.Events())), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer close(a.events)
		for ev := range gp.Events() {
			k, ok := eventKind(ev.Kind)
			if !ok {
				continue
			}
			// Like gpio.Panel itself: a slow reader misses events rather
			// than blocking the button.
			select {
			case a.events <- panel.Event{Kind: k, At: ev.At}:
			default:
			}
		}
	}()
	return a
}

// Events implements panel.Panel.
func (a *gpioPanel) Events() <-chan panel.Event { return a.events }

// SetLED implements panel.Panel.
func (a *gpioPanel) SetLED(l panel.LED) { a.gp.SetLED(gpioLED(l)) }

// Available implements panel.Panel.
func (a *gpioPanel) Available() bool { return a.gp.Available() }

// HasButton implements panel.Panel.
func (a *gpioPanel) HasButton() bool { return a.gp.HasButton() }

// Close stops the button and the LED (off) and closes Events.
func (a *gpioPanel) Close() error {
	err := a.gp.Close()
	<-a.done
	return err
}

// eventKind is the appliance's name for what the button did; false for a
// kind the appliance does not know (it is dropped).
func eventKind(k gpio.EventKind) (panel.EventKind, bool) {
	switch k {
	case gpio.Press:
		return panel.Press, true
	case gpio.ResetWarning:
		return panel.ResetWarning, true
	case gpio.ResetCancelled:
		return panel.ResetCancelled, true
	case gpio.Reset:
		return panel.Reset, true
	}
	return "", false
}

// gpioLED is how hw/gpio shows the appliance's LED state; an unknown one
// shows as an error (fast blink).
func gpioLED(l panel.LED) gpio.LED {
	switch l {
	case panel.Off:
		return gpio.Off
	case panel.SlowBlink:
		return gpio.SlowBlink
	case panel.On:
		return gpio.On
	}
	return gpio.FastBlink
}
