package gadget

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/capture"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// NoVideo is the Video value that runs without a capture device (input
// only; screenshots fail with CAPTURE_FAILED).
const NoVideo = "none"

// Options configure Open. Zero values pick the documented defaults, which
// are the real kernel paths of a Pi.
type Options struct {
	// Platform is "android", "ios" or "ios-relative"; required.
	Platform string
	// UDC is the USB device controller; "" means the first one.
	UDC string
	// Video is the capture device (/dev/videoN); "" means the first that
	// streams MJPEG or YUYV; NoVideo means none.
	Video string
	// Serial is the USB serial number; "" means the board's serial
	// (device tree), else /etc/machine-id.
	Serial string
	// WriteDeadline bounds each HID report; 0 means
	// DefaultWriteDeadline.
	WriteDeadline time.Duration
	// Calibration is for ios-relative (see input.Calibration).
	Calibration input.Calibration
	// TeardownOnClose removes the gadget on Close. The default keeps it
	// bound, so restarting the box does not make the phone re-enumerate.
	TeardownOnClose bool
	// ConfigFS, UDCDir and DevDir are the configfs gadget root, the UDC
	// class folder and the device folder; "" means the real paths.
	ConfigFS, UDCDir, DevDir string
	// Poll is how often the backend checks the UDC and the capture
	// device; 0 means 250 ms.
	Poll time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// DecodeJPEG decodes the capture device's MJPEG frames (the box
	// passes libjpeg-turbo's, several times faster than image/jpeg on a
	// Pi); nil means capture.Decode's image/jpeg.
	DecodeJPEG func([]byte) (image.Image, error)
	// Now is the clock events are stamped with and retries are timed
	// on; nil means time.Now.
	Now func() time.Time

	// open replaces the hidg opener in tests.
	open func(string) (int, error)
	// capture replaces the capture device in tests.
	capture frameSource
	// refresh is the least time between background geometry checks;
	// 0 means a second.
	refresh time.Duration
}

// frameSource is what the backend needs from a capture device;
// *capture.Device implements it.
type frameSource interface {
	Latest() (*capture.Frame, error)
	Online() bool
	Close() error
}

var _ frameSource = (*capture.Device)(nil)

// Phone is the gadget backend: HID input through the USB gadget and
// screenshots from a capture device. It implements phone.Phone.
type Phone struct {
	opts    Options
	profile input.Profile
	log     *slog.Logger
	setup   Setup

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu      sync.Mutex
	bound   *Bound
	writer  *Writer
	driver  *input.Driver
	video   frameSource
	state   phone.State
	tracker capture.Tracker
	shot    *phone.Frame
	// took is when a frame was last taken from video (Options.Now).
	took     time.Time
	events   phone.Broadcaster
	closed   bool
	lastBind time.Time
	lastVid  time.Time
}

var _ phone.Phone = (*Phone)(nil)

