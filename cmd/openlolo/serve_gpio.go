package main

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/openlolo/openlolo/appliance"
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
func (g gpioFlags) open(log *slog.Logger) (panel appliance.Panel, close func() error, err error) {
	if *g.off {
		return nil, func() error { return nil }, nil
	}
	p, err := gpio.Open(gpio.Options{
		Button: fmt.Sprintf("GPIO%d", *g.button),
		LED:    fmt.Sprintf("GPIO%d", *g.led),
		Logger: log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("--gpio-button/--gpio-led: %w", err)
	}
	return p, p.Close, nil
}
