package gadget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// Defaults for WriterOptions.
const (
	// DefaultWriteDeadline is how long one report may wait for the host to
	// take the previous one. Phones poll HID endpoints every few ms.
	DefaultWriteDeadline = 500 * time.Millisecond
	// DefaultReconnectWait is how long a write waits for the UDC to be
	// configured again after the gadget went away.
	DefaultReconnectWait = 2 * time.Second
)

// NotReading is the sentence for a host that does not take reports.
const NotReading = "the phone is not reading input (is it unlocked and connected?)"

// WriterOptions configure a Writer. Zero values pick the documented
// defaults.
type WriterOptions struct {
	// Paths maps each function to its device node (/dev/hidgN).
	Paths map[hid.Kind]string
	// State reads the UDC state; writes are refused unless it is
	// "configured". nil means the state is not checked (tests).
	State func() string
	// Deadline bounds each report; 0 means DefaultWriteDeadline.
	Deadline time.Duration
	// ReconnectWait bounds the wait for "configured" after the gadget
	// went away; 0 means DefaultReconnectWait.
	ReconnectWait time.Duration
	// Open opens a device node for writing and returns a non-blocking fd;
	// nil opens with O_WRONLY|O_NONBLOCK|O_CLOEXEC.
	Open func(path string) (int, error)
	// Now is the clock the deadlines are reckoned on; nil means time.Now.
	Now func() time.Time
}

// Writer writes HID reports to the gadget's /dev/hidgN nodes. It
// implements the report-writer interface hw/input drives. Safe for
// concurrent use; reports are written one at a time.
type Writer struct {
	opts WriterOptions
	mu   sync.Mutex
	fds  map[hid.Kind]int
}

// NewWriter returns a Writer; device nodes are opened on first use.
func NewWriter(opts WriterOptions) *Writer {
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultWriteDeadline
	}
	if opts.ReconnectWait <= 0 {
		opts.ReconnectWait = DefaultReconnectWait
	}
	if opts.Open == nil {
		opts.Open = func(p string) (int, error) {
			return unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Writer{opts: opts, fds: map[hid.Kind]int{}}
}

// gone reports whether err means the gadget went away (unbound, cable
// pulled, host reset) rather than the host being slow.
func gone(err error) bool {
	return errors.Is(err, unix.ESHUTDOWN) || errors.Is(err, unix.ENODEV) ||
		errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ENXIO)
}

// WriteReport writes one report for function k within the deadline. It
// fails with phone.ErrUnavailable when the UDC is not configured, with
// phone.ErrInputFailed when the host does not take the report in time
// or the gadget stays gone after one reopen, and with ctx's error when
// ctx ends first.
func (w *Writer) WriteReport(ctx context.Context, k hid.Kind, report []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.checkState(k); err != nil {
		return err
	}
	err := w.write(ctx, k, report)
	if err == nil || !gone(err) {
		return err
	}
	// The gadget went away: close, wait until the host configured it
	// again, reopen once.
	w.closeFD(k)
	if w.opts.State != nil {
		if s, ok := waitConfigured(ctx, w.opts.State, w.opts.ReconnectWait); !ok {
			if ctx.Err() != nil {
				return fmt.Errorf("gadget: write %s report: %w", k, ctx.Err())
			}
			return fmt.Errorf("gadget: write %s report: %w: the phone disconnected (USB state %q); reconnect it and retry", k, phone.ErrUnavailable, s)
		}
	}
	// Reopen once. The UDC state can still read "configured" from before
	// a re-enumeration while the endpoint is not enabled yet (ESHUTDOWN):
	// retry on the new node until ReconnectWait passes.
	until := w.opts.Now().Add(w.opts.ReconnectWait)
	for {
		err := w.write(ctx, k, report)
		if err == nil || !gone(err) {
			return err
		}
		if w.opts.Now().After(until) {
			w.closeFD(k)
			return fmt.Errorf("gadget: write %s report after reopening: %w: %v; reconnect the phone", k, phone.ErrInputFailed, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gadget: write %s report: %w", k, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (w *Writer) checkState(k hid.Kind) error {
	if w.opts.State == nil {
		return nil
	}
	if s := w.opts.State(); s != StateConfigured {
		if s == "" {
			s = "absent"
		}
		return fmt.Errorf("gadget: write %s report: %w: the phone has not set up the USB device (state %q); connect the phone to the box's USB-C port and unlock it", k, phone.ErrUnavailable, s)
	}
	return nil
}

// write writes report to k's node, waiting for POLLOUT up to the
// deadline. Errors meaning the gadget is gone are returned unwrapped
// (as unix.Errno) so the caller can reopen.
func (w *Writer) write(ctx context.Context, k hid.Kind, report []byte) error {
	fd, err := w.fd(k)
	if err != nil {
		return err
	}
	deadline := w.opts.Now().Add(w.opts.Deadline)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		n, err := unix.Write(fd, report)
		switch {
		case err == nil && n == len(report):
			return nil
		case err == nil:
			return fmt.Errorf("gadget: write %s report: %w: short write (%d of %d bytes)", k, phone.ErrInputFailed, n, len(report))
		case err == unix.EINTR:
			continue
		case gone(err):
			return err
		case err != unix.EAGAIN:
			return fmt.Errorf("gadget: write %s report: %w: %v", k, phone.ErrInputFailed, err)
		}
		// EAGAIN: the host has not taken the previous report yet.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("gadget: write %s report: %w", k, err)
		}
		left := deadline.Sub(w.opts.Now())
		if left <= 0 {
			return fmt.Errorf("gadget: write %s report: %w: %s (no report taken for %v)", k, phone.ErrInputFailed, NotReading, w.opts.Deadline)
		}
		// Poll in slices so a cancelled ctx is noticed.
		ms := int(min(left, 50*time.Millisecond)/time.Millisecond) + 1
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if _, err := unix.Poll(pfd, ms); err != nil && err != unix.EINTR {
			return fmt.Errorf("gadget: poll %s: %w: %v", k, phone.ErrInputFailed, err)
		}
		if pfd[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 && pfd[0].Revents&unix.POLLOUT == 0 {
			// Let the next write report the error itself.
			continue
		}
	}
}

// fd returns k's open descriptor, opening it on first use.
func (w *Writer) fd(k hid.Kind) (int, error) {
	if fd, ok := w.fds[k]; ok {
		return fd, nil
	}
	p, ok := w.opts.Paths[k]
	if !ok {
		return -1, fmt.Errorf("gadget: write %s report: %w: the gadget has no %s function in this profile", k, phone.ErrUnsupported, k)
	}
	for {
		fd, err := w.opts.Open(p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if gone(err) {
				return -1, err
			}
			return -1, fmt.Errorf("gadget: open %s: %w: %v", p, phone.ErrInputFailed, err)
		}
		w.fds[k] = fd
		return fd, nil
	}
}

func (w *Writer) closeFD(k hid.Kind) {
	if fd, ok := w.fds[k]; ok {
		unix.Close(fd)
		delete(w.fds, k)
	}
}

// Close closes every open device node. The Writer can be used again
// afterwards (nodes reopen on demand); close before unbinding the gadget.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.fds {
		w.closeFD(k)
	}
	return nil
}
