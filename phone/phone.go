package phone

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/openlolo/openlolo/api"
)

// Phone is one attached phone as a backend drives it. Methods are safe for
// concurrent use; input methods are serialized by the backend, so two
// gestures never interleave on the wire.
//
// Input methods block until the input has been delivered (or failed) and
// honour ctx: a cancelled ctx stops a gesture between reports and releases
// whatever it held, and the error then wraps ctx.Err().
type Phone interface {
	// Info describes the backend and the phone: static facts and
	// capabilities. It does not block.
	Info() Info

	// State reports whether the phone can take input and screenshots now,
	// and if not, why. It does not block.
	State() State

	// Screenshot returns the newest frame of the phone's screen.
	Screenshot(ctx context.Context) (*Frame, error)

	// Input is how the phone takes touch, text, keys and buttons.
	Input

	// Subscribe returns a channel of events that is closed when ctx ends
	// or the backend closes. A slow reader misses events rather than
	// blocking the backend; State is always current.
	Subscribe(ctx context.Context) <-chan Event

	// Close releases the backend's resources.
	Close() error
}

// Lender is a Phone that can lend its newest screen instead of handing
// it over: the backend draws or decodes into a buffer it keeps and reuses,
// so a caller that only reads the pixels once (the owner's live view, ten
// pictures a second) costs no full-size allocation per picture. The box
// uses it where a Phone offers it and Screenshot otherwise.
type Lender interface {
	// LendScreenshot calls use with the newest frame, as Screenshot would
	// return it. The frame, its Image's pixels and its JPEG are valid only
	// until use returns: use must not keep them or anything that shares
	// their memory. Its error is LendScreenshot's.
	LendScreenshot(ctx context.Context, use func(*Frame) error) error
}

// Input is the input half of a phone: what the HID drivers (the gadget's
// hw/input, AOA's hw/aoa) and a backend's own paths (Android's input
// commands, CoreDevice's remote HID) each implement, so a backend can hold
// whichever path its phone takes behind one type.
type Input interface {
	// Touch performs g: contact at the first point, movement through the
	// rest on g's timeline, release after the last point.
	Touch(ctx context.Context, g Gesture) (Report, error)

	// Type types text, which must be printable US ASCII (see
	// [ErrUnsupportedText]); nothing is sent when any character is not.
	Type(ctx context.Context, text string) (Report, error)

	// Key presses and releases one named key with modifiers held.
	Key(ctx context.Context, k Key) (Report, error)

	// Press presses and releases a hardware or system button.
	Press(ctx context.Context, b Button) (Report, error)

	// ReleaseAll releases every key, button and contact the backend may
	// hold. It is called at start, on pause and after a failed input.
	ReleaseAll(ctx context.Context) error
}

// Info is what a backend and its phone are and can do.
type Info struct {
	Backend  api.Backend // one of api.Backends
	Platform Platform    // ios or android
	Model    string      // human-readable model, e.g. "Simulated iPhone"
	// Native is the phone's screen size in pixels as the backend sees it
	// (for capture devices, the content rectangle).
	Native image.Point
	// Keyboard, Touch and Screenshot say which inputs and outputs work.
	Keyboard, Touch, Screenshot bool
	// Buttons lists the buttons Press accepts.
	Buttons []Button
	// Apps is the app catalog the backend knows (may be empty).
	Apps []App
	// Can says what the backend does natively; what it cannot, the
	// keyboard recipes ([LaunchApp], [OpenURL]) do with keys and text.
	Can Capabilities
	// StepDelay is how long the phone's UI needs between the steps of a
	// keyboard recipe (a search field appearing); 0 for none, as on the
	// simulated phone.
	StepDelay time.Duration
}

// Capabilities are what a backend does natively. A backend that reports
// one implements the matching interface ([AppLauncher], [URLOpener],
// [Clipboard], [ElementLister]).
type Capabilities struct {
	// LaunchApp: it opens an app by bundle id.
	LaunchApp bool
	// OpenURL: it opens a URL of any scheme.
	OpenURL bool
	// Clipboard: it sets and reads the phone's clipboard.
	Clipboard bool
	// Elements: it lists the screen's elements from its own tree
	// ([ElementLister]).
	Elements bool
}

// AppLauncher is a backend that opens an app by bundle id natively.
type AppLauncher interface {
	LaunchApp(ctx context.Context, bundleID string) (Report, error)
}

