package sim

import (
	"context"
	"fmt"
	"image"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

var (
	_ phone.Phone     = (*Phone)(nil)
	_ phone.Clipboard = (*Phone)(nil)
)

// Default screen size in pixels (an iPhone 15's) and the bounds SetSize
// and New accept.
const (
	DefaultWidth  = 1179
	DefaultHeight = 2556
	MinSide       = 200
	MaxSide       = 8192
)

// Options configure [New]. The zero value is a valid configuration.
type Options struct {
	// Size is the screen in pixels; zero means 1179×2556.
	Size image.Point
	// Clock drives the status bar, the host's gesture timing (a tap is
	// shorter than 300 ms) and the input driver's pacing; nil means
	// time.Now. Tests use [FixedClock].
	Clock func() time.Time
	// Sleep is the input driver's wait between reports. Nil means
	// phone.Sleep on the real clock, or, when Clock is set, no wait at
	// all: inputs take no time on a clock that does not move. Tests that
	// move Clock by hand pass a Sleep that moves it, so gestures keep
	// their durations and take no real time.
	Sleep func(ctx context.Context, d time.Duration) error
	// Profile picks the pointer function the phone's inputs use: the
	// absolute mouse (input.IOS, the zero value), the digitizer
	// (input.Android) or the relative mouse (input.IOSRelative). The host
	// decodes all three, whatever the profile.
	Profile input.Profile
	// RelScale is how many pixels one relative-mouse count moves the
	// pointer; zero means one point (3 pixels on the default screen).
	RelScale float64
	// Logger receives the input driver's reports of failed releases; nil
	// means slog.Default().
	Logger *slog.Logger
}

// Phone is a simulated iPhone. It implements [phone.Phone]; its input
// methods turn phone inputs into HID reports that its own virtual host
// decodes (see the package documentation). Methods are safe for
// concurrent use.
type Phone struct {
	drv *input.Driver
	now func() time.Time
	rel float64

	mu     sync.Mutex // guards everything below
	ui     *ui
	funcs  map[hid.Kind]*function
	paint  *painter
	epoch  uint64
	seq    uint64
	shown  view         // what frame seq shows
	frame  *phone.Frame // rendered picture of seq; nil until asked
	events phone.Broadcaster
	closed bool
	done   chan struct{} // closed by Close: stops watchClock

	// lend is held while a lent frame is in use (LendScreenshot), so
	// its buffer has one reader at a time; it is taken before mu.
	lend sync.Mutex
	// lent is LendScreenshot's reused picture (nil until the first),
	// of seq lentSeq. Written with both lend and mu held.
	lent    *image.RGBA
	lentSeq uint64
}

// view is everything that decides the picture: two equal views render
// identical pixels.
type view struct {
	st    state
	clock string
	size  image.Point
}

// New returns a simulated phone showing its home screen. It fails when
// opts.Size is out of range or a report descriptor does not parse.
func New(opts Options) (*Phone, error) {
	size := opts.Size
	if size == (image.Point{}) {
		size = image.Pt(DefaultWidth, DefaultHeight)
	}
	if err := checkSize(size); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	p := &Phone{
		now:   opts.Clock,
		rel:   opts.RelScale,
		ui:    newUI(catalog(), size),
		funcs: map[hid.Kind]*function{},
		epoch: 1,
		done:  make(chan struct{}),
	}
	realClock := p.now == nil
	if realClock {
		p.now = time.Now
	}
	switch {
	case opts.Sleep != nil:
	case realClock:
		opts.Sleep = phone.Sleep
	default:
		opts.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	for _, k := range hid.Kinds() {
		f, ok := hid.FunctionFor(k)
		if !ok {
			return nil, fmt.Errorf("sim: new: hw/hid has no function for %s", k)
		}
		fn, err := newFunction(f)
		if err != nil {
			return nil, fmt.Errorf("sim: new: %w", err)
		}
		p.funcs[k] = fn
	}
	paint, err := newPainter()
	if err != nil {
		return nil, fmt.Errorf("sim: new: fonts: %w", err)
	}
	p.paint = paint
	p.ui.wrap = paint.wrap
	p.seq = 1
	p.shown = p.view()
	if p.drv, err = newDriver(p, opts); err != nil {
		return nil, err
	}
	if realClock {
		go p.watchClock(time.After)
	}
	return p, nil
}

// watchClock starts a new frame when the status bar's minute turns, so
// subscribers see the clock change without any input. wait returns a
// channel that fires after d (time.After; tests pass their own). It
// returns when the phone closes.
func (p *Phone) watchClock(wait func(d time.Duration) <-chan time.Time) {
	for {
		now := p.now()
		next := now.Truncate(time.Minute).Add(time.Minute)
		select {
		case <-p.done:
			return
		case <-wait(next.Sub(now) + 10*time.Millisecond):
		}
		p.mu.Lock()
		if !p.closed {
			p.refresh()
		}
		p.mu.Unlock()
	}
}

// ParseSize parses a screen size written WIDTHxHEIGHT in pixels, such as
// "1179x2556" (the form of serve's --sim-size flag), and checks that each
// side is within MinSide..MaxSide.
func ParseSize(s string) (image.Point, error) {
	size, err := parseDims(s)
	if err != nil {
		return image.Point{}, fmt.Errorf("sim: %w", err)
	}
	if err := checkSize(size); err != nil {
		return image.Point{}, fmt.Errorf("sim: %w", err)
	}
	return size, nil
}

// parseDims reads WIDTHxHEIGHT, two positive whole numbers of pixels; it
// does not check the range (New does).
func parseDims(s string) (image.Point, error) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	x, errW := strconv.Atoi(w)
	y, errH := strconv.Atoi(h)
	if !ok || errW != nil || errH != nil || x <= 0 || y <= 0 {
		return image.Point{}, fmt.Errorf("screen size %q is not WIDTHxHEIGHT in pixels, e.g. 1179x2556", s)
	}
	return image.Pt(x, y), nil
}

func checkSize(s image.Point) error {
	if s.X < MinSide || s.Y < MinSide || s.X > MaxSide || s.Y > MaxSide {
		return fmt.Errorf("screen size %dx%d is out of range: each side must be %d..%d pixels", s.X, s.Y, MinSide, MaxSide)
	}
	return nil
}

// view is the picture's inputs now. Callers hold p.mu.
func (p *Phone) view() view {
	v := view{st: p.ui.st, size: p.ui.lay.size}
	if !v.st.locked {
		v.clock = p.now().Format("3:04")
	}
	return v
}

// refresh starts a new frame when the picture changed since the last
// one, and tells subscribers. Callers hold p.mu.
func (p *Phone) refresh() {
	v := p.view()
	if v == p.shown {
		return
	}
	p.seq++
	p.shown = v
	p.frame = nil
	p.notify(phone.Event{Kind: phone.NewFrame, Seq: p.seq})
}

// notify stamps e with the time and state and publishes it. Callers
// hold p.mu.
func (p *Phone) notify(e phone.Event) {
	e.At = p.now()
	e.State = p.state()
	p.events.Publish(e)
}

// WriteReport delivers one HID input report of function k to the
// simulated host, as a write to the gadget's /dev/hidgN would. The host
// decodes it with k's report descriptor and the phone reacts. It
// implements hw/input's Writer. Errors wrap [phone.ErrUnavailable] after
// Close and [phone.ErrInputFailed] for a report the host cannot decode.
func (p *Phone) WriteReport(ctx context.Context, k hid.Kind, report []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: write %s report: %w", k, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("sim: write %s report: the simulated phone is closed: %w", k, phone.ErrUnavailable)
	}
	fn, ok := p.funcs[k]
	if !ok {
		return fmt.Errorf("sim: write report: the simulated host has no %s function: %w", k, phone.ErrInputFailed)
	}
	l := p.ui.lay
	in, err := fn.decode(report, l.size.X, l.size.Y, p.relScale())
	if err != nil {
		return fmt.Errorf("%w: %w", phone.ErrInputFailed, err)
	}
	now := p.now()
	for _, k := range in.keys {
		p.ui.key(k, in.mods)
	}
	for _, u := range in.cons {
		p.ui.consumer(u)
	}
	if in.pointer {
		p.ui.pointer(in.x, in.y, in.down, now)
	}
	p.refresh()
	return nil
}