// Open sets up the gadget for opts.Platform (configfs, bind), opens the
// capture device and returns the backend. It fails when configfs is
// missing (not a Linux box with libcomposite) or the options are wrong;
// a missing UDC, an unconfigured phone or a missing capture device are
// states (State), retried in the background.
func Open(ctx context.Context, opts Options) (*Phone, error) {
	prof, err := input.ParseProfile(opts.Platform)
	if err != nil {
		return nil, fmt.Errorf("gadget: %w", err)
	}
	root := opts.ConfigFS
	if root == "" {
		root = DefaultConfigFS
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("gadget: %s is missing: this machine cannot be a USB gadget (needs Linux with configfs mounted and the libcomposite module; on a dev machine use --phone sim): %w", root, err)
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	if opts.refresh <= 0 {
		opts.refresh = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Serial == "" {
		opts.Serial = boardSerial()
	}
	p := &Phone{
		opts: opts, profile: prof, log: opts.Logger,
		setup: Setup{
			Platform: opts.Platform, UDC: opts.UDC,
			Identity: Identity{Serial: opts.Serial},
			ConfigFS: opts.ConfigFS, UDCDir: opts.UDCDir, DevDir: opts.DevDir,
		},
		done: make(chan struct{}),
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if err := p.bind(ctx); err != nil && !errors.Is(err, ErrNoUDC) {
		return nil, err
	}
	p.openVideo(ctx)
	p.state = p.compute()
	mctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.monitor(mctx)
	return p, nil
}

// boardSerial reads the Raspberry Pi's serial from the device tree, else
// the machine id; "" when neither exists.
func boardSerial() string {
	for _, f := range []string{"/sys/firmware/devicetree/base/serial-number", "/etc/machine-id"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := strings.Trim(string(b), "\x00 \n")
		s = strings.TrimLeft(s, "0")
		if len(s) > 16 {
			s = s[:16]
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// bind applies the gadget and builds the writer and the input driver.
func (p *Phone) bind(ctx context.Context) error {
	p.mu.Lock()
	p.lastBind = p.opts.Now()
	p.mu.Unlock()
	b, err := p.setup.Apply(ctx, 5*time.Second)
	if err != nil {
		return err
	}
	w := NewWriter(WriterOptions{Paths: b.Paths, State: b.State, Deadline: p.opts.WriteDeadline, Open: p.opts.open})
	d, err := input.New(input.Options{Writer: w, Profile: p.profile, Now: p.opts.Now, Calibration: p.opts.Calibration, Logger: p.log})
	if err != nil {
		return fmt.Errorf("gadget: %w", err)
	}
	p.mu.Lock()
	p.bound, p.writer, p.driver = b, w, d
	p.mu.Unlock()
	p.log.Info("gadget: bound", "udc", b.UDC, "platform", p.opts.Platform)
	return nil
}

// openVideo opens the capture device unless disabled.
func (p *Phone) openVideo(ctx context.Context) {
	p.mu.Lock()
	p.lastVid = p.opts.Now()
	have := p.video != nil
	p.mu.Unlock()
	if have || p.opts.Video == NoVideo {
		return
	}
	var src frameSource
	if p.opts.capture != nil {
		src = p.opts.capture
	} else {
		d, err := capture.Open(ctx, capture.Options{Device: p.opts.Video, Logger: p.log})
		if err != nil {
			p.log.Warn("gadget: no capture device", "err", err)
			return
		}
		src = d
	}
	p.mu.Lock()
	p.video = src
	p.mu.Unlock()
}

// compute derives the state from the UDC and the capture device.
func (p *Phone) compute() phone.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	geo := p.state.Geometry
	switch {
	case p.closed:
		return phone.State{Code: api.StateClosed, Reason: "the gadget backend is closed", Geometry: geo}
	case p.bound == nil:
		return phone.State{Code: api.StateNoUDC, Problems: phone.ProblemSet(phone.NoUDC), Reason: "the box has no USB device controller: on a Pi 4/400/CM4 or Zero 2 W add dtoverlay=dwc2 to config.txt and connect the phone to the USB-C (OTG) port; a Pi 3 cannot be a USB device", Geometry: geo}
	}
	if s := p.bound.State(); s != StateConfigured {
		if s == "" {
			s = "absent"
		}
		return phone.State{Code: api.StateNotConfigured, Problems: phone.ProblemSet(phone.NotConfigured), Reason: fmt.Sprintf("the phone has not set up the box's USB device (state %q): connect the phone to the box's USB-C port with a data cable and unlock it", s), Geometry: geo}
	}
	if p.opts.Video == NoVideo || p.video == nil || !p.video.Online() {
		return phone.State{Code: api.StateNoVideo, Problems: phone.ProblemSet(phone.NoVideo), Reason: "no capture device: plug the HDMI capture adapter into a USB-A port and connect the phone's video out (USB-C DisplayPort or the Lightning AV adapter) to it", Geometry: geo}
	}
	return phone.State{Ready: true, Code: api.StateReady, Geometry: geo}
}

// monitor follows the UDC and the capture device, retries what is
// missing, releases everything when the phone (re)configures the device,
// and publishes state changes.
func (p *Phone) monitor(ctx context.Context) {
	defer close(p.done)
	t := time.NewTicker(p.opts.Poll)
	defer t.Stop()
	wasConfigured := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.mu.Lock()
		needBind := p.bound == nil && p.opts.Now().Sub(p.lastBind) > 2*time.Second
		needVid := p.video == nil && p.opts.Video != NoVideo && p.opts.Now().Sub(p.lastVid) > 2*time.Second
		p.mu.Unlock()
		if needBind {
			if err := p.bind(ctx); err != nil && !errors.Is(err, ErrNoUDC) {
				p.log.Warn("gadget: bind failed", "err", err)
			}
		}
		if needVid {
			p.openVideo(ctx)
		}
		s := p.compute()
		configured := s.Code == api.StateReady || s.Code == api.StateNoVideo
		if configured && !wasConfigured {
			// A (re)connected phone may think something is held.
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if err := p.ReleaseAll(rctx); err != nil {
				p.log.Warn("gadget: release all after connect", "err", err)
			}
			cancel()
		}
		wasConfigured = configured
		p.setState(s)
		if s.Ready {
			// Keep the geometry current (rotation) without a caller
			// asking for screenshots.
			fctx, cancel := context.WithTimeout(ctx, time.Second)
			p.frame(fctx, false)
			cancel()
		}
	}
}

// setState stores s and publishes a change of code.
func (p *Phone) setState(s phone.State) {
	p.mu.Lock()
	old := p.state
	p.state = s
	p.mu.Unlock()
	if old.Code == s.Code {
		return
	}
	kind := phone.Detached
	if s.Ready {
		kind = phone.Attached
	}
	p.log.Info("gadget: state", "state", s.Code, "reason", s.Reason)
	p.publish(phone.Event{Kind: kind, At: p.opts.Now(), State: s})
}

func (p *Phone) publish(e phone.Event) { p.events.Publish(e) }

// Info describes the backend.
func (p *Phone) Info() phone.Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return phone.Info{
		Backend:    api.BackendGadget,
		Platform:   p.profile.Platform(),
		Model:      fmt.Sprintf("USB gadget (%s)", p.profile),
		Native:     image.Pt(p.state.Geometry.Width, p.state.Geometry.Height),
		Keyboard:   true,
		Touch:      true,
		Screenshot: p.opts.Video != NoVideo,
		Buttons:    p.profile.Buttons(),
		StepDelay:  phone.DefaultStepDelay,
	}
}

// State reports whether the phone is usable now.
func (p *Phone) State() phone.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Screenshot returns the newest frame, cropped to the phone's picture.
func (p *Phone) Screenshot(ctx context.Context) (*phone.Frame, error) {
	return p.frame(ctx, true)
}

// frame decodes the newest capture (once per capture frame), updates the
// geometry and publishes GeometryChanged when its epoch moves, and
// NewFrame when announce is set.
func (p *Phone) frame(ctx context.Context, announce bool) (*phone.Frame, error) {
	p.mu.Lock()
	src, closed := p.video, p.closed
	// A background refresh decodes at most a frame a refresh, and does
	// not take one before: a frame taken is a copy (capture.Device).
	recent := !announce && p.shot != nil && p.opts.Now().Sub(p.took) < p.opts.refresh
	p.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("gadget: screenshot: %w: the backend is closed", phone.ErrUnavailable)
	}
	if recent {
		return nil, nil
	}
	if src == nil {
		return nil, fmt.Errorf("gadget: screenshot: %w: no capture device (plug the HDMI capture adapter into a USB-A port)", phone.ErrCaptureFailed)
	}
	var f *capture.Frame
	for {
		var err error
		f, err = src.Latest()
		if err == nil {
			break
		}
		if !errors.Is(err, capture.ErrNoFrame) {
			return nil, fmt.Errorf("gadget: screenshot: %w: %v (is the phone's video out connected to the capture adapter?)", phone.ErrCaptureFailed, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("gadget: screenshot: %w: no frame yet: %w", phone.ErrCaptureFailed, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.mu.Lock()
	p.took = p.opts.Now()
	if p.shot != nil && p.shot.Seq == f.Seq {
		shot := p.shot
		p.mu.Unlock()
		return shot, nil
	}
	p.mu.Unlock()

	img, err := p.decode(f)
	if err != nil {
		return nil, fmt.Errorf("gadget: screenshot: %w: %v", phone.ErrCaptureFailed, err)
	}
	p.mu.Lock()
	_, oldEpoch := p.tracker.Update(image.Rectangle{})
	rect, epoch := p.tracker.Update(capture.ContentRect(img))
	p.mu.Unlock()
	if rect.Empty() { // never seen the screen lit: take the whole capture
		rect = img.Bounds()
	}
	shot := &phone.Frame{
		Image:    crop(img, rect),
		Seq:      f.Seq,
		Geometry: phone.Geometry{Width: rect.Dx(), Height: rect.Dy(), Epoch: epoch},
		Captured: f.Captured,
	}
	if f.Format.Pixel == capture.MJPEG && rect == img.Bounds() {
		shot.JPEG = capture.FixMJPEG(f.Data)
	}
	p.mu.Lock()
	p.shot = shot
	p.state.Geometry = shot.Geometry
	state := p.state
	p.mu.Unlock()
	if epoch != oldEpoch {
		p.publish(phone.Event{Kind: phone.GeometryChanged, At: p.opts.Now(), State: state})
	}
	if announce {
		p.publish(phone.Event{Kind: phone.NewFrame, At: p.opts.Now(), State: state, Seq: f.Seq})
	}
	return shot, nil
}

// decode is f as an image: MJPEG through Options.DecodeJPEG when set
// (with the Huffman tables many dongles leave out put in), the rest
// through capture.Decode.
func (p *Phone) decode(f *capture.Frame) (image.Image, error) {
	if f.Format.Pixel != capture.MJPEG || p.opts.DecodeJPEG == nil {
		return capture.Decode(f)
	}
	img, err := p.opts.DecodeJPEG(capture.FixMJPEG(f.Data))
	if err != nil {
		return nil, fmt.Errorf("capture: decode MJPEG frame %d: %w", f.Seq, err)
	}
	return img, nil
}

// crop returns r of img as an image whose bounds start at (0,0).
func crop(img image.Image, r image.Rectangle) image.Image {
	if m, ok := img.(*image.RGBA); ok {
		sub := m.SubImage(r).(*image.RGBA)
		return &image.RGBA{Pix: sub.Pix, Stride: sub.Stride, Rect: image.Rect(0, 0, r.Dx(), r.Dy())}
	}
	if r == img.Bounds() && r.Min == (image.Point{}) {
		return img
	}
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Bounds(), img, r.Min, draw.Src)
	return dst
}

// input returns the driver, or an error when the gadget is not bound.
func (p *Phone) input() (*input.Driver, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("gadget: %w: the backend is closed", phone.ErrUnavailable)
	}
	if p.driver == nil {
		return nil, fmt.Errorf("gadget: %w: %s", phone.ErrUnavailable, p.state.Reason)
	}
	return p.driver, nil
}

// Touch performs a gesture with the profile's pointer.
func (p *Phone) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	d, err := p.input()
	if err != nil {
		return phone.Report{}, err
	}
	return d.Touch(ctx, g)
}

// Type types printable US ASCII on the keyboard.
func (p *Phone) Type(ctx context.Context, text string) (phone.Report, error) {
	d, err := p.input()
	if err != nil {
		return phone.Report{}, err
	}
	return d.Type(ctx, text)
}

// Key presses one named key with modifiers.
func (p *Phone) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	d, err := p.input()
	if err != nil {
		return phone.Report{}, err
	}
	return d.Key(ctx, k)
}

// Press presses a button (consumer control, or cmd+h for Home on iOS).
func (p *Phone) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	d, err := p.input()
	if err != nil {
		return phone.Report{}, err
	}
	return d.Press(ctx, b)
}

// ReleaseAll releases every key, button and contact.
func (p *Phone) ReleaseAll(ctx context.Context) error {
	d, err := p.input()
	if err != nil {
		return err
	}
	return d.ReleaseAll(ctx)
}

// Subscribe returns state, geometry and frame events until ctx ends or
// the backend closes.
func (p *Phone) Subscribe(ctx context.Context) <-chan phone.Event {
	return p.events.Subscribe(ctx)
}

// Close stops the monitor, releases what is held, closes the hidg nodes
// and the capture device and, with TeardownOnClose, removes the gadget.
// Later calls return nil.
func (p *Phone) Close() error {
	var err error
	p.once.Do(func() {
		p.cancel()
		<-p.done
		p.events.Close()
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if d, e := p.input(); e == nil && p.State().Code != api.StateNotConfigured {
			d.ReleaseAll(rctx)
		}
		cancel()
		p.mu.Lock()
		p.closed = true
		w, b, v := p.writer, p.bound, p.video
		p.state = phone.State{Code: api.StateClosed, Reason: "the gadget backend is closed"}
		p.mu.Unlock()
		if w != nil {
			w.Close()
		}
		if v != nil {
			err = v.Close()
		}
		if b != nil && p.opts.TeardownOnClose {
			err = errors.Join(err, b.Teardown())
		}
	})
	return err
}
