package coredevice

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/phone"
)

// Options configure Open. The zero value of every field is usable.
type Options struct {
	// Socket is usbmuxd's socket, for a desktop that runs one; "" means
	// the box speaks usbmux over its own USB ports (USB).
	Socket   string
	USB      usb.Bus          // where iPhones are found without usbmuxd (zero: the system's)
	StateDir string           // pair records go to StateDir/coredevice
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // the clock (nil: time.Now)
	// Retry is how often the backend looks for the phone again while none
	// is attached or the tunnel failed (0: 2 s).
	Retry time.Duration
	// Recheck is how often a tunnelled phone that is not ready (Developer
	// Mode off, no disk image) is asked again (0: 5 s).
	Recheck time.Duration
	// Mount, if set, mounts the personalized developer disk image when
	// the phone has none (see hw/coredevice/ddi); nil leaves it to the
	// owner, and State says it is missing.
	Mount func(ctx context.Context, c *Conn) error

	// The input path's clocks (iOS 27+). Touch and keys reach the phone
	// only while our DisplayService media stream runs; it is started at
	// the first input, kept alive with RTCP receiver reports every
	// Keepalive (0: 1 s), replaced when no video came for StreamStale
	// (0: 3 s; measured on Now), and stopped after InputIdle without input
	// (0: 2 min; negative: never).
	Keepalive, StreamStale, InputIdle time.Duration
	// StreamSettle is the pause after a new stream's first video and
	// after registering the keyboard, while the phone re-attaches its
	// input surfaces (0: 300 ms).
	StreamSettle time.Duration
	// StreamStart bounds a stream start: a stuck media daemon never
	// answers (0: 25 s, a little past the phone's own 20 s).
	StreamStart time.Duration
	// KeyInterval paces typed characters (0: 20 ms; the phone drops
	// characters sent faster).
	KeyInterval time.Duration
}

func (o Options) inputTimings() inputTimings {
	or := func(d, def time.Duration) time.Duration {
		if d == 0 {
			return def
		}
		return d
	}
	idle := or(o.InputIdle, 2*time.Minute)
	if idle < 0 {
		idle = 0
	}
	settle := or(o.StreamSettle, 300*time.Millisecond)
	return inputTimings{
		stream: streamTimings{
			stale: or(o.StreamStale, 3*time.Second), keepalive: or(o.Keepalive, time.Second),
			firstWait: 5 * time.Second, settle: settle, start: or(o.StreamStart, 25*time.Second),
		},
		idle: idle, keyInterval: or(o.KeyInterval, 20*time.Millisecond), keySettle: settle,
	}
}

// Backend is the iPhone behind phone over CoreDevice: native PNG
// screenshots, the installed apps, launch by bundle id, URLs of any
// scheme, the clipboard, and on iOS 27+ touch, keys and buttons through
// the universal HID and Indigo services (behind a DisplayService media
// stream). Below iOS 27 input answers phone.ErrUnsupported naming the
// gadget backend.
type Backend struct {
	o      Options
	dialer *Dialer
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	shotMu sync.Mutex // one screenshot at a time: dtscreencaptured wedges on overlap

	mu     sync.Mutex
	conn   *Conn
	in     *input
	apps   []App // the app list with the phone's raw entries
	info   phone.Info
	state  phone.State
	seq    uint64
	events phone.Broadcaster
}

var (
	_ phone.Phone        = (*Backend)(nil)
	_ phone.AppLauncher  = (*Backend)(nil)
	_ phone.Clipboard    = (*Backend)(nil)
	_ phone.URLOpener    = (*Backend)(nil)
	_ phone.AppURLOpener = (*Backend)(nil)
)

// native is what the backend does natively: URLs open through a launch
// of the app that takes them (appservice's payloadURL).
var native = phone.Capabilities{LaunchApp: true, Clipboard: true, OpenURL: true}

