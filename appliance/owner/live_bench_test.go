//go:build unix

package owner_test

import (
	"context"
	"flag"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

var (
	liveWindow = flag.Duration("live.window", 10*time.Second, "BenchmarkLiveStream: how long each of its three measurements lasts")
	liveDrawn  = flag.Bool("live.drawn", false, "BenchmarkLiveStream: the driver has the sim draw every screen, so the stream's cost leaves the drawing out")
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLiveStream is the live stream's cost on the simulated phone at
// the default size (1179×2556 scaled to 960 high by the picture package:
// build with -tags turbojpeg for libjpeg-turbo, as the box is; picture's
// BenchmarkLiveEncode is one picture's encoding), through the real
// box page over HTTPS with one logged-in viewer, the pictures taken
// through control.Service's Screen as serve takes them. Three windows of
// -live.window each, in the same run:
//
//   - baseline: the phone's screen changes 20 times a second (a letter
//     typed in Notes each time) and nobody watches;
//   - stream: the same changes with one viewer reading the stream;
//   - still: one viewer of a screen that does not change.
//
// It reports the stream's frames/s and bytes/s and the process's CPU
// (getrusage user+system over wall time, % of one core) in each window;
// the stream's own cost is stream-cpu% minus baseline-cpu%, and
// cpu-ms/picture is that per picture sent, the sim's drawing of each
// picture included (on the box: a capture device's decoding). With
// -live.drawn the driver takes a screenshot after each change, so the
// sim draws every screen in both windows and cpu-ms/picture is the
// stream's own cost (scaling, encoding, sending); draw-ms/screen is then
// the sim's drawing of one screen. Run it with
//
//	go test -tags turbojpeg -run '^$' -bench LiveStream -benchtime 1x ./appliance/owner/
func BenchmarkLiveStream(b *testing.B) {
	ph, err := sim.New(sim.Options{Clock: sim.FixedClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	if err != nil {
		b.Fatal(err)
	}
	defer ph.Close()
	ctx := context.Background()
	// The pictures come through control's Screen, as serve wires it.
	st, err := store.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := control.New(ctx, control.Config{Store: st, Phone: ph})
	if err != nil {
		b.Fatal(err)
	}
	bx, c := claimedBox(b, boxOpts{phone: ph, screen: svc})
	at, _ := ph.IconCenter("Notes")
	if _, err := ph.Touch(ctx, phone.Tap(at, phone.TapHold)); err != nil {
		b.Fatal(err)
	}

	// drive changes the screen 20 times a second until ctx ends.
	drive := func(ctx context.Context) {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			// Each step types one more letter, so no two screens are
			// alike: typing and deleting a letter made the screen
			// alternate between two pictures, and a 10 fps capture
			// sampling a 20 Hz toggle often saw the picture it had sent
			// last (an unchanged picture is not sent), which measured
			// the aliasing rather than the stream.
			ph.Type(ctx, string(rune('a'+i%26)))
			if *liveDrawn {
				ph.Screenshot(ctx)
			}
		}
	}
	// window runs for *liveWindow, driving the phone and/or reading
	// the stream, and returns frames, bytes and CPU per second.
	window := func(driving, watching bool) (fps, bps, cpu float64) {
		ctx, cancel := context.WithTimeout(ctx, *liveWindow)
		defer cancel()
		done := make(chan struct{}, 2)
		if driving {
			go func() { drive(ctx); done <- struct{}{} }()
		} else {
			done <- struct{}{}
		}
		var frames, bytes int64
		start, cpu0 := time.Now(), cpuTime(b)
		if watching {
			res, mr := openStream(b, ctx, c, bx.url)
			if mr == nil {
				b.Fatalf("stream: %d", res.StatusCode)
			}
			go func() {
				defer func() { done <- struct{}{} }()
				for {
					p, err := mr.NextPart()
					if err != nil {
						return
					}
					n, err := io.Copy(io.Discard, p)
					if err != nil {
						return
					}
					frames++
					bytes += n
				}
			}()
		} else {
			done <- struct{}{}
		}
		<-done
		<-done
		wall := time.Since(start).Seconds()
		return float64(frames) / wall, float64(bytes) / wall, 100 * (cpuTime(b) - cpu0).Seconds() / wall
	}
	for b.Loop() {
		_, _, base := window(true, false)
		fps, bps, cpu := window(true, true)
		sfps, _, scpu := window(false, true)
		b.ReportMetric(fps, "frames/s")
		b.ReportMetric(bps, "bytes/s")
		b.ReportMetric(cpu, "stream-cpu%")
		b.ReportMetric(base, "baseline-cpu%")
		if *liveDrawn {
			b.ReportMetric(10*base/20, "draw-ms/screen") // 20 screens a second, with a letter's typing
		}
		if fps > 0 {
			// The stream's CPU per picture sent, above the baseline: less
			// sensitive to a busy machine than frames/s.
			b.ReportMetric(10*(cpu-base)/fps, "cpu-ms/picture")
		}
		b.ReportMetric(sfps, "still-frames/s")
		b.ReportMetric(scpu, "still-cpu%")
	}
}