// relScale is pixels per relative-mouse count.
func (p *Phone) relScale() float64 {
	if p.rel > 0 {
		return p.rel
	}
	return p.ui.lay.s
}

// Info describes the simulated phone.
func (p *Phone) Info() phone.Info {
	p.mu.Lock()
	size := p.ui.lay.size
	apps := phoneApps(p.ui.apps)
	p.mu.Unlock()
	return phone.Info{
		Backend:    api.BackendSim,
		Platform:   phone.IOS,
		Model:      "Simulated iPhone",
		Native:     size,
		Keyboard:   true,
		Touch:      true,
		Screenshot: true,
		Buttons:    []phone.Button{phone.Home, phone.Lock, phone.VolumeUp, phone.VolumeDown, phone.Mute},
		Apps:       apps,
		Can:        phone.Capabilities{Clipboard: true, Elements: true},
	}
}

// SetClipboard puts text on the phone's clipboard; cmd+V pastes it into
// the focused field (Notes, Spotlight's search field, Safari's address
// field).
func (p *Phone) SetClipboard(ctx context.Context, text string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: set clipboard: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("sim: set clipboard: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	p.ui.clip = text
	return nil
}

// Clipboard returns what the phone's clipboard holds.
func (p *Phone) Clipboard(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("sim: clipboard: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return "", fmt.Errorf("sim: clipboard: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	return p.ui.clip, nil
}

// State reports ready until Close.
func (p *Phone) State() phone.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state()
}

func (p *Phone) state() phone.State {
	g := phone.Geometry{Width: p.ui.lay.size.X, Height: p.ui.lay.size.Y, Epoch: p.epoch}
	if p.closed {
		return phone.State{Code: api.StateClosed, Reason: "The simulated phone was closed.", Geometry: g}
	}
	return phone.State{Ready: true, Code: api.StateReady, Geometry: g}
}

// Screenshot returns the current picture, captured now. It renders only
// when the picture changed since the last call (frames of the same picture
// share Seq and image); the returned frame's image must not be modified.
func (p *Phone) Screenshot(ctx context.Context) (*phone.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: screenshot: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("sim: screenshot: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	p.refresh()
	if p.frame == nil {
		now := p.now()
		img := p.paint.render(p.ui, now)
		p.frame = &phone.Frame{
			Image:    img,
			Seq:      p.seq,
			Geometry: p.state().Geometry,
			Captured: now,
		}
	}
	// The simulated screen is always current: a frame cached because
	// nothing changed is still a picture of now.
	f := *p.frame
	f.Captured = p.now()
	return &f, nil
}

// LendScreenshot implements [phone.Lender]: the frame Screenshot would
// return, except that a picture not rendered yet is drawn into a buffer
// the phone keeps and draws the next changed picture into once use has
// returned, rather than into a new 12 MB image each time.
func (p *Phone) LendScreenshot(ctx context.Context, use func(*phone.Frame) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: screenshot: %w", err)
	}
	p.lend.Lock()
	defer p.lend.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fmt.Errorf("sim: screenshot: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	p.refresh()
	now := p.now()
	var f phone.Frame
	if p.frame != nil {
		f = *p.frame
	} else {
		if p.lent == nil || p.lentSeq != p.seq {
			p.lent = p.paint.renderInto(p.lent, p.ui, now)
			p.lentSeq = p.seq
		}
		f = phone.Frame{Image: p.lent, Seq: p.seq, Geometry: p.state().Geometry}
	}
	f.Captured = now
	p.mu.Unlock()
	return use(&f)
}

// open fails with phone.ErrUnavailable after Close, so an input on a
// closed phone is refused before the driver writes anything.
func (p *Phone) open(op string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("sim: %s: the simulated phone is closed: %w", op, phone.ErrUnavailable)
	}
	return nil
}

// Touch performs g through the profile's pointer function.
func (p *Phone) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	if err := p.open("touch"); err != nil {
		return phone.Report{}, err
	}
	return p.drv.Touch(ctx, g)
}