// Open starts the backend. It returns at once; the phone is found, paired
// and tunnelled in the background, and State says where that stands.
func Open(ctx context.Context, o Options) (*Backend, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Retry == 0 {
		o.Retry = 2 * time.Second
	}
	if o.Recheck == 0 {
		o.Recheck = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &Backend{o: o, log: log}
	ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	b.dialer = &Dialer{
		Mux: startMux(ctx, &b.wg, o.Socket, o.USB, o.StateDir, log), Store: lockdown.Store{Dir: recordsDir(o.StateDir)}, Now: o.Now,
		Trust: func(err error) {
			if errors.Is(err, lockdown.ErrPasscode) {
				b.setState(phone.State{Code: api.StatePairing, Problems: phone.ProblemSet(phone.NotTrusted), Reason: "Unlock the iPhone so it can ask to trust this box."}, phone.Detached)
				return
			}
			b.setState(phone.State{Code: api.StatePairing, Problems: phone.ProblemSet(phone.NotTrusted), Reason: "The iPhone asks Trust This Computer?: tap Trust and enter its passcode."}, phone.Detached)
		},
	}
	b.info = phone.Info{Backend: api.BackendCoreDevice, Platform: phone.IOS, Model: "iPhone", Screenshot: true, Can: native}
	b.state = phone.State{Code: api.StateDetached, Reason: "No iPhone is attached: plug it into the box's USB port with a data cable and unlock it."}
	b.wg.Add(1)
	go b.run(ctx)
	return b, nil
}

func (b *Backend) now() time.Time { return b.o.Now() }

// run keeps a tunnel to the first USB iPhone, reconnecting after a drop.
func (b *Backend) run(ctx context.Context) {
	defer b.wg.Done()
	for ctx.Err() == nil {
		c, err := b.connect(ctx)
		if err != nil {
			if ctx.Err() == nil {
				b.log.Debug("coredevice: no tunnel", "err", err)
			}
		} else if b.await(ctx, c) {
			b.ready(ctx, c)
			select {
			case <-c.Done():
				b.log.Info("coredevice: tunnel down", "err", c.net.Err())
			case <-ctx.Done():
			}
			b.mu.Lock()
			in := b.in
			b.conn, b.in = nil, nil
			b.mu.Unlock()
			in.close()
			c.Close()
			if ctx.Err() == nil {
				b.setState(phone.State{Code: api.StateDetached, Reason: "The iPhone went away (unplugged, restarted or locked up); waiting for it."}, phone.Detached)
			}
		}
		t := time.NewTimer(b.o.Retry)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

func (b *Backend) connect(ctx context.Context) (*Conn, error) {
	devs, err := b.dialer.Mux.ListDevices(ctx)
	if err != nil {
		b.setState(phone.State{Code: api.StateNoUSBMuxd, Reason: "usbmuxd is not running, so no iPhone can be reached (" + err.Error() + ")."}, phone.Detached)
		return nil, err
	}
	for _, d := range devs {
		if d.ConnectionType != "USB" {
			continue
		}
		c, err := b.dialer.Dial(ctx, d)
		if err != nil {
			st := phone.State{Code: api.StateNoTunnel, Reason: "The box cannot open the iPhone's CoreDevice tunnel: " + err.Error()}
			if errors.Is(err, lockdown.ErrUserDenied) {
				st.Reason = "The iPhone's owner tapped Don't Trust. Unplug and plug the cable in again to be asked again."
				st.Problems = phone.ProblemSet(phone.NotTrusted)
			}
			b.setState(st, phone.Detached)
			return nil, err
		}
		return c, nil
	}
	b.setState(phone.State{Code: api.StateDetached, Reason: "No iPhone is attached: plug it into the box's USB port with a data cable and unlock it."}, phone.Detached)
	return nil, errors.New("coredevice: no iPhone on USB")
}

// ready records what the new connection's phone is and can do.
func (b *Backend) ready(ctx context.Context, c *Conn) {
	info := phone.Info{Backend: api.BackendCoreDevice, Platform: phone.IOS, Screenshot: true, Can: native,
		Model: strings.TrimSpace(c.Info.ProductType + " (iOS " + c.Info.ProductVersion + ")")}
	if supported(c) == nil {
		info.Touch, info.Keyboard = true, true
	}
	if buttonsSupported(c) {
		info.Buttons = append([]phone.Button{}, iosButtons...)
	}
	if size, err := c.DisplaySize(ctx); err == nil {
		info.Native = size
	}
	apps, err := c.Apps(ctx)
	if err == nil {
		for _, a := range apps {
			info.Apps = append(info.Apps, phone.App{ID: a.BundleID, Name: a.Name})
		}
	} else {
		b.log.Info("coredevice: app list", "err", err)
	}
	b.mu.Lock()
	b.conn = c
	b.in = newInput(c, b.o.inputTimings(), b.now, b.log)
	b.apps = apps
	b.info = info
	geo := b.state.Geometry
	if info.Native != (image.Point{}) {
		geo, _ = geo.Sized(info.Native)
	}
	b.mu.Unlock()
	b.setState(phone.State{Ready: true, Code: api.StateReady, Problems: InputProblems(c.Info.ProductVersion), Geometry: geo}, phone.Attached)
}

func (b *Backend) setState(s phone.State, kind phone.EventKind) {
	b.mu.Lock()
	if s.Geometry == (phone.Geometry{}) {
		s.Geometry = b.state.Geometry
	}
	changed := b.state != s
	b.state = s
	b.mu.Unlock()
	if changed {
		b.emit(phone.Event{Kind: kind, State: s})
	}
}

func (b *Backend) emit(ev phone.Event) {
	ev.At = b.now()
	b.events.Publish(ev)
}

// Info describes the phone (its model, native size and installed apps
// once the tunnel is up).
func (b *Backend) Info() phone.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.info
	i.Apps = append([]phone.App{}, i.Apps...)
	return i
}

// State says whether the phone is reachable and why not.
func (b *Backend) State() phone.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

func (b *Backend) current() (*Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil, fmt.Errorf("coredevice: %w: %s", phone.ErrUnavailable, b.state.Reason)
	}
	return b.conn, nil
}

// Screenshot takes a native PNG screenshot (about 2.8 s on a phone).
func (b *Backend) Screenshot(ctx context.Context) (*phone.Frame, error) {
	c, err := b.current()
	if err != nil {
		return nil, err
	}
	b.shotMu.Lock()
	defer b.shotMu.Unlock()
	img, err := c.ScreenshotImage(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", phone.ErrCaptureFailed, err)
	}
	size := img.Bounds().Size()
	b.mu.Lock()
	geo, newGeo := b.state.Geometry.Sized(size)
	if newGeo {
		b.state.Geometry = geo
		b.info.Native = size
	}
	b.seq++
	f := &phone.Frame{Image: img, Seq: b.seq, Geometry: geo, Captured: b.now()}
	state := b.state
	b.mu.Unlock()
	if newGeo {
		b.emit(phone.Event{Kind: phone.GeometryChanged, State: state})
	}
	b.emit(phone.Event{Kind: phone.NewFrame, State: state, Seq: f.Seq})
	return f, nil
}

// currentInput is the live tunnel's input path.
func (b *Backend) currentInput() (*input, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.in == nil {
		return nil, fmt.Errorf("coredevice: %w: %s", phone.ErrUnavailable, b.state.Reason)
	}
	return b.in, nil
}

// Touch performs g on the touchscreen (iOS 27+).
func (b *Backend) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	in, err := b.currentInput()
	if err != nil {
		return phone.Report{}, err
	}
	return in.Touch(ctx, g)
}

