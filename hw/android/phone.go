package android

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/phone"
)

// Dialer reaches the phone's adbd and runs the handshake with cfg (the
// box's key, and the callback that says the phone asks its owner to
// allow it): over TCP ([TCP]) or the USB ADB interface.
type Dialer func(ctx context.Context, cfg adb.ClientConfig) (*adb.Conn, error)

// TCP dials a phone in `adb tcpip` mode at addr (host:port).
func TCP(addr string) Dialer {
	return func(ctx context.Context, cfg adb.ClientConfig) (*adb.Conn, error) {
		return adb.DialTCP(ctx, addr, cfg)
	}
}

// USB dials the first phone with USB debugging on a host port of bus
// (the zero Bus: the system's), over its ADB interface (ff/42/01).
func USB(bus usb.Bus) Dialer {
	return func(ctx context.Context, cfg adb.ClientConfig) (*adb.Conn, error) {
		devs, err := adbusb.Devices(bus)
		if err != nil {
			return nil, fmt.Errorf("android: the USB devices: %w", err)
		}
		if len(devs) == 0 {
			return nil, errors.New("android: no phone with USB debugging on the box's USB host ports")
		}
		return adbusb.Dial(ctx, devs[0], cfg)
	}
}

// Options configure [Open]. Dial is required; the zero value of every
// other field is usable.
type Options struct {
	// Dial reaches the phone.
	Dial Dialer
	// Where says in a few words where the box looks for the phone, for
	// sentences ("at 192.168.1.20:5555"; "" for "on USB").
	Where string
	// StateDir is the box's state directory: the box's ADB key is made
	// once in its android folder. Ignored when Key is set.
	StateDir string
	// Key is the box's ADB key (nil: loaded or made in StateDir).
	Key *adb.Key
	// Input, if set, delivers touch, text, keys and buttons by another
	// path than the shell's `input` command (AOA HID on the same cable,
	// hw/aoa); where it answers phone.ErrUnsupported (or an unsupported
	// key or button) the shell's `input` runs instead. InputName names it
	// in Report.Via ("": [AOAInput]). The backend closes it (when it is
	// an io.Closer) as it closes. Registration gives a phone on USB a
	// [USBInput].
	Input     phone.Input
	InputName string
	// Logger receives the backend's log lines (nil: discard).
	Logger *slog.Logger
	// Now reads the clock (nil: time.Now).
	Now func() time.Time
	// Sleep waits between dial attempts (nil: phone.Sleep).
	Sleep func(ctx context.Context, d time.Duration) error
	// Retry is the first wait after a failed dial; it doubles up to
	// MaxRetry (0: 250 ms and 5 s).
	Retry, MaxRetry time.Duration
	// AppsEvery is how often the launcher's apps are read again while
	// connected (0: a minute).
	AppsEvery time.Duration
	// Bus is where [Registration] looks for a phone on a USB host port
	// when no --adb address is given (the zero Bus: the system's).
	Bus usb.Bus
}

// Backend is an Android phone behind phone over ADB: raw screencap
// screenshots, touch, keys, buttons and text through `input` (or an
// injected phone.Input: AOA), launcher apps, launch by package, URLs of any
// scheme, device info from getprop, the clipboard where the phone's
// shell has one, and the screen's elements from uiautomator.
type Backend struct {
	o      Options
	key    *adb.Key
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	inMu   sync.Mutex // one input at a time on the wire
	shotMu sync.Mutex // one screenshot at a time

	mu     sync.Mutex
	conn   *adb.Conn
	dev    device
	info   phone.Info
	state  phone.State
	seq    uint64
	last   []byte // the newest screencap's raw bytes
	events phone.Broadcaster
}

var (
	_ phone.Phone         = (*Backend)(nil)
	_ phone.AppLauncher   = (*Backend)(nil)
	_ phone.URLOpener     = (*Backend)(nil)
	_ phone.Clipboard     = (*Backend)(nil)
	_ phone.ElementLister = (*Backend)(nil)
)

// buttons are the buttons `input keyevent` presses.
var buttons = []phone.Button{phone.Home, phone.Back, phone.AppSwitch, phone.VolumeUp, phone.VolumeDown, phone.Mute, phone.Lock}

// KeyFile is the box's ADB key's file under the state directory.
const KeyFile = "android/adbkey"

// Open starts the backend. It returns at once; the phone is dialled in
// the background (again after every failure, backing off), and State
// says where that stands.
func Open(ctx context.Context, o Options) (*Backend, error) {
	if o.Dial == nil {
		return nil, errors.New("android: Options.Dial is nil")
	}
	key := o.Key
	if key == nil {
		path := filepath.Join(o.StateDir, KeyFile)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("android: the box's ADB key: %w", err)
		}
		var err error
		if key, err = adb.LoadOrCreateKey(path); err != nil {
			return nil, fmt.Errorf("android: the box's ADB key: %w", err)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = phone.Sleep
	}
	if o.Retry <= 0 {
		o.Retry = 250 * time.Millisecond
	}
	if o.MaxRetry <= 0 {
		o.MaxRetry = 5 * time.Second
	}
	if o.InputName == "" {
		o.InputName = AOAInput
	}
	if o.AppsEvery <= 0 {
		o.AppsEvery = time.Minute
	}
	if o.Where == "" {
		o.Where = "on USB"
	}
	b := &Backend{o: o, key: key, log: o.Logger}
	b.info = phone.Info{Backend: api.BackendAndroid, Platform: phone.Android, Model: "Android phone", Screenshot: true}
	b.state = phone.State{Code: api.StateDetached, Reason: "The box is looking for the Android phone " + o.Where + "."}
	ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	b.wg.Add(1)
	go b.run(ctx)
	return b, nil
}

