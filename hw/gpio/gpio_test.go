package gpio

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// sample is the pin's level from a time on (ms since start).
type sample struct {
	at    int
	level gpio.Level
}

func TestButton(t *testing.T) {
	t.Parallel()
	const H, L = gpio.High, gpio.Low
	tests := []struct {
		name    string
		samples []sample
		until   int // feed High-or-last samples every 10 ms until then
		want    []EventKind
	}{
		{"short press", []sample{{0, H}, {100, L}, {300, H}}, 400, []EventKind{Press}},
		{"bounce is not a press", []sample{{0, H}, {100, L}, {110, H}, {120, L}, {125, H}}, 400, nil},
		{"bouncy press counts once", []sample{{0, H}, {100, L}, {105, H}, {110, L}, {400, H}, {405, L}, {410, H}}, 600, []EventKind{Press}},
		{"hold then let go before reset", []sample{{0, H}, {100, L}, {7000, H}}, 7200, []EventKind{ResetWarning, ResetCancelled}},
		{"hold to reset", []sample{{0, H}, {100, L}, {10200, H}}, 10400, []EventKind{ResetWarning, Reset}},
		{"held at start does nothing", []sample{{0, L}, {12000, H}}, 12200, nil},
		{"held at start, then a press", []sample{{0, L}, {500, H}, {700, L}, {900, H}}, 1000, []EventKind{Press}},
	}
	for _, tt := range tests {
		b := button{debounce: 30 * time.Millisecond, warn: 5 * time.Second, reset: 10 * time.Second}
		t0 := time.Unix(1000, 0)
		var got []EventKind
		lvl, i := tt.samples[0].level, 0
		for ms := 0; ms <= tt.until; ms += 5 {
			for i < len(tt.samples) && tt.samples[i].at <= ms {
				lvl = tt.samples[i].level
				i++
			}
			got = append(got, b.update(lvl, t0.Add(time.Duration(ms)*time.Millisecond))...)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: events %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLEDLevel(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		s    LED
		at   time.Duration
		want gpio.Level
	}{
		{Off, 0, gpio.Low}, {Off, ms(600), gpio.Low},
		{On, 0, gpio.High}, {On, ms(600), gpio.High},
		{SlowBlink, ms(100), gpio.High}, {SlowBlink, ms(600), gpio.Low}, {SlowBlink, ms(1100), gpio.High},
		{FastBlink, ms(100), gpio.High}, {FastBlink, ms(200), gpio.Low}, {FastBlink, ms(300), gpio.High},
		{warnBlink, ms(60), gpio.Low}, {warnBlink, ms(110), gpio.High},
	}
	for _, tt := range tests {
		if got := level(tt.s, tt.at); got != tt.want {
			t.Errorf("level(%s, %v) = %v, want %v", tt.s, tt.at, got, tt.want)
		}
	}
}

// openTest opens a panel on test pins. The tests run in synctest
// bubbles: the debounce and hold timers run on the bubble's clock, so a
// 300 ms hold takes no real time.
func openTest(t *testing.T) (*Panel, *gpiotest.Pin, *gpiotest.Pin) {
	t.Helper()
	btn := &gpiotest.Pin{N: "GPIO17", Num: 17, EdgesChan: make(chan gpio.Level, 8)}
	led := &gpiotest.Pin{N: "GPIO27", Num: 27}
	p, err := Open(Options{ButtonPin: btn, LEDPin: led, Debounce: 5 * time.Millisecond, HoldWarn: 150 * time.Millisecond, HoldReset: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if btn.P != gpio.PullUp {
		t.Errorf("button pull = %v, want pull-up", btn.P)
	}
	return p, btn, led
}

func next(t *testing.T, p *Panel) EventKind {
	t.Helper()
	select {
	case e := <-p.Events():
		return e.Kind
	case <-time.After(5 * time.Second):
		t.Fatal("no button event")
		return ""
	}
}

func TestPanelPress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, btn, _ := openTest(t)
		if !p.Available() {
			t.Fatal("Available = false with both pins")
		}
		btn.EdgesChan <- gpio.Low
		time.Sleep(50 * time.Millisecond)
		btn.EdgesChan <- gpio.High
		if k := next(t, p); k != Press {
			t.Errorf("event %s, want press", k)
		}
	})
}

func TestPanelHoldToReset(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, btn, _ := openTest(t)
		btn.EdgesChan <- gpio.Low
		if k := next(t, p); k != ResetWarning {
			t.Fatalf("event %s, want reset_warning", k)
		}
		if s := p.LEDState(); s != warnBlink {
			t.Errorf("LED while warning = %s, want reset_warning", s)
		}
		if k := next(t, p); k != Reset {
			t.Fatalf("event %s, want reset", k)
		}
		btn.EdgesChan <- gpio.High
		select {
		case e := <-p.Events():
			t.Errorf("release after reset gave %s, want nothing", e.Kind)
		case <-time.After(100 * time.Millisecond):
		}
	})
}

func TestPanelLED(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, _, led := openTest(t)
		p.SetLED(On)
		deadline := time.Now().Add(5 * time.Second)
		for led.Read() != gpio.High {
			if time.Now().After(deadline) {
				t.Fatal("LED pin never went high after SetLED(On)")
			}
			time.Sleep(5 * time.Millisecond)
		}
		p.Close()
		if led.Read() != gpio.Low {
			t.Error("LED left on after Close")
		}
		if _, ok := <-p.Events(); ok {
			t.Error("Events not closed by Close")
		}
	})
}

func TestPanelWithoutGPIO(t *testing.T) {
	t.Parallel()
	p, err := Open(Options{Button: None, LED: None})
	if err != nil {
		t.Fatal(err)
	}
	if p.Available() {
		t.Error("Available = true with no pins")
	}
	p.SetLED(FastBlink) // does nothing, must not block or panic
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestPanelUnknownPinNames(t *testing.T) {
	t.Parallel()
	// A dev machine has no GPIO17: not an error, just nothing attached.
	p, err := Open(Options{Button: "GPIO_NOPE", LED: "GPIO_NOPE2"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Available() {
		t.Error("Available = true for pins that do not exist")
	}
}

func TestPanelHasButton(t *testing.T) {
	p, _, _ := openTest(t)
	if !p.HasButton() {
		t.Fatal("HasButton() = false for a panel with a button")
	}
	ledOnly, err := Open(Options{Button: None, LEDPin: &gpiotest.Pin{N: "GPIO27", Num: 27}})
	if err != nil {
		t.Fatal(err)
	}
	defer ledOnly.Close()
	if ledOnly.HasButton() || !ledOnly.Available() || !ledOnly.HasLED() {
		t.Fatalf("LED-only panel: HasButton() = %v, Available() = %v, HasLED() = %v; want false, true, true", ledOnly.HasButton(), ledOnly.Available(), ledOnly.HasLED())
	}
	btnOnly, err := Open(Options{LED: None, ButtonPin: &gpiotest.Pin{N: "GPIO17", Num: 17, L: gpio.High, EdgesChan: make(chan gpio.Level, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer btnOnly.Close()
	if btnOnly.HasLED() {
		t.Error("HasLED() = true for a panel without an LED")
	}
}
