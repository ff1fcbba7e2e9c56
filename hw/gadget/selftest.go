package gadget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// Panel is the box's LED and button as the self-test drives them (the
// binary adapts hw/gpio to it; hw/gadget does not import it).
type Panel interface {
	// Blink makes the LED blink fast for d, then turns it off; false
	// when the box has no LED.
	Blink(ctx context.Context, d time.Duration) bool
	// WaitPress waits for one press of the button; ok is false when the
	// box has no button, err is ctx's when none came.
	WaitPress(ctx context.Context) (ok bool, err error)
}

// SelfTestOptions configure SelfTest.
type SelfTestOptions struct {
	// Options open the backend as serve would (Platform is required).
	Options
	// OutDir is where the captured frame is saved ("" means the working
	// directory).
	OutDir string
	// Version is the program's version, for the report.
	Version string
	// Panel is the LED and the button; nil skips both steps.
	Panel Panel
	// ConfigureWait bounds the wait for the phone to set the gadget up;
	// 0 means 30 s.
	ConfigureWait time.Duration
	// FrameWait bounds the wait for a captured frame; 0 means 10 s.
	FrameWait time.Duration
	// ButtonWait bounds the wait for a press of the box's button; 0 means
	// 15 s.
	ButtonWait time.Duration
	// Text is what the key step types ("" means "openlolo").
	Text string
}

// selftestStep is the report the gadget's self-test writes, with the
// clock and writer its steps use.
type selftestStep struct {
	phone.SelfTestReport
	w   io.Writer
	now func() time.Time
}

// SelfTest checks the gadget backend step by step for people with
// hardware and writes a report to w that can be pasted into an issue:
// configfs and the USB device controller, the phone configuring the
// gadget, a typed word and a tap the phone should show, a captured frame
// saved as PNG, the LED and the button. It returns how many steps failed.
func SelfTest(ctx context.Context, w io.Writer, o SelfTestOptions) int {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if o.ConfigureWait <= 0 {
		o.ConfigureWait = 30 * time.Second
	}
	if o.FrameWait <= 0 {
		o.FrameWait = 10 * time.Second
	}
	if o.ButtonWait <= 0 {
		o.ButtonWait = 15 * time.Second
	}
	if o.Text == "" {
		o.Text = "openlolo"
	}
	s := &selftestStep{SelfTestReport: phone.SelfTestReport{W: w, Now: now}, w: w, now: now}
	fmt.Fprintf(w, "openlolo selftest --phone gadget --platform %s (openlolo %s, %s/%s, %s)\n", o.Platform, o.Version, runtime.GOOS, runtime.GOARCH, now().UTC().Format(time.RFC3339))
	if m := boardModel(); m != "" {
		fmt.Fprintf(w, "board   %s\n", m)
	}
	s.phone(ctx, o)
	// The box's own parts do not need the phone: they are tested
	// whatever happened to the USB steps.
	s.panel(ctx, o)
	return s.Result()
}

// phone runs the steps that need the USB gadget and the phone.
func (s *selftestStep) phone(ctx context.Context, o SelfTestOptions) {
	now, w := s.now, s.w
	t := now()
	root := o.ConfigFS
	if root == "" {
		root = DefaultConfigFS
	}
	_, err := os.Stat(root)
	if err != nil {
		err = fmt.Errorf("%s is missing: mount configfs and load libcomposite (modprobe libcomposite); the box's image does both", root)
	}
	if !s.Done("configfs", t, err, root) {
		s.skipRest("no configfs")
		return
	}

	t = now()
	udc, err := PickUDC(o.UDCDir, o.UDC)
	if !s.Done("udc", t, err, udc) {
		s.skipRest("no USB device controller")
		return
	}

	t = now()
	p, err := Open(ctx, o.Options)
	if err != nil {
		s.Done("gadget", t, err, "")
		s.skipRest("the gadget could not be set up")
		return
	}
	defer p.Close()
	l, _ := LayoutFor(o.Platform, Identity{})
	var fns []string
	for _, f := range l.Functions {
		fns = append(fns, f.Name)
	}
	s.Done("gadget", t, nil, fmt.Sprintf("bound to %s: %s", udc, strings.Join(fns, ", ")))

	t = now()
	fmt.Fprintf(w, "...     configured   waiting up to %v: connect the phone to the box's USB-C (OTG) port with a data cable and unlock it\n", o.ConfigureWait)
	err = waitUsable(ctx, p, o.ConfigureWait)
	if !s.Done("configured", t, err, "the phone set the gadget up (UDC state configured)") {
		s.skipRest("the phone did not configure the gadget")
		return
	}

	t = now()
	rep, err := p.Type(ctx, o.Text)
	if s.Done("key", t, err, fmt.Sprintf("typed %q (%d reports)", o.Text, rep.Reports)) {
		s.Look(fmt.Sprintf("%q in the phone's focused text field (open Notes or a browser's address bar first)", o.Text))
	}

	t = now()
	rep, err = p.Touch(ctx, phone.Tap(phone.Point{X: .5, Y: .5}, 80*time.Millisecond))
	if s.Done("tap", t, err, fmt.Sprintf("tapped the centre of the screen (%d reports)", rep.Reports)) {
		if o.Platform == Android {
			s.Look("a touch at the centre of the screen (Settings › Developer options › Show taps makes it visible)")
		} else {
			s.Look("the AssistiveTouch pointer moves to the centre of the screen and clicks (Settings › Accessibility › Touch › AssistiveTouch must be on)")
		}
	}

	t = now()
	path, size, err := saveFrame(ctx, p, o.FrameWait, o.OutDir)
	s.Done("capture", t, err, fmt.Sprintf("%dx%d frame saved to %s", size.X, size.Y, path))
}