// Fingerprint is the box's ADB key's fingerprint, as the phone shows it
// in "Allow USB debugging?".
func (b *Backend) Fingerprint() string { return b.key.Fingerprint() }

// run keeps a connection to the phone, dialling again after a failure
// or a drop, with a backoff that restarts after every connection.
func (b *Backend) run(ctx context.Context) {
	defer b.wg.Done()
	wait := b.o.Retry
	for ctx.Err() == nil {
		c, err := b.o.Dial(ctx, adb.ClientConfig{Key: b.key, AuthPending: b.pending})
		if err == nil {
			wait = b.o.Retry
			if err = b.attach(ctx, c); err == nil {
				b.watch(ctx, c)
				b.detach(c)
				if ctx.Err() != nil {
					return
				}
				b.setState(phone.State{Code: api.StateDetached, Problems: phone.ProblemSet(phone.USBDebuggingOff),
					Reason: "The Android phone went away (unplugged, restarted, or USB debugging turned off); the box is looking for it " + b.o.Where + "."}, phone.Detached)
				continue
			}
			c.Close()
			if ctx.Err() != nil {
				return
			}
			b.log.Info("android: the phone answered but could not be read", "err", err)
			b.setState(phone.State{Code: api.StateDetached,
				Reason: "The box reached the Android phone's ADB " + b.o.Where + " but could not read the phone (" + err.Error() + "); it tries again."}, phone.Detached)
		} else {
			if ctx.Err() != nil {
				return
			}
			b.failed(err)
		}
		if b.o.Sleep(ctx, wait) != nil {
			return
		}
		wait = min(2*wait, b.o.MaxRetry)
	}
}

// pending: the phone asks its owner to allow the box's key.
func (b *Backend) pending(fingerprint string) {
	b.setState(phone.State{Code: api.StatePairing, Problems: phone.ProblemSet(phone.ADBNotAllowed),
		Reason: "The Android phone asks Allow USB debugging? for this box: check that it shows the key fingerprint " + fingerprint + ", tick Always allow from this computer, and tap Allow."}, phone.Detached)
}

// failed records why a dial failed.
func (b *Backend) failed(err error) {
	b.log.Debug("android: no connection", "err", err)
	if errors.Is(err, adb.ErrUnauthorized) {
		b.setState(phone.State{Code: api.StatePairing, Problems: phone.ProblemSet(phone.ADBNotAllowed),
			Reason: "The Android phone has not allowed this box's key yet: unlock it, check that Allow USB debugging? shows the key fingerprint " + b.key.Fingerprint() + ", tick Always allow from this computer, and tap Allow (the box asks again by itself)."}, phone.Detached)
		return
	}
	b.setState(phone.State{Code: api.StateDetached, Problems: phone.ProblemSet(phone.USBDebuggingOff),
		Reason: "The box cannot reach the Android phone's ADB " + b.o.Where + " (" + err.Error() + "): turn on USB debugging in Developer options."}, phone.Detached)
}

// attach reads what the new connection's phone is and can do, and makes
// it ready.
func (b *Backend) attach(ctx context.Context, c *adb.Conn) error {
	dev, err := probe(ctx, c)
	if err != nil {
		return err
	}
	info := phone.Info{Backend: api.BackendAndroid, Platform: phone.Android, Model: dev.model(),
		Native: dev.size, Keyboard: true, Touch: true, Screenshot: true, Buttons: append([]phone.Button{}, buttons...),
		Apps: dev.apps, Can: phone.Capabilities{LaunchApp: true, OpenURL: true, Clipboard: dev.clipboard, Elements: true},
		StepDelay: 500 * time.Millisecond}
	b.mu.Lock()
	b.conn, b.dev, b.info, b.last = c, dev, info, nil
	geo, _ := b.state.Geometry.Sized(dev.size)
	b.mu.Unlock()
	b.log.Info("android: ready", "model", info.Model, "size", dev.size, "clipboard", dev.clipboard, "apps", len(dev.apps))
	b.setState(phone.State{Ready: true, Code: api.StateReady, Geometry: geo}, phone.Attached)
	return nil
}