// URLOpener is a backend that opens a URL of any scheme natively.
type URLOpener interface {
	OpenURL(ctx context.Context, url string) (Report, error)
}

// Clipboard is a backend that sets and reads the phone's clipboard.
type Clipboard interface {
	SetClipboard(ctx context.Context, text string) error
	Clipboard(ctx context.Context) (string, error)
}

// HasButton reports whether b is one of the buttons the backend supports.
func (i Info) HasButton(b Button) bool {
	for _, x := range i.Buttons {
		if x == b {
			return true
		}
	}
	return false
}

// Platform is the phone's operating system family: the contract's
// [api.Platform].
type Platform = api.Platform

// Platforms.
const (
	IOS     = api.PlatformIOS
	Android = api.PlatformAndroid
)

// App is an installed or launchable app: its bundle or package id and the
// name a person sees under its icon (what launcher search finds).
type App struct {
	ID   string `json:"bundle_id"`
	Name string `json:"name"`
}

// State says whether the phone is usable now.
type State struct {
	// Ready is true when input and screenshots should work.
	Ready bool
	// Code is a short machine word, one of [api.PhoneStates]: ready,
	// detached, closed; the gadget's no_udc, not_configured, no_video;
	// CoreDevice's pairing, no_usbmuxd, no_tunnel, developer_mode_off,
	// ddi_not_mounted.
	Code api.PhoneState
	// Reason is a sentence for a person when not ready; empty when ready.
	Reason string
	// Problems are what the owner can fix, in the order to fix them: the
	// one that makes the phone not ready (the Code's) and those that only
	// take features away (an iPhone below iOS 27 takes no input over
	// CoreDevice but is ready for screenshots).
	Problems Problems
	// Geometry is the current screen geometry (zero if unknown).
	Geometry Geometry
}

// Geometry is the shape of the phone's screen. Epoch changes whenever the
// size or rotation changes, which invalidates coordinates taken from older
// frames.
type Geometry struct {
	Width, Height int
	Epoch         uint64
}

// Sized is g for a screen of size: g itself when the size is the same,
// else that size at the next epoch (changed true). Every backend updates
// its geometry through it.
func (g Geometry) Sized(size image.Point) (_ Geometry, changed bool) {
	if g.Width == size.X && g.Height == size.Y {
		return g, false
	}
	return Geometry{Width: size.X, Height: size.Y, Epoch: g.Epoch + 1}, true
}

// Frame is one screenshot.
type Frame struct {
	// Image is the phone's screen at native resolution.
	Image image.Image
	// Seq increases with every new picture the backend produces; two
	// frames with the same Seq show the same picture.
	Seq uint64
	// Geometry is the geometry the frame was taken under.
	Geometry Geometry
	// Captured is when the picture was taken (backend clock).
	Captured time.Time
	// JPEG, when not nil, is the picture already JPEG-encoded at native
	// size by the source (a capture device's MJPEG); callers that need no
	// scaling may pass it through.
	JPEG []byte
}

// Point is a position as fractions of the screen, each in [0,1].
type Point struct {
	X, Y float64
}

// Valid reports whether both coordinates lie in [0,1].
func (p Point) Valid() bool { return p.X >= 0 && p.X <= 1 && p.Y >= 0 && p.Y <= 1 }

// Step is one point of a gesture's path, At after the gesture's start.
type Step struct {
	Point
	At time.Duration
}

// Gesture is a single-contact touch: contact at Steps[0], movement through
// the later steps at their times, release at Steps[len-1].At. Steps must
// be in time order and there must be at least one.
type Gesture struct {
	Steps []Step
}

// Duration is the time from contact to release.
func (g Gesture) Duration() time.Duration {
	if len(g.Steps) == 0 {
		return 0
	}
	return g.Steps[len(g.Steps)-1].At
}

// Validate checks that g can be performed.
func (g Gesture) Validate() error {
	if len(g.Steps) == 0 {
		return fmt.Errorf("phone: gesture has no points")
	}
	var last time.Duration
	for i, s := range g.Steps {
		if !s.Point.Valid() {
			return fmt.Errorf("phone: gesture point %d (%g, %g) is outside [0,1]", i, s.X, s.Y)
		}
		if s.At < last {
			return fmt.Errorf("phone: gesture point %d is earlier than point %d", i, i-1)
		}
		last = s.At
	}
	return nil
}

// Tap is a contact at p held for hold, then released.
func Tap(p Point, hold time.Duration) Gesture {
	return Gesture{Steps: []Step{{Point: p}, {Point: p, At: hold}}}
}