// skipRest marks the phone steps that cannot run.
func (s *selftestStep) skipRest(why string) {
	s.Skip(why, "key", "tap", "capture")
}

// panel blinks the LED and waits for the button.
func (s *selftestStep) panel(ctx context.Context, o SelfTestOptions) {
	if o.Panel == nil {
		s.Done("led", s.now(), phone.ErrSkip, "no GPIO panel (--no-gpio)")
		s.Done("button", s.now(), phone.ErrSkip, "no GPIO panel (--no-gpio)")
		return
	}
	t := s.now()
	if o.Panel.Blink(ctx, 3*time.Second) {
		s.Done("led", t, nil, "blinked fast for 3 s")
		s.Look("the box's status LED blinking fast, then off")
	} else {
		s.Done("led", t, errors.New("no LED found: wire one to the --gpio-led pin (BCM numbering, high = lit) or pass --no-gpio"), "")
	}
	t = s.now()
	fmt.Fprintf(s.w, "...     button       press the box's button once (waiting up to %v)\n", o.ButtonWait)
	bctx, cancel := context.WithTimeout(ctx, o.ButtonWait)
	defer cancel()
	ok, err := o.Panel.WaitPress(bctx)
	switch {
	case !ok:
		s.Done("button", t, errors.New("no button found: wire one from the --gpio-button pin to ground (pull-up, pressed = low) or pass --no-gpio"), "")
	case err != nil:
		s.Done("button", t, fmt.Errorf("no press within %v: check the wiring of the --gpio-button pin to ground", o.ButtonWait), "")
	default:
		s.Done("button", t, nil, "pressed")
	}
}

// waitUsable waits until the phone configured the gadget (the state is
// ready or only lacks video).
func waitUsable(ctx context.Context, p *Phone, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	events := p.Subscribe(ctx)
	for {
		st := p.State()
		if st.Ready || st.Code == api.StateNoVideo {
			return nil
		}
		select {
		case <-events:
		case <-time.After(p.opts.Poll):
		case <-ctx.Done():
			return fmt.Errorf("not configured after %v: %s", d, st.Reason)
		}
	}
}

// saveFrame waits for a frame and saves it as PNG in dir.
func saveFrame(ctx context.Context, p *Phone, d time.Duration, dir string) (string, image.Point, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var f *phone.Frame
	var err error
	for {
		if f, err = p.Screenshot(ctx); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			reason := p.State().Reason
			if p.State().Code != api.StateNoVideo {
				reason = err.Error()
			}
			return "", image.Point{}, fmt.Errorf("no frame within %v: %s", d, reason)
		case <-time.After(p.opts.Poll):
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, f.Image); err != nil {
		return "", image.Point{}, fmt.Errorf("encode the frame: %w", err)
	}
	path := filepath.Join(dir, "selftest-gadget-frame.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return "", image.Point{}, fmt.Errorf("save the frame: %w", err)
	}
	b := f.Image.Bounds()
	return path, b.Size(), nil
}

// boardModel is the Pi's model from the device tree ("" elsewhere).
func boardModel() string {
	b, err := os.ReadFile("/proc/device-tree/model")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\x00\n")
}
