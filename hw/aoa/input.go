package aoa

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// DefaultChunk is the largest SET_HID_REPORT_DESC data stage the box
// sends when Options.Chunk is zero: 64 bytes, the control endpoint's max
// packet size at high speed (bMaxPacketSize0), as the AOA v2 text asks.
// Android's accessory function takes up to its ep0 buffer (4 KiB on
// current kernels), so this is the safe side.
const DefaultChunk = 64

// DefaultSettle is how long Open waits after registering before the
// first report, when Options.Settle is zero. Android makes the input
// device in a worker after the last descriptor chunk, and its input
// reader opens it after that: a report sent sooner is refused or lost.
const DefaultSettle = 100 * time.Millisecond

// closeTimeout bounds the releases and unregistrations of Close.
const closeTimeout = 2 * time.Second

// Kinds are the HID devices the box registers on the phone, in order:
// the keyboard, the consumer keys and the touchscreen digitizer
// (hw/input's Android profile).
func Kinds() []hid.Kind { return input.Android.Kinds() }

// ID is the accessory id the box gives the device of kind k: the kind's
// number, so it is the same in every run and a new box clears what a
// crashed one registered.
func ID(k hid.Kind) uint16 { return uint16(k) }

// Options configure Open. Fields must not change after Open.
type Options struct {
	// Controller reaches the phone's control endpoint. Required.
	Controller Controller
	// Chunk is the most descriptor bytes one SET_HID_REPORT_DESC
	// carries; 0 means DefaultChunk.
	Chunk int
	// Settle is the wait after registering, before Open returns; 0
	// means DefaultSettle, negative means none.
	Settle time.Duration
	// Now is the clock inputs are paced on; nil means time.Now.
	Now func() time.Time
	// Sleep waits on that clock; nil means phone.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// Timing overrides hw/input's holds and releases; zero fields take
	// phone's timing table.
	Timing input.Timing
	// Logger receives what Open and Close ignore (a stale id the phone
	// did not know, a failed release). Nil means slog.Default().
	Logger *slog.Logger
}

// Input is AOA HID input on one phone: the hw/input driver with the
// Android profile (Touch, Type, Key, Press, ReleaseAll, as phone.Phone
// declares them) writing through the devices Open registered. Its methods
// are safe for concurrent use; inputs are serialized.
type Input struct {
	*input.Driver
	dev *device
}

// Open asks the phone's AOA version (an error wrapping [ErrUnsupported]
// below 2), unregisters every id the box uses (what a crashed box left;
// the phone refusing an id it does not know is ignored), registers the
// keyboard, consumer and touch devices with hw/hid's descriptors, waits
// Options.Settle, and releases everything once. On an error nothing stays
// registered (best effort) and the error says which step failed.
func Open(ctx context.Context, o Options) (in *Input, err error) {
	if o.Controller == nil {
		return nil, errors.New("aoa: open: Options.Controller is nil")
	}
	if o.Chunk < 0 {
		return nil, fmt.Errorf("aoa: open: Options.Chunk is %d; use 0 for %d or a positive size", o.Chunk, DefaultChunk)
	}
	d := &device{c: o.Controller, log: o.Logger, chunk: o.Chunk}
	if d.chunk == 0 {
		d.chunk = DefaultChunk
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = phone.Sleep
	}
	if d.protocol, err = Protocol(ctx, d.c); err != nil {
		return nil, fmt.Errorf("aoa: open: %w", err)
	}
	for _, k := range hid.Kinds() {
		if err := unregisterHID(ctx, d.c, ID(k)); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("aoa: open: clear %s (id %d): %w", k, ID(k), err)
			}
			d.log.Debug("aoa: open: the phone had no stale device to clear", "device", k.String(), "id", ID(k), "err", err)
		}
	}
	defer func() {
		if err != nil {
			d.unregisterAll()
		}
	}()
	for _, k := range Kinds() {
		f, _ := hid.FunctionFor(k)
		d.registered = append(d.registered, k)
		if err := registerHID(ctx, d.c, ID(k), f.Descriptor, d.chunk); err != nil {
			return nil, fmt.Errorf("aoa: open: register %s (id %d): %w", k, ID(k), err)
		}
	}
	settle := o.Settle
	if settle == 0 {
		settle = DefaultSettle
	}
	if err := sleep(ctx, settle); err != nil {
		return nil, fmt.Errorf("aoa: open: settle after registering: %w", err)
	}
	drv, err := input.New(input.Options{Writer: d, Profile: input.Android, Now: o.Now, Sleep: o.Sleep, Timing: o.Timing, Logger: d.log})
	if err != nil {
		return nil, fmt.Errorf("aoa: open: %w", err)
	}
	if err := drv.ReleaseAll(ctx); err != nil {
		return nil, fmt.Errorf("aoa: open: first release: %w", err)
	}
	d.mu.Lock()
	d.sent = 0
	d.mu.Unlock()
	return &Input{Driver: drv, dev: d}, nil
}

// Protocol returns the AOA version the phone answered (2 or more).
func (in *Input) Protocol() uint16 { return in.dev.protocol }

// Transfers returns how many control transfers the input has made since
// Open returned (reports sent, failed ones included).
func (in *Input) Transfers() int {
	in.dev.mu.Lock()
	defer in.dev.mu.Unlock()
	return in.dev.sent
}

// Close releases everything (after the running input returns; cancel its
// ctx first to stop it) and unregisters the devices, within 2 s. Later
// inputs fail with an error wrapping net.ErrClosed and phone.ErrInputFailed,
// as does a second Close. The error joins what failed.
func (in *Input) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	rerr := in.ReleaseAll(ctx)
	if errors.Is(rerr, net.ErrClosed) {
		return fmt.Errorf("aoa: close: %w", net.ErrClosed)
	}
	uerr := in.dev.close(ctx)
	if err := errors.Join(rerr, uerr); err != nil {
		return fmt.Errorf("aoa: close: %w", err)
	}
	return nil
}

// device is the phone's registered HID devices: the input.Writer of the
// driver.
type device struct {
	c        Controller
	log      *slog.Logger
	chunk    int
	protocol uint16

	mu         sync.Mutex
	registered []hid.Kind // in registration order
	closed     bool
	sent       int
}

// WriteReport sends report as an event of k's device.
func (d *device) WriteReport(ctx context.Context, k hid.Kind, report []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("aoa: send %s report: %w", k, net.ErrClosed)
	}
	d.sent++
	if err := sendHIDEvent(ctx, d.c, ID(k), report); err != nil {
		return fmt.Errorf("aoa: send %s report (id %d): %w", k, ID(k), err)
	}
	return nil
}

// close unregisters every device once; later writes fail.
func (d *device) close(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return net.ErrClosed
	}
	d.closed = true
	var errs []error
	for _, k := range d.registered {
		if err := unregisterHID(ctx, d.c, ID(k)); err != nil {
			errs = append(errs, fmt.Errorf("unregister %s (id %d): %w", k, ID(k), err))
		}
	}
	return errors.Join(errs...)
}

// unregisterAll is Open's cleanup after a failure: best effort, logged.
func (d *device) unregisterAll() {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := d.close(ctx); err != nil {
		d.log.Warn("aoa: open failed and the cleanup too; the phone may keep a stale device until the next open", "err", err)
	}
}