// watch waits for the connection to end, reading the launcher's apps
// again every AppsEvery (an app installed meanwhile can be launched).
func (b *Backend) watch(ctx context.Context, c *adb.Conn) {
	t := time.NewTicker(b.o.AppsEvery)
	defer t.Stop()
	for {
		select {
		case <-c.Done():
			b.log.Info("android: connection ended", "err", c.Err())
			return
		case <-ctx.Done():
			return
		case <-t.C:
			apps, err := launcherApps(ctx, c)
			if err != nil {
				b.log.Debug("android: the app list", "err", err)
				continue
			}
			b.mu.Lock()
			if b.conn == c {
				b.info.Apps, b.dev.apps = apps, apps
			}
			b.mu.Unlock()
		}
	}
}

func (b *Backend) detach(c *adb.Conn) {
	b.mu.Lock()
	if b.conn == c {
		b.conn, b.last = nil, nil
	}
	b.mu.Unlock()
	c.Close()
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
		b.events.Publish(phone.Event{Kind: kind, State: s, At: b.o.Now()})
	}
}

// Info describes the phone (its model, screen and launcher apps once
// connected).
func (b *Backend) Info() phone.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.info
	i.Apps = append([]phone.App{}, i.Apps...)
	i.Buttons = append([]phone.Button{}, i.Buttons...)
	return i
}

// State says whether the phone is connected, and why not.
func (b *Backend) State() phone.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// current is the live connection and what its phone is, or
// phone.ErrUnavailable with the state's sentence and what to do.
func (b *Backend) current() (*adb.Conn, device, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil, device{}, &phone.StepError{Err: fmt.Errorf("android: %w: %s", phone.ErrUnavailable, b.state.Reason), Steps: unavailableSteps(b.state)}
	}
	return b.conn, b.dev, nil
}

// unavailableSteps are the next steps for a phone the box cannot use.
func unavailableSteps(st phone.State) []string {
	switch {
	case st.Problems.Has(phone.ADBNotAllowed):
		return []string{"Ask the phone's owner to unlock it and tap Allow on \"Allow USB debugging?\" (the box's Status page shows the key fingerprint to compare; /help/adb-allow walks through it).",
			"Then call again: the box connects by itself once the phone allows it, without a restart."}
	case st.Problems.Has(phone.USBDebuggingOff):
		return []string{"Ask the phone's owner to turn on USB debugging (Settings › About phone › tap Build number 7 times, then Settings › System › Developer options › USB debugging); /help/usb-debugging walks through it.",
			"Then call again: the box keeps looking for the phone."}
	}
	return []string{"Call openlolo_status to see the phone's state, and try again in a few seconds."}
}

// Screenshot takes a raw screencap (not PNG: no compression on the
// phone, a straight copy here) and decodes it. A picture equal to the
// previous one keeps its Seq; a new size starts a new geometry epoch.
func (b *Backend) Screenshot(ctx context.Context) (*phone.Frame, error) {
	c, _, err := b.current()
	if err != nil {
		return nil, err
	}
	b.shotMu.Lock()
	defer b.shotMu.Unlock()
	raw, err := c.Exec(ctx, "screencap")
	if err != nil {
		return nil, fmt.Errorf("android: %w: screencap: %w", phone.ErrCaptureFailed, err)
	}
	img, err := decodeScreencapOutput(raw)
	if err != nil {
		return nil, fmt.Errorf("android: %w: %w", phone.ErrCaptureFailed, err)
	}
	size := img.Bounds().Size()
	b.mu.Lock()
	geo, newGeo := b.state.Geometry.Sized(size)
	if newGeo {
		b.state.Geometry = geo
		b.info.Native = size
	}
	newPic := newGeo || !bytes.Equal(raw, b.last)
	if newPic {
		b.seq++
		b.last = raw
	}
	f := &phone.Frame{Image: img, Seq: b.seq, Geometry: geo, Captured: b.o.Now()}
	state := b.state
	b.mu.Unlock()
	if newGeo {
		b.events.Publish(phone.Event{Kind: phone.GeometryChanged, State: state, At: f.Captured})
	}
	if newPic {
		b.events.Publish(phone.Event{Kind: phone.NewFrame, State: state, Seq: f.Seq, At: f.Captured})
	}
	return f, nil
}

// screenHeader reads the size of the screen in its current rotation from
// the first bytes of a raw screencap, without the picture.
func screenHeader(ctx context.Context, c *adb.Conn) (image.Point, error) {
	s, err := c.Open(ctx, "exec:screencap")
	if err != nil {
		return image.Point{}, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var hdr [12]byte
	if _, err := io.ReadFull(s, hdr[:]); err != nil {
		return image.Point{}, fmt.Errorf("android: screencap header: %w", err)
	}
	w, h, err := screencapSize(hdr[:])
	return image.Pt(w, h), err
}

// Subscribe returns state and frame events until ctx ends or Close.
func (b *Backend) Subscribe(ctx context.Context) <-chan phone.Event {
	return b.events.Subscribe(ctx)
}

// Close ends the connection and the dialling, and ends subscriptions.
func (b *Backend) Close() error {
	b.once.Do(func() {
		b.cancel()
		b.wg.Wait()
		if c, ok := b.o.Input.(io.Closer); ok {
			c.Close()
		}
		b.mu.Lock()
		b.state = phone.State{Code: api.StateClosed, Reason: "The backend was closed."}
		b.mu.Unlock()
		b.events.Close()
	})
	return nil
}