// Type types text on the keyboard function. Text that is not printable
// US ASCII fails with phone.ErrUnsupportedText before any report is sent.
func (p *Phone) Type(ctx context.Context, text string) (phone.Report, error) {
	if err := p.open("type"); err != nil {
		return phone.Report{}, err
	}
	return p.drv.Type(ctx, text)
}

// Key presses one named key with modifiers.
func (p *Phone) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	if err := p.open("key"); err != nil {
		return phone.Report{}, err
	}
	return p.drv.Key(ctx, k)
}

// Press presses a button: home (cmd+h on iOS, AC Home with the Android
// profile), lock, volume_up, volume_down or mute.
func (p *Phone) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	if err := p.open("press"); err != nil {
		return phone.Report{}, err
	}
	if !p.Info().HasButton(b) {
		return phone.Report{}, fmt.Errorf("sim: press %q: the simulated iPhone has no such button: %w", b, phone.ErrUnsupportedButton)
	}
	return p.drv.Press(ctx, b)
}

// ReleaseAll releases every key, button and contact.
func (p *Phone) ReleaseAll(ctx context.Context) error {
	if err := p.open("release all"); err != nil {
		return err
	}
	return p.drv.ReleaseAll(ctx)
}

// Subscribe returns the phone's events: Attached first, then NewFrame when
// the picture changes and GeometryChanged after SetSize. The channel is
// closed when ctx ends or the phone closes; a slow reader misses events.
func (p *Phone) Subscribe(ctx context.Context) <-chan phone.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return p.events.Subscribe(ctx)
	}
	return p.events.Subscribe(ctx, phone.Event{Kind: phone.Attached, At: p.now(), State: p.state()})
}

