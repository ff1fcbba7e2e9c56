package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoDevice: no usable capture device is attached.
var ErrNoDevice = errors.New("capture: no capture device")

// ErrNoFrame: the device has not delivered a frame yet.
var ErrNoFrame = errors.New("capture: no frame yet")

// Options configure Open. Zero values pick the documented defaults.
type Options struct {
	// Device is the node, e.g. /dev/video0; "" means the first video
	// device that streams MJPEG or YUYV.
	Device string
	// Width and Height are the wanted size; 0 means 1920x1080. The device
	// may give another size (see Device.Format).
	Width, Height int
	// Buffers is the number of mmap buffers; 0 means 4.
	Buffers int
	// SysDir is the video4linux class folder; "" means
	// /sys/class/video4linux.
	SysDir string
	// Logger receives device changes; nil means slog.Default().
	Logger *slog.Logger
}

// Frame is one captured picture as the device delivered it.
type Frame struct {
	Format Format
	// Data is the frame's bytes (a JPEG for MJPEG, packed YUYV).
	Data []byte
	// Seq counts frames since Open (it goes on across reopens).
	Seq uint64
	// Captured is when the frame was dequeued.
	Captured time.Time
}

// Device is an open, streaming capture device. The reader goroutine keeps
// the newest frame and reopens the device after it disappears.
//
// The newest frame stays in the driver's buffer until the next one comes
// or a caller takes it: only a frame that a caller asks for is copied, so
// a dongle streaming 1080p at 30 frames/s that nobody watches costs no
// copy (4 MB a frame) and no garbage.
type Device struct {
	opts   Options
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	path   string
	format Format
	latest *Frame
	seq    uint64
	// held is the driver's buffer dequeued last and not yet requeued
	// (valid while holding); inBuffer: latest.Data still points into it,
	// and no caller has latest.
	held     int
	holding  bool
	inBuffer bool
	lastErr  error
	online   bool
}

// stream is one open session of the device.
type stream struct {
	fd     int
	format Format
	bufs   [][]byte
}

// Open finds and opens the capture device, negotiates a format, starts
// streaming and returns once the stream runs. Errors say what the device
// offers and what to do.
func Open(ctx context.Context, opts Options) (*Device, error) {
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = 1920, 1080
	}
	if opts.Buffers <= 0 {
		opts.Buffers = 4
	}
	if opts.SysDir == "" {
		opts.SysDir = "/sys/class/video4linux"
	}
	d := &Device{opts: opts, log: opts.Logger, done: make(chan struct{})}
	if d.log == nil {
		d.log = slog.Default()
	}
	s, path, err := d.openStream()
	if err != nil {
		return nil, err
	}
	d.path, d.format, d.online = path, s.format, true
	rctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go d.run(rctx, s)
	return d, nil
}

// candidates lists device nodes to try.
func (d *Device) candidates() []string {
	if d.opts.Device != "" {
		return []string{d.opts.Device}
	}
	m, _ := filepath.Glob(filepath.Join(d.opts.SysDir, "video*"))
	sort.Slice(m, func(i, j int) bool {
		return len(m[i]) < len(m[j]) || len(m[i]) == len(m[j]) && m[i] < m[j]
	})
	var out []string
	for _, p := range m {
		out = append(out, "/dev/"+filepath.Base(p))
	}
	return out
}

