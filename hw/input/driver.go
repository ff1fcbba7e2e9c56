package input

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// Timing holds the durations the driver waits. Each zero field takes the
// default named in its comment, from phone's timing table.
type Timing struct {
	// TapHold is how long the contact of a gesture with a single point
	// is held (default phone.PointHold). Gestures with two or more points follow
	// their own timeline (phone.Tap holds for the time it is given).
	TapHold time.Duration
	// KeyHold is how long a key is held when typing or pressing a key
	// without modifiers (default phone.KeyHold).
	KeyHold time.Duration
	// ChordHold is how long a key with modifiers is held (default
	// phone.ChordHold).
	ChordHold time.Duration
	// ButtonHold is how long a consumer button is held (default
	// phone.ButtonHold).
	ButtonHold time.Duration
	// Settle is the wait between moving an iOS pointer and pressing it,
	// while the animated cursor catches up (default phone.PointerSettle).
	Settle time.Duration
	// Releases is how many times each release report is written
	// (default phone.Releases); ReleaseGap is the wait between them
	// (default phone.ReleaseGap).
	Releases   int
	ReleaseGap time.Duration
}

func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.TapHold, phone.PointHold)
	def(&t.KeyHold, phone.KeyHold)
	def(&t.ChordHold, phone.ChordHold)
	def(&t.ButtonHold, phone.ButtonHold)
	def(&t.Settle, phone.PointerSettle)
	def(&t.ReleaseGap, phone.ReleaseGap)
	if t.Releases <= 0 {
		t.Releases = phone.Releases
	}
	return t
}

// Calibration maps screen fractions to relative mouse counts for
// [IOSRelative]: X and Y are the counts that move the pointer across the
// whole width and height. Zero fields mean a default guess of 393 × 852. iOS accelerates the pointer, so measure them
// with screenshots on the phone (Settings → Accessibility → Touch →
// AssistiveTouch → Tracking Speed changes them).
type Calibration struct {
	X, Y float64
}

// The calibration used when Options.Calibration is zero: one count per
// iPhone point on a 393 × 852 pt screen. It is a starting guess, not a
// measurement.
const (
	defaultCalX = 393
	defaultCalY = 852
)

