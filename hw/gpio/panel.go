package gpio

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	_ "periph.io/x/host/v3/bcm283x"   // Raspberry Pi GPIO registers
	_ "periph.io/x/host/v3/gpioioctl" // Linux GPIO character devices
)

// Defaults for Options.
const (
	DefaultButton    = "GPIO17"
	DefaultLED       = "GPIO27"
	DefaultDebounce  = 30 * time.Millisecond
	DefaultHoldWarn  = 5 * time.Second
	DefaultHoldReset = 10 * time.Second
	// None disables a pin.
	None = "none"
)

// Options configure Open. Zero values pick the documented defaults.
type Options struct {
	// Button and LED are pin names as periph knows them; "" means
	// DefaultButton / DefaultLED, None means no such part.
	Button, LED string
	// ButtonPin and LEDPin, when not nil, are used instead of looking
	// the names up (tests pass gpiotest pins).
	ButtonPin, LEDPin gpio.PinIO
	// Debounce, HoldWarn and HoldReset time the button; zero means
	// 30 ms, 5 s and 10 s.
	Debounce, HoldWarn, HoldReset time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Panel is the button and the LED. Its methods are safe for concurrent
// use; on a machine without GPIO they do nothing.
type Panel struct {
	btn, led gpio.PinIO
	log      *slog.Logger
	events   chan Event
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once

	mu    sync.Mutex
	state LED
	b     button
}

// Open finds the pins, configures the button as a pull-up input and the
// LED as an output (off), and starts watching. A machine without GPIO or
// without the named pins gives a Panel that does nothing; only a pin that
// exists but cannot be configured is an error.
func Open(opts Options) (*Panel, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.HoldWarn <= 0 {
		opts.HoldWarn = DefaultHoldWarn
	}
	if opts.HoldReset <= 0 {
		opts.HoldReset = DefaultHoldReset
	}
	p := &Panel{
		btn: opts.ButtonPin, led: opts.LEDPin, log: opts.Logger,
		events: make(chan Event, 8),
		b:      button{debounce: opts.Debounce, warn: opts.HoldWarn, reset: opts.HoldReset},
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.btn == nil && opts.Button != None || p.led == nil && opts.LED != None {
		if _, err := driverreg.Init(); err != nil {
			p.log.Debug("gpio: no GPIO on this machine; button and LED disabled", "err", err)
		} else {
			if p.btn == nil && opts.Button != None {
				p.btn = lookup(or(opts.Button, DefaultButton))
			}
			if p.led == nil && opts.LED != None {
				p.led = lookup(or(opts.LED, DefaultLED))
			}
		}
	}
	if p.btn != nil {
		if err := p.btn.In(gpio.PullUp, gpio.BothEdges); err != nil {
			return nil, fmt.Errorf("gpio: button %s: %w", p.btn, err)
		}
		// The first sample says whether the button is held at start.
		p.b.update(p.btn.Read(), time.Now())
	}
	if p.led != nil {
		if err := p.led.Out(gpio.Low); err != nil {
			return nil, fmt.Errorf("gpio: LED %s: %w", p.led, err)
		}
	}
	if p.btn == nil && p.led == nil {
		p.log.Debug("gpio: no button or LED; physical controls disabled")
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	if p.btn != nil {
		p.wg.Add(1)
		go p.watch(ctx)
	}
	if p.led != nil {
		p.wg.Add(1)
		go p.blink(ctx)
	}
	return p, nil
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// lookup returns the named pin or nil.
func lookup(name string) gpio.PinIO {
	if pin := gpioreg.ByName(name); pin != nil {
		return pin
	}
	return nil
}

// Available reports whether a button or an LED is attached.
func (p *Panel) Available() bool { return p.btn != nil || p.led != nil }

// HasButton reports whether the panel has a button, so that a claim by
// physical presence can be offered.
func (p *Panel) HasButton() bool { return p.btn != nil }

// HasLED reports whether an LED is attached.
func (p *Panel) HasLED() bool { return p.led != nil }

// Events returns the button's events. A slow reader misses events rather
// than blocking the button. The channel is closed by Close.
func (p *Panel) Events() <-chan Event { return p.events }

// SetLED sets what the LED shows.
func (p *Panel) SetLED(s LED) {
	p.mu.Lock()
	p.state = s
	p.mu.Unlock()
}

// LEDState returns what the LED shows now (the reset warning while the
// button is held long enough).
func (p *Panel) LEDState() LED {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.b.warning() {
		return warnBlink
	}
	return p.state
}

// watch samples the button on every edge and at least every 20 ms.
func (p *Panel) watch(ctx context.Context) {
	defer p.wg.Done()
	for ctx.Err() == nil {
		p.btn.WaitForEdge(20 * time.Millisecond)
		now := time.Now()
		p.mu.Lock()
		evs := p.b.update(p.btn.Read(), now)
		p.mu.Unlock()
		for _, k := range evs {
			p.log.Info("gpio: button", "event", k)
			select {
			case p.events <- Event{Kind: k, At: now}:
			default:
			}
		}
	}
}

// blink drives the LED every 25 ms.
func (p *Panel) blink(ctx context.Context) {
	defer p.wg.Done()
	start := time.Now()
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	last := gpio.Low
	for {
		select {
		case <-ctx.Done():
			p.led.Out(gpio.Low)
			return
		case <-t.C:
		}
		if l := level(p.LEDState(), time.Since(start)); l != last {
			if err := p.led.Out(l); err != nil {
				p.log.Warn("gpio: LED", "err", err)
			}
			last = l
		}
	}
}

// Close stops watching, turns the LED off and closes Events. It is safe
// to call more than once.
func (p *Panel) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		close(p.events)
	})
	return nil
}