// openStream opens the first candidate that can stream.
func (d *Device) openStream() (*stream, string, error) {
	var errs []error
	cands := d.candidates()
	for _, p := range cands {
		s, err := startStream(p, d.opts)
		if err == nil {
			return s, p, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", p, err))
	}
	if len(cands) == 0 {
		return nil, "", fmt.Errorf("%w: no /dev/video* found; plug the HDMI capture dongle into a USB-A port or pass --video", ErrNoDevice)
	}
	return nil, "", fmt.Errorf("%w: %w", ErrNoDevice, errors.Join(errs...))
}

// startStream opens path with a raw fd (not *os.File, see the package
// doc), negotiates, maps buffers and starts streaming.
func startStream(path string, opts Options) (_ *stream, err error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	s := &stream{fd: fd}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	c, err := queryCaps(fd)
	if err != nil {
		return nil, err
	}
	if !c.canCapture() {
		return nil, fmt.Errorf("%s (%s) is not a streaming capture device", c.Card, c.Driver)
	}
	pix, err := chooseFormat(enumFormats(fd))
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", c.Card, c.Driver, err)
	}
	sizes, ranged := enumSizes(fd, pix)
	if s.format, err = setFormat(fd, pix, chooseSize(sizes, ranged, size{opts.Width, opts.Height})); err != nil {
		return nil, err
	}
	rb := make([]byte, 20)
	le.PutUint32(rb[0:], uint32(opts.Buffers))
	le.PutUint32(rb[4:], bufTypeVideoCapture)
	le.PutUint32(rb[8:], memoryMmap)
	if err := ioctl(fd, vidiocReqbufs, rb); err != nil {
		return nil, fmt.Errorf("REQBUFS: %w", err)
	}
	n := int(le.Uint32(rb[0:]))
	if n == 0 {
		return nil, errors.New("REQBUFS: the driver gave no buffers")
	}
	for i := 0; i < n; i++ {
		b := bufferStruct(i)
		if err := ioctl(fd, vidiocQuerybuf, b); err != nil {
			return nil, fmt.Errorf("QUERYBUF %d: %w", i, err)
		}
		m, err := unix.Mmap(fd, int64(le.Uint32(b[64:])), int(le.Uint32(b[72:])), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("mmap buffer %d: %w", i, err)
		}
		s.bufs = append(s.bufs, m)
		if err := ioctl(fd, vidiocQbuf, b); err != nil {
			return nil, fmt.Errorf("QBUF %d: %w", i, err)
		}
	}
	if err := ioctl(fd, vidiocStreamon, typeArg()); err != nil {
		return nil, fmt.Errorf("STREAMON: %w", err)
	}
	return s, nil
}

func bufferStruct(i int) []byte {
	b := make([]byte, 88)
	le.PutUint32(b[0:], uint32(i))
	le.PutUint32(b[4:], bufTypeVideoCapture)
	le.PutUint32(b[60:], memoryMmap)
	return b
}

func typeArg() []byte {
	b := make([]byte, 4)
	le.PutUint32(b, bufTypeVideoCapture)
	return b
}

func (s *stream) close() {
	if s.fd < 0 {
		return
	}
	ioctl(s.fd, vidiocStreamoff, typeArg())
	for _, m := range s.bufs {
		unix.Munmap(m)
	}
	unix.Close(s.fd)
	s.fd, s.bufs = -1, nil
}

// dequeue waits up to timeout for a filled buffer and returns its index
// and bytes, which stay the driver's memory until requeue(idx) gives the
// buffer back; ok is false on timeout (and for an empty buffer, which it
// gives back itself).
func (s *stream) dequeue(timeout time.Duration) (idx int, data []byte, ok bool, err error) {
	pfd := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, int(timeout/time.Millisecond))
	if err == unix.EINTR || err == nil && n == 0 {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("poll: %w", err)
	}
	if pfd[0].Revents&unix.POLLIN == 0 && pfd[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
		return 0, nil, false, fmt.Errorf("poll: device error (revents %#x)", pfd[0].Revents)
	}
	b := bufferStruct(0)
	if err := ioctl(s.fd, vidiocDqbuf, b); err != nil {
		if err == unix.EAGAIN {
			return 0, nil, false, nil
		}
		return 0, nil, false, fmt.Errorf("DQBUF: %w", err)
	}
	idx, used := int(le.Uint32(b[0:])), int(le.Uint32(b[8:]))
	if idx < len(s.bufs) && used > 0 && used <= len(s.bufs[idx]) {
		return idx, s.bufs[idx][:used], true, nil
	}
	if err := ioctl(s.fd, vidiocQbuf, b); err != nil {
		return 0, nil, false, fmt.Errorf("QBUF: %w", err)
	}
	return 0, nil, false, nil
}

// requeue gives buffer idx back to the driver to fill again.
func (s *stream) requeue(idx int) error {
	if err := ioctl(s.fd, vidiocQbuf, bufferStruct(idx)); err != nil {
		return fmt.Errorf("QBUF: %w", err)
	}
	return nil
}

