package main

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/hw/gpio"
	pgpio "periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

func TestServeGPIOFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--gpio-button", "-1"}, "--gpio-button -1 is not a GPIO"},
		{[]string{"--gpio-led", "54"}, "--gpio-led 54 is not a GPIO"},
		{[]string{"--gpio-button", "27"}, "both GPIO27"},
		{[]string{"--gpio-led", "17"}, "both GPIO17"},
		{[]string{"--no-gpio", "--gpio-led", "22"}, "--gpio-led has no effect with --no-gpio"},
		{[]string{"--gpio-button", "x"}, "gpio-button"},
	}
	for _, tt := range tests {
		args := append([]string{"serve", "--state", dir, "--lan", "127.0.0.1:0"}, tt.args...)
		code, _, stderr := run(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("serve %q = %d, stderr %q; want 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// A machine without GPIO serves as usual, with or without --no-gpio.
func TestServeWithoutGPIO(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--no-gpio"}, {"--gpio-button", "5", "--gpio-led", "6"}} {
		s := startServe(t, append([]string{"--state", t.TempDir(), "--lan", "127.0.0.1:0"}, args...)...)
		if code := s.stop(); code != 0 {
			t.Errorf("serve %q exited %d; stderr:\n%s", args, code, s.stderr)
		}
	}
}

// The adapter names every button event and LED state as the other side
// does (both sides' names are the same words).
func TestGPIOPanelKinds(t *testing.T) {
	t.Parallel()
	for _, k := range []gpio.EventKind{gpio.Press, gpio.ResetWarning, gpio.ResetCancelled, gpio.Reset} {
		if got, ok := eventKind(k); !ok || string(got) != string(k) {
			t.Errorf("eventKind(%s) = %s, %v; want %s", k, got, ok, k)
		}
	}
	if got, ok := eventKind("twist"); ok {
		t.Errorf("eventKind(twist) = %s, want none", got)
	}
	for _, l := range []panel.LED{panel.Off, panel.SlowBlink, panel.On, panel.FastBlink} {
		if got := gpioLED(l); got.String() != l.String() {
			t.Errorf("gpioLED(%s) = %s", l, got)
		}
	}
	if got := gpioLED(panel.LED(99)); got != gpio.FastBlink {
		t.Errorf("gpioLED(99) = %s, want fast_blink", got)
	}
}

// What the box sees of hw/gpio through the adapter: no pins, an LED
// only, and a button held to a reset, with the LED it was told to show.
func TestGPIOPanel(t *testing.T) {
	t.Parallel()
	t.Run("no GPIO", func(t *testing.T) {
		a := openAdapted(t, gpio.Options{Button: gpio.None, LED: gpio.None})
		if a.Available() || a.HasButton() {
			t.Errorf("Available %v, HasButton %v; want neither", a.Available(), a.HasButton())
		}
	})
	t.Run("LED only", func(t *testing.T) {
		led := &gpiotest.Pin{N: "GPIO27", Num: 27}
		a := openAdapted(t, gpio.Options{Button: gpio.None, LEDPin: led})
		if !a.Available() || a.HasButton() {
			t.Errorf("Available %v, HasButton %v; want an LED and no button", a.Available(), a.HasButton())
		}
		a.SetLED(panel.On)
		if got := a.gp.LEDState(); got != gpio.On {
			t.Errorf("LED %s after SetLED(on)", got)
		}
	})
	t.Run("hold to reset", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			btn := &gpiotest.Pin{N: "GPIO17", Num: 17, EdgesChan: make(chan pgpio.Level, 8)}
			a := openAdapted(t, gpio.Options{ButtonPin: btn, LED: gpio.None, HoldWarn: time.Second, HoldReset: 2 * time.Second})
			start := time.Now()
			btn.EdgesChan <- pgpio.Low
			for _, want := range []panel.EventKind{panel.ResetWarning, panel.Reset} {
				ev := <-a.Events()
				if ev.Kind != want {
					t.Fatalf("event %s, want %s", ev.Kind, want)
				}
			}
			if held := time.Since(start); held < 2*time.Second {
				t.Errorf("reset after %v held, want 2 s", held)
			}
			a.Close()
			if _, open := <-a.Events(); open {
				t.Error("Events open after Close")
			}
		})
	})
}

func openAdapted(t *testing.T, opts gpio.Options) *gpioPanel {
	t.Helper()
	gp, err := gpio.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	a := adaptGPIO(gp)
	t.Cleanup(func() { a.Close() })
	return a
}
