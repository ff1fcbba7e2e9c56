package coredevice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/mediastream"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// MinInputIOS is the first iOS that takes touch and keys over CoreDevice.
const MinInputIOS = 27

// inputTimings are the input path's clocks (see Options).
type inputTimings struct {
	stream      streamTimings
	idle        time.Duration // stop the stream after this long without input
	keyInterval time.Duration // between typed characters
	keySettle   time.Duration // after registering the keyboard
}

// hidConn is one long-lived RemoteXPC connection for one-way HID
// messages. A reader drains what the phone sends back (window updates,
// pings), so the connection's flow control keeps moving.
type hidConn struct {
	x    *remotexpc.Conn
	done chan struct{}
}

// run starts the drain; call after any request that reads its reply.
func (h *hidConn) run() {
	h.done = make(chan struct{})
	go func() {
		defer close(h.done)
		for {
			if _, _, err := h.x.Receive(context.Background()); err != nil {
				return
			}
		}
	}()
}

func (h *hidConn) alive() bool {
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

func (h *hidConn) close() {
	h.x.Close()
	<-h.done
}

// input drives one tunnel's touch, keyboard and buttons: the media
// stream that opens the phone's input gate, the universal HID connection
// with our virtual keyboard, and the Indigo connection for buttons.
// Inputs are serialized.
type input struct {
	c   *Conn
	t   inputTimings
	now func() time.Time
	log *slog.Logger

	mu       sync.Mutex
	st       *stream
	hid      *hidConn
	keyboard uint64 // our keyboard surface; 0 until registered
	indigo   *hidConn
	lastAt   remotehid.Touch
	down     bool
	idle     *time.Timer
	closed   bool
	epoch    time.Time // the reports' timestamps count from here
}

func newInput(c *Conn, t inputTimings, now func() time.Time, log *slog.Logger) *input {
	return &input{c: c, t: t, now: now, log: log, epoch: now()}
}

// ts is a report's 48-bit timestamp: nanoseconds on the monotonic clock
// (the phone reads only the deltas).
func (in *input) ts() uint64 { return uint64(in.now().Sub(in.epoch)) }

// gadgetStep is the next step where this backend cannot drive input.
const gadgetStep = "the gadget backend (openlolo serve --phone gadget: the box as a USB keyboard and pointer, with HDMI capture) drives input on any iOS"

// supported says whether the phone can take input over the cable, and if
// not, why and what to do instead.
func supported(c *Conn) error {
	v := c.Info.ProductVersion
	if v == "" {
		v = c.RSD.OSVersion
	}
	if major := IOSMajor(v); major > 0 && major < MinInputIOS {
		return &phone.StepError{Err: fmt.Errorf("%w: iOS %d takes no touch or keys over the cable (remote HID needs iOS %d or later); drive input with the gadget backend (--phone gadget)", phone.ErrUnsupported, major, MinInputIOS),
			Steps: []string{gadgetStep, "update the iPhone to iOS 27 or later for touch and keys over the one cable"}}
	}
	for _, s := range []string{mediastream.Service, remotehid.UniversalService} {
		if _, ok := c.RSD.Service(s); !ok {
			return &phone.StepError{Err: fmt.Errorf("%w: the iPhone offers no %s: turn on Developer Mode and let the box mount the developer disk image (Status says which is missing), or drive input with the gadget backend (--phone gadget)", phone.ErrUnsupported, s),
				Steps: []string{"openlolo_status says what the iPhone still needs (Developer Mode, the developer disk image)", gadgetStep}}
		}
	}
	return nil
}

// buttonsSupported says whether Indigo buttons work on this phone.
func buttonsSupported(c *Conn) bool {
	_, ok := c.RSD.Service(remotehid.IndigoService)
	return ok && supported(c) == nil
}

// ensure makes the stream live (refreshing a stale one) and the HID
// connection open. Call with mu held.
func (in *input) ensure(ctx context.Context) error {
	if in.closed {
		return fmt.Errorf("coredevice: input: %w: the tunnel is down", phone.ErrUnavailable)
	}
	if err := supported(in.c); err != nil {
		return err
	}
	if in.st != nil && !in.st.live(in.t.stream.stale) {
		in.log.Info("coredevice: media stream went stale; starting a new one", "packets", in.st.packets.Load())
		in.st.stop(in.log)
		in.st = nil
	}
	if in.st == nil {
		st, err := startStream(ctx, in.c, in.t.stream, in.now, in.log)
		if err != nil {
			return err
		}
		in.st = st
	}
	if in.hid != nil && !in.hid.alive() {
		in.hid.close()
		in.hid, in.keyboard = nil, 0
	}
	if in.hid == nil {
		x, err := in.c.DialService(ctx, remotehid.UniversalService)
		if err != nil {
			return fmt.Errorf("coredevice: input: %w: %w", phone.ErrInputFailed, err)
		}
		h := &hidConn{x: x}
		// Register our keyboard first: it is the one request on this
		// connection that wants a reply.
		reply, err := x.Request(ctx, remotehid.CreateKeyboard())
		if err == nil {
			in.keyboard, err = remotehid.CreatedService(reply)
		}
		if err != nil {
			x.Close()
			return fmt.Errorf("coredevice: input: register the keyboard: %w: %w", phone.ErrInputFailed, err)
		}
		h.run()
		in.hid = h
		// backboardd attaches the new keyboard; keys sent earlier are lost.
		if err := phone.Sleep(ctx, in.t.keySettle); err != nil {
			return err
		}
	}
	return nil
}

// done re-arms the idle stop after an input. Call with mu held.
func (in *input) done() {
	if in.idle != nil {
		in.idle.Stop()
	}
	if in.t.idle > 0 {
		in.idle = time.AfterFunc(in.t.idle, in.stopIdle)
	}
}

// stopIdle stops the stream when no input came for a while: a running
// stream costs the phone an encoder.
func (in *input) stopIdle() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.st != nil {
		in.st.stop(in.log)
		in.st = nil
	}
}