// Type types printable US ASCII on our virtual keyboard (iOS 27+); any
// Unicode goes through SetClipboard and cmd-V instead.
func (b *Backend) Type(ctx context.Context, text string) (phone.Report, error) {
	in, err := b.currentInput()
	if err != nil {
		return phone.Report{}, err
	}
	return in.Type(ctx, text)
}

// Key presses one named key with modifiers (iOS 27+).
func (b *Backend) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	in, err := b.currentInput()
	if err != nil {
		return phone.Report{}, err
	}
	return in.Key(ctx, k)
}

// Press presses a button through Indigo (iOS 27+).
func (b *Backend) Press(ctx context.Context, btn phone.Button) (phone.Report, error) {
	in, err := b.currentInput()
	if err != nil {
		return phone.Report{}, err
	}
	return in.Press(ctx, btn)
}

// ReleaseAll lifts a held contact and releases the keyboard.
func (b *Backend) ReleaseAll(ctx context.Context) error {
	in, err := b.currentInput()
	if err != nil {
		return nil // nothing is held without a tunnel
	}
	return in.ReleaseAll(ctx)
}

// LaunchApp opens the app with bundleID natively.
func (b *Backend) LaunchApp(ctx context.Context, bundleID string) (phone.Report, error) {
	c, err := b.current()
	if err != nil {
		return phone.Report{}, err
	}
	start := b.now()
	if _, err := c.Launch(ctx, bundleID, false); err != nil {
		return phone.Report{}, fmt.Errorf("coredevice: launch %s: %w", bundleID, err)
	}
	return phone.Report{Reports: 1, Took: b.now().Sub(start)}, nil
}

// OpenURL opens a URL of any scheme natively (see Conn.OpenURL).
func (b *Backend) OpenURL(ctx context.Context, u string) (phone.Report, error) {
	c, err := b.current()
	if err != nil {
		return phone.Report{}, err
	}
	b.mu.Lock()
	apps := b.apps
	b.mu.Unlock()
	start := b.now()
	if _, err := c.OpenURL(ctx, u, apps); err != nil {
		return phone.Report{}, fmt.Errorf("coredevice: open %s: %w", u, err)
	}
	return phone.Report{Reports: 1, Took: b.now().Sub(start)}, nil
}

// OpenURLIn opens a URL in the app bundleID natively.
func (b *Backend) OpenURLIn(ctx context.Context, u, bundleID string) (phone.Report, error) {
	c, err := b.current()
	if err != nil {
		return phone.Report{}, err
	}
	start := b.now()
	if err := c.OpenURLIn(ctx, u, bundleID); err != nil {
		return phone.Report{}, fmt.Errorf("coredevice: open %s in %s: %w", u, bundleID, err)
	}
	return phone.Report{Reports: 1, Took: b.now().Sub(start)}, nil
}

// SetClipboard replaces the phone's clipboard with text (checked by
// reading it back).
func (b *Backend) SetClipboard(ctx context.Context, text string) error {
	c, err := b.current()
	if err != nil {
		return err
	}
	return c.SetClipboard(ctx, text)
}

// Clipboard returns the text on the phone's clipboard.
func (b *Backend) Clipboard(ctx context.Context) (string, error) {
	c, err := b.current()
	if err != nil {
		return "", err
	}
	s, _, err := c.Clipboard(ctx)
	return s, err
}

// Subscribe returns state and frame events until ctx ends or Close.
func (b *Backend) Subscribe(ctx context.Context) <-chan phone.Event {
	return b.events.Subscribe(ctx)
}

// Close takes the tunnel down and ends subscriptions.
func (b *Backend) Close() error {
	b.once.Do(func() {
		b.cancel()
		b.wg.Wait()
		b.mu.Lock()
		b.state = phone.State{Code: api.StateClosed, Reason: "The backend was closed."}
		b.mu.Unlock()
		b.events.Close()
	})
	return nil
}