// Swipe is a contact at from that dwells, moves to to in d at rate points
// per second, and holds there for hold before release. rate <= 0 means 60.
func Swipe(from, to Point, dwell, d, hold time.Duration, rate float64) Gesture {
	if rate <= 0 {
		rate = 60
	}
	n := int(d.Seconds()*rate + 0.5)
	if n < 1 {
		n = 1
	}
	steps := []Step{{Point: from}}
	if dwell > 0 {
		steps = append(steps, Step{Point: from, At: dwell})
	}
	for i := 1; i <= n; i++ {
		f := float64(i) / float64(n)
		steps = append(steps, Step{
			Point: Point{X: from.X + (to.X-from.X)*f, Y: from.Y + (to.Y-from.Y)*f},
			At:    dwell + time.Duration(f*float64(d)),
		})
	}
	if hold > 0 {
		steps = append(steps, Step{Point: to, At: dwell + d + hold})
	}
	return Gesture{Steps: steps}
}

// Modifier is a set of keyboard modifiers held during a key press.
type Modifier uint8

// Modifiers. Cmd is the GUI key (⌘ on iOS, Meta on Android).
const (
	Ctrl Modifier = 1 << iota
	Shift
	Alt
	Cmd
)

// Key is one named key with modifiers; Name is one of [api.KeyNames].
type Key struct {
	Name string
	Mods Modifier
}

// Button is a hardware or system button: the contract's [api.Button].
type Button = api.Button

// Buttons. Back and AppSwitch exist on Android only.
const (
	Home       = api.ButtonHome
	Lock       = api.ButtonLock
	VolumeUp   = api.ButtonVolumeUp
	VolumeDown = api.ButtonVolumeDown
	Mute       = api.ButtonMute
	Back       = api.ButtonBack
	AppSwitch  = api.ButtonAppSwitch
)

// Report says how an input was delivered: how many HID reports were
// written and the cadence achieved on the monotonic clock.
type Report struct {
	Reports int
	// Skipped counts path points dropped because the writer was late.
	Skipped int
	// MedianInterval and MaxGap are measured between consecutive movement
	// reports of a gesture; zero for other inputs.
	MedianInterval, MaxGap time.Duration
	// Took is the whole input's duration.
	Took time.Duration
	// Via names the input path that ran when a backend has more than one
	// (Android: "aoa" or "adb-input"); "" where there is one.
	Via string
}

// EventKind names what an Event reports.
type EventKind string

// Event kinds.
const (
	Attached        EventKind = "attached"
	Detached        EventKind = "detached"
	GeometryChanged EventKind = "geometry"
	NewFrame        EventKind = "frame"
)

// Event is a change in the phone's presence, shape or picture.
type Event struct {
	Kind  EventKind
	At    time.Time
	State State
	// Seq is the new frame's sequence number for NewFrame.
	Seq uint64
}

// StepError is a backend error that says what can be done instead (an
// agent's or a person's next steps), e.g. which backend drives input on a
// phone this one cannot. It wraps Err, so errors.Is sees the sentinel.
type StepError struct {
	Err   error
	Steps []string
}

func (e *StepError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *StepError) Unwrap() error { return e.Err }

// NextSteps returns the steps of the first StepError in err's chain (nil
// when there is none).
func NextSteps(err error) []string {
	var s *StepError
	if errors.As(err, &s) {
		return s.Steps
	}
	return nil
}

// Errors a backend returns; callers test them with errors.Is. Backends wrap
// them with a sentence a person can act on.
var (
	// ErrUnavailable: the phone is not attached, not configured, or the
	// backend is closed.
	ErrUnavailable = errors.New("phone unavailable")
	// ErrCaptureFailed: no screenshot could be taken.
	ErrCaptureFailed = errors.New("capture failed")
	// ErrInputFailed: input could not be delivered (the host is not
	// reading, the write failed).
	ErrInputFailed = errors.New("input failed")
	// ErrUnsupported: the backend or platform cannot do this.
	ErrUnsupported = errors.New("unsupported")
	// ErrUnsupportedText: text has characters the keyboard cannot type.
	ErrUnsupportedText = errors.New("unsupported text")
	// ErrUnsupportedKey: unknown key name.
	ErrUnsupportedKey = errors.New("unsupported key")
	// ErrUnsupportedButton: the button does not exist on this platform.
	ErrUnsupportedButton = errors.New("unsupported button")
)