func (in *input) send(ctx context.Context, surface uint64, report []byte) error {
	if err := in.hid.x.Send(ctx, remotehid.Send(surface, report), false); err != nil {
		return fmt.Errorf("coredevice: input: %w: %w", phone.ErrInputFailed, err)
	}
	return nil
}

func (in *input) touch(ctx context.Context, down bool, p phone.Point) error {
	t := remotehid.Touch{Down: down, X: remotehid.Coord(p.X), Y: remotehid.Coord(p.Y), Timestamp: in.ts()}
	if err := in.send(ctx, remotehid.MainTouchscreen, remotehid.Touchscreen(t)); err != nil {
		return err
	}
	in.down, in.lastAt = down, t
	return nil
}

// contact is the main touchscreen as the gesture player drives it: each
// sample is one remote HID touch report.
type contact struct {
	in  *input
	rep *phone.Report
}

func (c contact) Down(ctx context.Context, p phone.Point) error { return c.sample(ctx, true, p) }

func (c contact) Move(ctx context.Context, p phone.Point) (bool, error) {
	return true, c.sample(ctx, true, p)
}

func (c contact) Up(ctx context.Context, p phone.Point) error { return c.sample(ctx, false, p) }

func (c contact) sample(ctx context.Context, down bool, p phone.Point) error {
	if err := c.in.touch(ctx, down, p); err != nil {
		return err
	}
	c.rep.Reports++
	return nil
}