// run reads frames until ctx ends, reopening the device when it fails.
func (d *Device) run(ctx context.Context, s *stream) {
	defer close(d.done)
	defer func() {
		if s != nil {
			d.detach()
			s.close()
		}
	}()
	for ctx.Err() == nil {
		if s == nil {
			var path string
			var err error
			s, path, err = d.openStream()
			if err != nil {
				d.setErr(err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				continue
			}
			d.mu.Lock()
			d.path, d.format, d.online, d.lastErr = path, s.format, true, nil
			d.mu.Unlock()
			d.log.Info("capture: device back", "device", path, "format", s.format.Pixel.String(), "width", s.format.Width, "height", s.format.Height)
		}
		idx, data, ok, err := s.dequeue(200 * time.Millisecond)
		if err == nil && ok {
			if prev, had := d.hold(s.format, idx, data, time.Now()); had {
				err = s.requeue(prev)
			}
		}
		if err != nil {
			d.log.Warn("capture: device failed; reopening", "device", d.Path(), "err", err)
			d.detach()
			s.close()
			s = nil
			d.setErr(err)
			continue
		}
	}
}

// hold makes data, in the driver's buffer idx, the newest frame, and
// returns the buffer held before it, which the caller gives back to the
// driver: no caller can read it any more (a caller that took it got a
// copy).
func (d *Device) hold(format Format, idx int, data []byte, at time.Time) (prev int, had bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	prev, had = d.held, d.holding
	d.seq++
	d.latest = &Frame{Format: format, Data: data, Seq: d.seq, Captured: at}
	d.held, d.holding, d.inBuffer = idx, true, true
	return prev, had
}

// detach copies the newest frame out of the driver's buffer and forgets
// the held buffer: the stream is about to end and unmap its buffers.
func (d *Device) detach() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.own()
	d.holding = false
}

// own copies the newest frame out of the driver's buffer if it is still
// there; d.mu is held.
func (d *Device) own() {
	if d.inBuffer {
		d.latest.Data = bytes.Clone(d.latest.Data)
		d.inBuffer = false
	}
}

func (d *Device) setErr(err error) {
	d.mu.Lock()
	d.online, d.lastErr = false, err
	d.mu.Unlock()
}

// Latest returns the newest frame. It fails with ErrNoDevice while the
// device is gone and ErrNoFrame before the first frame.
func (d *Device) Latest() (*Frame, error) {
	return d.after(0)
}

// after returns the newest frame if it is newer than seq (nil if not),
// copied out of the driver's buffer the first time a caller takes it.
func (d *Device) after(seq uint64) (*Frame, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.online {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, d.lastErr)
	}
	if d.latest == nil {
		return nil, ErrNoFrame
	}
	if d.latest.Seq <= seq {
		return nil, nil
	}
	d.own()
	return d.latest, nil
}

// Wait returns the first frame newer than seq, waiting until ctx ends.
// It waits through a reopen: a device that failed a moment ago (a
// transient poll or DQBUF error, a dongle replugged) comes back on its
// own, so only an ended ctx stops the wait, and its error names the last
// device error seen.
func (d *Device) Wait(ctx context.Context, seq uint64) (*Frame, error) {
	var last error
	for {
		f, err := d.after(seq)
		if f != nil {
			return f, nil
		}
		if err != nil && !errors.Is(err, ErrNoFrame) {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return nil, fmt.Errorf("capture: wait for a frame: %w (last device error: %w)", ctx.Err(), last)
			}
			return nil, fmt.Errorf("capture: wait for a frame: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Online reports whether the device is open and streaming.
func (d *Device) Online() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.online
}

// Path is the device node in use.
func (d *Device) Path() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path
}

// Format is the negotiated format.
func (d *Device) Format() Format {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.format
}

// Close stops streaming and releases the device. It is safe to call
// more than once.
func (d *Device) Close() error {
	d.cancel()
	<-d.done
	d.mu.Lock()
	d.online = false
	d.lastErr = os.ErrClosed
	d.mu.Unlock()
	return nil
}
