package gadget

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// BenchmarkSwipePacing runs a 1 s swipe at 60 points/s through hw/input
// and the gadget writer into a pipe that a goroutine drains (a host that
// polls), and reports the achieved cadence on the monotonic clock:
// median interval and largest gap between movement reports (ideal
// 16.7 ms), and points skipped for lateness.
func BenchmarkSwipePacing(b *testing.B) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		pfd := []unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}}
		for {
			unix.Poll(pfd, 100)
			if _, err := unix.Read(p[0], buf); err != nil && err != unix.EAGAIN && err != unix.EINTR {
				return
			}
			if pfd[0].Revents&unix.POLLHUP != 0 {
				return
			}
		}
	}()
	w := NewWriter(WriterOptions{
		Paths: map[hid.Kind]string{hid.KindKeyboard: "k", hid.KindConsumer: "c", hid.KindTouch: "t"},
		Open:  func(string) (int, error) { return unix.Dup(p[1]) },
	})
	d, err := input.New(input.Options{Writer: w, Profile: input.Android})
	if err != nil {
		b.Fatal(err)
	}
	g := phone.Swipe(phone.Point{X: 0.5, Y: 0.8}, phone.Point{X: 0.5, Y: 0.2}, 0, time.Second, 0, 60)
	var med, gap time.Duration
	var skipped int
	n := 0
	for b.Loop() {
		r, err := d.Touch(context.Background(), g)
		if err != nil {
			b.Fatal(err)
		}
		med += r.MedianInterval
		gap = max(gap, r.MaxGap)
		skipped += r.Skipped
		n++
	}
	b.ReportMetric(float64(med.Microseconds())/float64(n)/1000, "median-ms")
	b.ReportMetric(float64(gap.Microseconds())/1000, "maxgap-ms")
	b.ReportMetric(float64(skipped)/float64(n), "skipped/op")
	w.Close()
	unix.Close(p[1])
	<-done
	unix.Close(p[0])
}
