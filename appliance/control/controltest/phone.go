// Package controltest provides a fake phone.Phone for tests of the
// control and mcp packages: it counts every input it is given, takes a
// gesture's real duration (so pause can interrupt it), draws a frame that
// changes with every input, and lets a test change the geometry.
package controltest

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// Phone is a fake phone. The zero value is not usable; call New.
type Phone struct {
	mu       sync.Mutex
	size     image.Point
	seq      uint64
	epoch    uint64
	inputs   int
	shots    int // screenshots taken
	released int
	typed    string
	subs     []chan phone.Event
	apps     []phone.App
	now      func() time.Time
	failIn   error // returned by inputs while set
	failShot error // returned by Screenshot while set
	can      phone.Capabilities
	opened   []string // bundle ids and URLs opened natively
	clip     string
}

// SetClipboard implements phone.Clipboard (reported only after SetNative
// with Clipboard on); it fails like the inputs (FailInputs).
func (p *Phone) SetClipboard(ctx context.Context, text string) error {
	if err := p.inputErr(); err != nil {
		return err
	}
	p.mu.Lock()
	p.clip = text
	p.mu.Unlock()
	return nil
}

// Clipboard implements phone.Clipboard.
func (p *Phone) Clipboard(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clip, nil
}

// SetNative sets what the fake does natively: with LaunchApp and OpenURL
// on, launch_app and open_url reach LaunchApp and OpenURL instead of the
// keyboard recipes.
func (p *Phone) SetNative(c phone.Capabilities) { p.mu.Lock(); p.can = c; p.mu.Unlock() }

// Opened lists the bundle ids and URLs opened natively, in order.
func (p *Phone) Opened() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.opened...)
}

// LaunchApp implements phone.AppLauncher.
func (p *Phone) LaunchApp(ctx context.Context, bundleID string) (phone.Report, error) {
	return p.open(bundleID)
}

// OpenURL implements phone.URLOpener.
func (p *Phone) OpenURL(ctx context.Context, u string) (phone.Report, error) { return p.open(u) }

func (p *Phone) open(what string) (phone.Report, error) {
	if err := p.inputErr(); err != nil {
		return phone.Report{}, err
	}
	p.mu.Lock()
	p.opened = append(p.opened, what)
	p.mu.Unlock()
	return p.delivered(1), nil
}

// FailInputs makes every input return err (nil: work again).
func (p *Phone) FailInputs(err error) { p.mu.Lock(); p.failIn = err; p.mu.Unlock() }

// FailScreenshots makes Screenshot return err (nil: work again).
func (p *Phone) FailScreenshots(err error) { p.mu.Lock(); p.failShot = err; p.mu.Unlock() }

func (p *Phone) inputErr() error { p.mu.Lock(); defer p.mu.Unlock(); return p.failIn }

var (
	_ phone.Phone       = (*Phone)(nil)
	_ phone.AppLauncher = (*Phone)(nil)
	_ phone.URLOpener   = (*Phone)(nil)
)

// New returns a fake phone of 90×160 pixels with a small app catalog.
func New(now func() time.Time) *Phone {
	if now == nil {
		now = time.Now
	}
	return &Phone{size: image.Pt(90, 160), seq: 1, epoch: 1, now: now, apps: []phone.App{
		{ID: "com.apple.mobilenotes", Name: "Notes"}, {ID: "com.apple.mobilesafari", Name: "Safari"},
		{ID: "com.apple.Preferences", Name: "Settings"}}}
}

// Inputs is how many inputs (touches, texts, keys, presses) were delivered.
func (p *Phone) Inputs() int { p.mu.Lock(); defer p.mu.Unlock(); return p.inputs }

// Screenshots is how many screenshots were taken.
func (p *Phone) Screenshots() int { p.mu.Lock(); defer p.mu.Unlock(); return p.shots }

// Released is how many times ReleaseAll was called.
func (p *Phone) Released() int { p.mu.Lock(); defer p.mu.Unlock(); return p.released }

// Typed is all text typed so far.
func (p *Phone) Typed() string { p.mu.Lock(); defer p.mu.Unlock(); return p.typed }

// SetSize changes the screen geometry (a new epoch) and reports it.
func (p *Phone) SetSize(size image.Point) {
	p.mu.Lock()
	p.size = size
	p.epoch++
	p.seq++
	p.notifyLocked(phone.Event{Kind: phone.GeometryChanged, At: p.now(), State: p.stateLocked()})
	p.mu.Unlock()
}