// Close detaches the phone: later calls fail with phone.ErrUnavailable and
// subscriptions end. Closing twice is harmless.
func (p *Phone) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	close(p.done)
	p.notify(phone.Event{Kind: phone.Detached})
	p.events.Close()
	return nil
}

// SetSize changes the screen size, as a rotation or a different model
// would: the geometry epoch advances, subscribers get GeometryChanged and
// the next frame has the new size.
func (p *Phone) SetSize(size image.Point) error {
	if err := checkSize(size); err != nil {
		return fmt.Errorf("sim: set size: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("sim: set size: the simulated phone is closed: %w", phone.ErrUnavailable)
	}
	if size == p.ui.lay.size {
		return nil
	}
	p.ui.lay = newLayout(size)
	p.ui.st.scroll = min(p.ui.st.scroll, p.ui.maxScroll())
	p.ui.cancelContact()
	p.epoch++
	p.notify(phone.Event{Kind: phone.GeometryChanged})
	p.refresh()
	return nil
}

// IconCenter returns the centre of the named app's home-screen icon as
// fractions of the screen (name is matched without regard to case); ok is
// false for an unknown app or an icon that does not fit on the screen.
func (p *Phone) IconCenter(name string) (phone.Point, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.ui.lay
	for i, r := range l.iconRects(p.ui.apps) {
		if strings.EqualFold(p.ui.apps[i].name, name) {
			c := phone.Point{
				X: float64(r.Min.X+r.Max.X) / 2 / float64(l.size.X),
				Y: float64(r.Min.Y+r.Max.Y) / 2 / float64(l.size.Y),
			}
			return c, c.Valid()
		}
	}
	return phone.Point{}, false
}

// Screen names what the phone shows: "home", "spotlight", "locked", or an
// open app's name in lower case ("notes", "settings", "safari", …).
func (p *Phone) Screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ui.st.locked {
		return screenLocked
	}
	return p.ui.st.screen
}

// NoteText returns the text of the note in Notes.
func (p *Phone) NoteText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.st.note
}

// Query returns what is typed in Spotlight's search field.
func (p *Phone) Query() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.st.query
}

// URL returns the page Safari shows ("" before one is loaded).
func (p *Phone) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.st.page
}

// AirplaneMode reports whether Settings' Airplane Mode switch is on.
func (p *Phone) AirplaneMode() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.st.airplane
}

// SettingsScroll returns how far the Settings list is scrolled, in pixels,
// and how far it can scroll.
func (p *Phone) SettingsScroll() (scroll, max int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.st.scroll, p.ui.maxScroll()
}

// NoteScroll returns how far the note in Notes is scrolled, in pixels, and
// how far it can scroll.
func (p *Phone) NoteScroll() (scroll, max int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ui.noteOffset(), p.ui.maxNoteScroll()
}

// ReportCount returns how many reports of function k the host decoded.
func (p *Phone) ReportCount(k hid.Kind) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fn, ok := p.funcs[k]; ok {
		return fn.count
	}
	return 0
}

// LabelRect returns the area of the named app's home-screen label as
// fractions of the screen: the icon's column, from the icon's bottom edge
// to the next row's top (name is matched without regard to case); ok is
// false for an unknown app, a dock app (the dock has no labels) or one that
// does not fit on the screen.
func (p *Phone) LabelRect(name string) (lo, hi phone.Point, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.ui.lay
	for i, r := range l.iconRects(p.ui.apps) {
		if !strings.EqualFold(p.ui.apps[i].name, name) || p.ui.apps[i].dock {
			continue
		}
		cx := float64(r.Min.X+r.Max.X) / 2
		w, h := float64(l.size.X), float64(l.size.Y)
		lo := phone.Point{X: math.Max(0, (cx-w/8)/w), Y: float64(r.Max.Y) / h}
		hi := phone.Point{X: math.Min(1, (cx+w/8)/w), Y: (float64(r.Max.Y) + l.pxf(rowPitch-iconSize)) / h}
		return lo, hi, lo.Valid() && hi.Valid()
	}
	return phone.Point{}, phone.Point{}, false
}

// NoteRect returns the area Notes draws the note's text in, as fractions
// of the screen: between the side margins, from the first line's top to
// the bottom of the text area above the home edge.
func (p *Phone) NoteRect() (lo, hi phone.Point) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.ui.lay
	w, h := float64(l.size.X), float64(l.size.Y)
	lo = phone.Point{X: l.pxf(noteMargin) / w, Y: l.pxf(noteTop) / h}
	hi = phone.Point{X: 1 - l.pxf(noteMargin)/w, Y: (h - l.pxf(homeEdge+10)) / h}
	return lo, hi
}