// Options configure a Driver. Fields must not change after New.
type Options struct {
	// Writer takes the reports. Required.
	Writer Writer
	// Profile picks the pointer. The zero value is IOS.
	Profile Profile
	// Now is the clock inputs are paced and timed on; nil means
	// time.Now. It must be monotonic (time.Now's readings are).
	Now func() time.Time
	// Sleep waits on that clock; nil means phone.Sleep (a real timer,
	// which testing/synctest fakes).
	Sleep func(ctx context.Context, d time.Duration) error
	// Timing overrides durations; zero fields take defaults.
	Timing Timing
	// Calibration is used by IOSRelative; zero means a default guess
	// (393 × 852 counts).
	Calibration Calibration
	// Logger receives failures of best-effort releases. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Driver implements the input half of phone.Phone over a Writer. Its
// methods are safe for concurrent use; inputs are serialized, so two
// gestures never interleave on the wire. To interrupt a running input
// (pause), cancel its ctx; ReleaseAll waits for it to return.
type Driver struct {
	w       Writer
	profile Profile
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
	t       Timing
	cal     Calibration
	log     *slog.Logger

	mu sync.Mutex
	// held records which functions may hold something down on the
	// phone's side (keys, a button, a contact), after successful writes.
	held map[hid.Kind]bool
	// x, y are the last absolute pointer position sent.
	x, y uint16
}

// New returns a driver for o.
func New(o Options) (*Driver, error) {
	if o.Writer == nil {
		return nil, errors.New("input: new driver: Options.Writer is nil")
	}
	if !o.Profile.valid() {
		return nil, fmt.Errorf("input: new driver: unknown profile %v", o.Profile)
	}
	d := &Driver{
		w: o.Writer, profile: o.Profile, now: o.Now, sleep: o.Sleep,
		t: o.Timing.withDefaults(), cal: o.Calibration, log: o.Logger,
		held: map[hid.Kind]bool{},
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.sleep == nil {
		d.sleep = phone.Sleep
	}
	if d.cal.X <= 0 || d.cal.Y <= 0 {
		d.cal = Calibration{X: defaultCalX, Y: defaultCalY}
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	return d, nil
}

// Profile returns the driver's profile.
func (d *Driver) Profile() Profile { return d.profile }

// op accounts for one input: the reports written.
type op struct {
	name    string
	start   time.Time
	reports int
}

// release returns the release report of kind k.
func (d *Driver) release(k hid.Kind) []byte {
	switch k {
	case hid.KindKeyboard:
		return hid.Keyboard(0)
	case hid.KindConsumer:
		return hid.Consumer(hid.ConsumerNone)
	case hid.KindTouch:
		return hid.Touch(hid.TouchState{X: d.x, Y: d.y})
	case hid.KindAbsMouse:
		return hid.AbsMouse(0, d.x, d.y, 0)
	}
	return hid.RelMouse(0, 0, 0, 0)
}

// write sends one report. pressed says whether the report holds something
// down; the held state changes only when the write succeeds.
func (d *Driver) write(ctx context.Context, o *op, k hid.Kind, r []byte, pressed bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.w.WriteReport(ctx, k, r); err != nil {
		return &writeError{kind: k, err: err}
	}
	o.reports++
	d.held[k] = pressed
	return nil
}

// releaseKind writes k's release report Timing.Releases times,
// Timing.ReleaseGap apart.
func (d *Driver) releaseKind(ctx context.Context, o *op, k hid.Kind) error {
	for i := range d.t.Releases {
		if i > 0 {
			if err := d.sleep(ctx, d.t.ReleaseGap); err != nil {
				return err
			}
		}
		if err := d.write(ctx, o, k, d.release(k), false); err != nil {
			return err
		}
	}
	return nil
}

// writeError marks an error that came from the Writer.
type writeError struct {
	kind hid.Kind
	err  error
}

func (e *writeError) Error() string { return fmt.Sprintf("write %s report: %v", e.kind, e.err) }
func (e *writeError) Unwrap() error { return e.err }

// releaseTimeout bounds the best-effort release after a failure.
const releaseTimeout = 2 * time.Second

// fail turns an error met during o into the error the caller gets, after
// a best-effort release of everything that may be held (and of the kind
// whose write failed, which the phone may have seen).
func (d *Driver) fail(ctx context.Context, o *op, err error) error {
	var we *writeError
	if !errors.As(err, &we) {
		we = nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	for _, k := range d.profile.Kinds() {
		if !d.held[k] && (we == nil || we.kind != k) {
			continue
		}
		if rerr := d.releaseKind(rctx, o, k); rerr != nil {
			d.log.Warn("input: release after a failed input also failed", "input", o.name, "function", k.String(), "err", rerr)
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("input: %s: stopped, everything released: %w", o.name, ctxErr)
	}
	if we != nil {
		return fmt.Errorf("input: %s: %w: %w", o.name, phone.ErrInputFailed, err)
	}
	return fmt.Errorf("input: %s: %w", o.name, err)
}

// report summarizes o.
func (d *Driver) report(o *op) phone.Report {
	return phone.Report{Reports: o.reports, Took: d.now().Sub(o.start)}
}

func (d *Driver) begin(name string) *op {
	return &op{name: name, start: d.now()}
}

// ReleaseAll writes the release report of the keyboard, the consumer
// control and the pointer, each Timing.Releases times. Call it at start,
// on pause (after cancelling the running input) and after a failure. A
// failed function does not stop the others from being released; the
// error wraps phone.ErrInputFailed and every write error, or ctx.Err().
func (d *Driver) ReleaseAll(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.begin("release all")
	var errs []error
	for _, k := range d.profile.Kinds() {
		if err := d.releaseKind(ctx, o, k); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("input: release all: %w", ctx.Err())
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("input: release all: %w: %w", phone.ErrInputFailed, errors.Join(errs...))
	}
	return nil
}

// Driver provides the input half of phone.Phone.
var _ phone.Input = (*Driver)(nil)
