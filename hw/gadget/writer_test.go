package gadget

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// fakeHost is a pipe standing in for /dev/hidgN: the writer gets the
// non-blocking write end, the test reads (or stops reading) the other.
type fakeHost struct {
	r, w int
}

func newFakeHost(t *testing.T) *fakeHost {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]) })
	return &fakeHost{r: p[0], w: p[1]}
}

// fill writes until the pipe is full: a host that stopped polling.
func (h *fakeHost) fill(t *testing.T) {
	t.Helper()
	buf := make([]byte, 4096)
	for {
		if _, err := unix.Write(h.w, buf); err == unix.EAGAIN {
			return
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

func (h *fakeHost) drain() []byte {
	var out []byte
	buf := make([]byte, 65536)
	for {
		n, err := unix.Read(h.r, buf)
		if n <= 0 || err != nil {
			return out
		}
		out = append(out, buf[:n]...)
	}
}

func TestWriteReport(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	w := NewWriter(WriterOptions{
		Paths: map[hid.Kind]string{hid.KindKeyboard: "hidg0"},
		Open:  func(string) (int, error) { return unix.Dup(h.w) },
	})
	defer w.Close()
	rep := hid.Keyboard(hid.LeftShift, hid.KeyA)
	if err := w.WriteReport(context.Background(), hid.KindKeyboard, rep); err != nil {
		t.Fatal(err)
	}
	if got := h.drain(); string(got) != string(rep) {
		t.Errorf("host read %x, want %x", got, rep)
	}
}

func TestWriteReportHostNotReading(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	h.fill(t)
	const deadline = 60 * time.Millisecond
	w := NewWriter(WriterOptions{
		Paths:    map[hid.Kind]string{hid.KindTouch: "hidg2"},
		Deadline: deadline,
		Open:     func(string) (int, error) { return unix.Dup(h.w) },
	})
	defer w.Close()
	start := time.Now()
	err := w.WriteReport(context.Background(), hid.KindTouch, make([]byte, hid.TouchReportLen))
	took := time.Since(start)
	if !errors.Is(err, phone.ErrInputFailed) || !strings.Contains(err.Error(), NotReading) {
		t.Fatalf("WriteReport to a full pipe = %v, want ErrInputFailed saying %q", err, NotReading)
	}
	if took < deadline || took > deadline+2*time.Second {
		t.Errorf("WriteReport gave up after %v, want about %v", took, deadline)
	}
	// The host reads again: the next write goes through.
	h.drain()
	if err := w.WriteReport(context.Background(), hid.KindTouch, []byte{1, 2, 3}); err != nil {
		t.Fatalf("WriteReport after the host drained: %v", err)
	}
}

func TestWriteReportWaitsForSlowHost(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	h.fill(t)
	// The writer reads its clock a second time once the full pipe turned
	// its first write away: the host reads from then on.
	blocked := make(chan struct{})
	var clocks atomic.Int32
	w := NewWriter(WriterOptions{
		Paths:    map[hid.Kind]string{hid.KindConsumer: "hidg1"},
		Deadline: 5 * time.Second,
		Open:     func(string) (int, error) { return unix.Dup(h.w) },
		Now: func() time.Time {
			if clocks.Add(1) == 2 {
				close(blocked)
			}
			return time.Now()
		},
	})
	defer w.Close()
	// The reader must be done before cleanup closes its fd, or it could
	// read another test's pipe that reuses the number.
	drained := make(chan struct{})
	go func() { <-blocked; h.drain(); close(drained) }()
	err := w.WriteReport(context.Background(), hid.KindConsumer, []byte{0x23, 0x02})
	<-drained
	if err != nil {
		t.Fatalf("WriteReport with a host that reads late: %v", err)
	}
}

func TestWriteReportContextCancelled(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	h.fill(t)
	w := NewWriter(WriterOptions{
		Paths: map[hid.Kind]string{hid.KindKeyboard: "hidg0"}, Deadline: 10 * time.Second,
		Open: func(string) (int, error) { return unix.Dup(h.w) },
	})
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	err := w.WriteReport(ctx, hid.KindKeyboard, make([]byte, 8))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteReport with cancelled ctx = %v, want context.Canceled", err)
	}
}

func TestWriteReportRefusedUnlessConfigured(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	var opened atomic.Int32
	w := NewWriter(WriterOptions{
		Paths: map[hid.Kind]string{hid.KindKeyboard: "hidg0"},
		State: func() string { return "not attached" },
		Open:  func(string) (int, error) { opened.Add(1); return unix.Dup(h.w) },
	})
	defer w.Close()
	err := w.WriteReport(context.Background(), hid.KindKeyboard, make([]byte, 8))
	if !errors.Is(err, phone.ErrUnavailable) || !strings.Contains(err.Error(), `"not attached"`) {
		t.Fatalf("WriteReport while not attached = %v, want ErrUnavailable naming the state", err)
	}
	if opened.Load() != 0 || len(h.drain()) != 0 {
		t.Error("a report was written although the UDC is not configured")
	}
}

func TestWriteReportReopensOnceWhenGone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		healthy   int // opens after which the pipe has a reader
		wantErr   error
		wantOpens int32
	}{
		{"reopen works", 1, nil, 2},
		{"still gone", 99, phone.ErrInputFailed, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var (
				opens atomic.Int32
				mu    sync.Mutex
				good  = newFakeHost(t)
			)
			w := NewWriter(WriterOptions{
				Paths: map[hid.Kind]string{hid.KindKeyboard: "hidg0"},
				State: func() string { return StateConfigured }, ReconnectWait: 100 * time.Millisecond,
				Open: func(string) (int, error) {
					mu.Lock()
					defer mu.Unlock()
					if int(opens.Add(1)) > tt.healthy {
						// A pipe without a reader: EPIPE, like ESHUTDOWN on hidg.
						var p [2]int
						unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC)
						unix.Close(p[0])
						return p[1], nil
					}
					return unix.Dup(good.w)
				},
			})
			defer w.Close()
			// First write opens the healthy node; then the gadget goes.
			if err := w.WriteReport(context.Background(), hid.KindKeyboard, make([]byte, 8)); err != nil {
				t.Fatal(err)
			}
			w.mu.Lock()
			fd := w.fds[hid.KindKeyboard]
			var p [2]int
			unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC)
			unix.Close(p[0])
			unix.Dup2(p[1], fd) // the open node now fails with EPIPE
			unix.Close(p[1])
			w.mu.Unlock()
			tt.healthy++ // the reopen gets a good node in "reopen works"
			if tt.name == "still gone" {
				tt.healthy = 0
			}
			opens.Store(1)
			err := w.WriteReport(context.Background(), hid.KindKeyboard, make([]byte, 8))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("WriteReport after the gadget went = %v, want %v", err, tt.wantErr)
			}
			if got := opens.Load(); got != tt.wantOpens {
				t.Errorf("opened %d times, want %d (reopen once)", got, tt.wantOpens)
			}
		})
	}
}

func TestWriteReportUnknownFunction(t *testing.T) {
	t.Parallel()
	w := NewWriter(WriterOptions{})
	err := w.WriteReport(context.Background(), hid.KindRelMouse, make([]byte, 4))
	if !errors.Is(err, phone.ErrUnsupported) {
		t.Fatalf("WriteReport for a function the profile lacks = %v, want ErrUnsupported", err)
	}
}

// BenchmarkWriteTouchPoint measures encoding one touch report and writing
// it to a pipe (the cost per point of a swipe, host side excluded).
func BenchmarkWriteTouchPoint(b *testing.B) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		b.Fatal(err)
	}
	defer unix.Close(p[0])
	w := NewWriter(WriterOptions{
		Paths: map[hid.Kind]string{hid.KindTouch: "hidg2"},
		Open:  func(string) (int, error) { return unix.Dup(p[1]) },
	})
	defer w.Close()
	buf := make([]byte, 4096)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rep := hid.Touch(hid.TouchState{Contact: true, X: hid.Scale(float64(i%100) / 100), Y: 16384})
		if err := w.WriteReport(ctx, hid.KindTouch, rep); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			unix.Read(p[0], buf)
		}
	}
}