// Touch follows g on the main touchscreen with phone.Player: contact at
// the first point, contact reports at each later point on g's timeline,
// release at the last. A cancelled ctx releases the contact.
func (in *input) Touch(ctx context.Context, g phone.Gesture) (rep phone.Report, err error) {
	if err := g.Validate(); err != nil {
		return rep, fmt.Errorf("coredevice: touch: %w", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.ensure(ctx); err != nil {
		return rep, err
	}
	defer in.done()
	start := in.now()
	var sent phone.Report
	defer func() {
		rep.Reports = sent.Reports
		if in.down {
			in.releaseTouch()
			rep.Reports++
		}
		rep.Took = in.now().Sub(start)
	}()
	return phone.Player{Now: in.now}.Play(ctx, g, contact{in, &sent})
}

// releaseTouch lifts a contact left down, on its own short context: the
// phone believes a finger is on the screen until told otherwise.
func (in *input) releaseTouch() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	t := in.lastAt
	t.Down, t.Timestamp = false, in.ts()
	if in.hid.x.Send(ctx, remotehid.Send(remotehid.MainTouchscreen, remotehid.Touchscreen(t)), false) == nil {
		in.down = false
	}
}

// modUsages are the keyboard usages of the modifiers held (0xE0 + bit).
func modUsages(m hid.Modifiers) []uint8 {
	var u []uint8
	for i := range 8 {
		if m&(1<<i) != 0 {
			u = append(u, 0xE0+uint8(i))
		}
	}
	return u
}

func (in *input) keys(ctx context.Context, usages []uint8) error {
	return in.send(ctx, in.keyboard, remotehid.Keyboard(usages, in.ts()))
}

// chord presses mods, then key, then lets go of the key and of all:
// four reports, so the phone sees the modifier held before the key (what
// cmd-V needs to paste).
func (in *input) chord(ctx context.Context, mods []uint8, key uint8) (int, error) {
	seq := [][]uint8{mods, append(slices.Clone(mods), key), mods, nil}
	if len(mods) == 0 {
		seq = [][]uint8{{key}, nil}
	}
	for i, u := range seq {
		if err := in.keys(ctx, u); err != nil {
			in.keys(context.WithoutCancel(ctx), nil)
			return i, err
		}
	}
	return len(seq), nil
}

// Type types printable US ASCII through our virtual keyboard.
func (in *input) Type(ctx context.Context, text string) (phone.Report, error) {
	for i := 0; i < len(text); i++ {
		if _, _, ok := hid.CharKey(text[i]); !ok {
			return phone.Report{}, fmt.Errorf("coredevice: type: %w: %q at %d is not printable US ASCII", phone.ErrUnsupportedText, text[i], i)
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.ensure(ctx); err != nil {
		return phone.Report{}, err
	}
	defer in.done()
	start := in.now()
	var rep phone.Report
	for i := 0; i < len(text); i++ {
		k, shift, _ := hid.CharKey(text[i])
		var mods []uint8
		if shift {
			mods = modUsages(hid.LeftShift)
		}
		n, err := in.chord(ctx, mods, uint8(k))
		rep.Reports += n
		if err != nil {
			return rep, err
		}
		if i < len(text)-1 {
			if err := phone.Sleep(ctx, in.t.keyInterval); err != nil {
				in.keys(context.WithoutCancel(ctx), nil)
				return rep, err
			}
		}
	}
	rep.Took = in.now().Sub(start)
	return rep, nil
}

// Key presses one named key with modifiers (cmd-V pastes).
func (in *input) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	key, ok := hid.NamedKey(k.Name)
	if !ok {
		return phone.Report{}, fmt.Errorf("coredevice: key: %w: %q", phone.ErrUnsupportedKey, k.Name)
	}
	mods, ok := hid.PhoneModifiers(k.Mods)
	if !ok {
		return phone.Report{}, fmt.Errorf("coredevice: key: %w: modifiers %#x", phone.ErrUnsupportedKey, k.Mods)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.ensure(ctx); err != nil {
		return phone.Report{}, err
	}
	defer in.done()
	start := in.now()
	n, err := in.chord(ctx, modUsages(mods), uint8(key))
	return phone.Report{Reports: n, Took: in.now().Sub(start)}, err
}

// buttonUsages maps phone buttons to Indigo usages and how long each is
// held (the side button needs half a second to count as a press).
var buttonUsages = map[phone.Button]struct {
	u    remotehid.Usage
	hold time.Duration
}{
	phone.Home:       {remotehid.HomeButton, phone.ButtonHold},
	phone.Lock:       {remotehid.LockButton, phone.LockHold},
	phone.VolumeUp:   {remotehid.VolumeUpButton, phone.ButtonHold},
	phone.VolumeDown: {remotehid.VolumeDownButton, phone.ButtonHold},
	phone.Mute:       {remotehid.MuteButton, phone.ButtonHold},
}

// iosButtons are the buttons Press takes, in a stable order.
var iosButtons = []phone.Button{phone.Home, phone.Lock, phone.VolumeUp, phone.VolumeDown, phone.Mute}

// Press presses and releases a button through Indigo. Sources disagree on
// whether buttons need the media stream (go-ios and pymobiledevice3 say
// no, idevice yes); it is held open for them too.
func (in *input) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	bu, ok := buttonUsages[b]
	if !ok {
		return phone.Report{}, fmt.Errorf("coredevice: button: %w: %q (an iPhone has %v)", phone.ErrUnsupportedButton, b, iosButtons)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := supported(in.c); err != nil {
		return phone.Report{}, err
	}
	if _, ok := in.c.RSD.Service(remotehid.IndigoService); !ok {
		return phone.Report{}, fmt.Errorf("coredevice: button: %w: the iPhone offers no %s", phone.ErrUnsupported, remotehid.IndigoService)
	}
	if err := in.ensure(ctx); err != nil {
		return phone.Report{}, err
	}
	defer in.done()
	if in.indigo != nil && !in.indigo.alive() {
		in.indigo.close()
		in.indigo = nil
	}
	if in.indigo == nil {
		x, err := in.c.DialService(ctx, remotehid.IndigoService)
		if err != nil {
			return phone.Report{}, fmt.Errorf("coredevice: button: %w: %w", phone.ErrInputFailed, err)
		}
		in.indigo = &hidConn{x: x}
		in.indigo.run()
	}
	start := in.now()
	x := in.indigo.x
	if err := x.Send(ctx, remotehid.Button(bu.u, remotehid.ButtonDown), false); err != nil {
		return phone.Report{}, fmt.Errorf("coredevice: button: %w: %w", phone.ErrInputFailed, err)
	}
	herr := phone.Sleep(ctx, bu.hold)
	if err := x.Send(context.WithoutCancel(ctx), remotehid.Button(bu.u, remotehid.ButtonUp), false); err != nil {
		x.Send(context.WithoutCancel(ctx), remotehid.Button(bu.u, remotehid.ButtonCancel), false)
		return phone.Report{Reports: 1}, fmt.Errorf("coredevice: button: %w: %w", phone.ErrInputFailed, err)
	}
	rep := phone.Report{Reports: 2, Took: in.now().Sub(start)}
	if herr != nil {
		return rep, fmt.Errorf("coredevice: button: %w", herr)
	}
	return rep, nil
}

// ReleaseAll lifts a held contact and releases every key.
func (in *input) ReleaseAll(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.hid == nil || !in.hid.alive() {
		return nil
	}
	var errs []error
	if in.down {
		in.releaseTouch()
		if in.down {
			errs = append(errs, fmt.Errorf("coredevice: release the contact: %w", phone.ErrInputFailed))
		}
	}
	if in.keyboard != 0 {
		if err := in.keys(ctx, nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// close stops the stream (if the tunnel still runs) and closes the HID
// connections.
func (in *input) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	if in.idle != nil {
		in.idle.Stop()
	}
	if in.st != nil {
		in.st.stop(in.log)
		in.st = nil
	}
	if in.hid != nil {
		in.hid.close()
		in.hid = nil
	}
	if in.indigo != nil {
		in.indigo.close()
		in.indigo = nil
	}
}

// streamPackets is the live stream's media count (tests).
func (in *input) streamPackets() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.st == nil {
		return 0
	}
	return in.st.packets.Load()
}