// Info implements phone.Phone.
func (p *Phone) Info() phone.Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return phone.Info{Backend: api.BackendSim, Platform: phone.IOS, Model: "Fake phone", Native: p.size,
		Keyboard: true, Touch: true, Screenshot: true,
		Buttons: []phone.Button{phone.Home, phone.Lock, phone.VolumeUp, phone.VolumeDown, phone.Mute}, Apps: p.apps,
		Can: p.can}
}

// State implements phone.Phone.
func (p *Phone) State() phone.State { p.mu.Lock(); defer p.mu.Unlock(); return p.stateLocked() }

func (p *Phone) stateLocked() phone.State {
	return phone.State{Ready: true, Code: api.StateReady, Geometry: phone.Geometry{Width: p.size.X, Height: p.size.Y, Epoch: p.epoch}}
}

// Screenshot implements phone.Phone: a picture whose colour follows the
// input count.
func (p *Phone) Screenshot(ctx context.Context) (*phone.Frame, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shots++
	if p.failShot != nil {
		return nil, p.failShot
	}
	img := image.NewRGBA(image.Rectangle{Max: p.size})
	c := color.RGBA{R: uint8(p.seq * 40), G: uint8(p.seq * 7), B: 200, A: 255}
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return &phone.Frame{Image: img, Seq: p.seq, Captured: p.now(),
		Geometry: phone.Geometry{Width: p.size.X, Height: p.size.Y, Epoch: p.epoch}}, nil
}

func (p *Phone) delivered(n int) phone.Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inputs++
	p.seq++
	p.notifyLocked(phone.Event{Kind: phone.NewFrame, At: p.now(), Seq: p.seq, State: p.stateLocked()})
	return phone.Report{Reports: n}
}

// Touch implements phone.Phone; it takes the gesture's duration in real
// time and stops early when ctx ends.
func (p *Phone) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	if err := g.Validate(); err != nil {
		return phone.Report{}, fmt.Errorf("fake: %w: %v", phone.ErrInputFailed, err)
	}
	if err := p.inputErr(); err != nil {
		return phone.Report{}, err
	}
	t := time.NewTimer(g.Duration())
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return phone.Report{}, fmt.Errorf("fake: touch interrupted: %w", ctx.Err())
	}
	return p.delivered(len(g.Steps)), nil
}

// Type implements phone.Phone.
func (p *Phone) Type(ctx context.Context, text string) (phone.Report, error) {
	if err := p.inputErr(); err != nil {
		return phone.Report{}, err
	}
	for _, r := range text {
		if r < 0x20 || r > 0x7e {
			return phone.Report{}, fmt.Errorf("fake: %w: %q", phone.ErrUnsupportedText, r)
		}
	}
	p.mu.Lock()
	p.typed += text
	p.mu.Unlock()
	return p.delivered(2 * len(text)), nil
}

// Key implements phone.Phone.
func (p *Phone) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	if err := p.inputErr(); err != nil {
		return phone.Report{}, err
	}
	return p.delivered(2), nil
}

// Press implements phone.Phone.
func (p *Phone) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	if err := p.inputErr(); err != nil {
		return phone.Report{}, err
	}
	if !p.Info().HasButton(b) {
		return phone.Report{}, fmt.Errorf("fake: %w: %s", phone.ErrUnsupportedButton, b)
	}
	return p.delivered(2), nil
}

// ReleaseAll implements phone.Phone.
func (p *Phone) ReleaseAll(ctx context.Context) error {
	p.mu.Lock()
	p.released++
	p.mu.Unlock()
	return nil
}

// Subscribe implements phone.Phone.
func (p *Phone) Subscribe(ctx context.Context) <-chan phone.Event {
	ch := make(chan phone.Event, 64)
	p.mu.Lock()
	p.subs = append(p.subs, ch)
	ch <- phone.Event{Kind: phone.Attached, At: p.now(), State: p.stateLocked()}
	p.mu.Unlock()
	go func() {
		<-ctx.Done()
		p.mu.Lock()
		defer p.mu.Unlock()
		for i, c := range p.subs {
			if c == ch {
				p.subs = append(p.subs[:i], p.subs[i+1:]...)
				close(ch)
				break
			}
		}
	}()
	return ch
}

func (p *Phone) notifyLocked(e phone.Event) {
	for _, c := range p.subs {
		select {
		case c <- e:
		default:
		}
	}
}

// Close implements phone.Phone.
func (p *Phone) Close() error { return nil }

// Clock is a settable clock for tests.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
