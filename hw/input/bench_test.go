package input

import (
	"context"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// pipeWriter writes reports to a pipe, the way the gadget writes
// /dev/hidgN; a goroutine drains the other end like a polling host.
type pipeWriter struct{ w *os.File }

func (p pipeWriter) WriteReport(_ context.Context, _ hid.Kind, r []byte) error {
	_, err := p.w.Write(r)
	return err
}

func newPipe(b *testing.B) pipeWriter {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	b.Cleanup(func() { w.Close(); r.Close() })
	return pipeWriter{w}
}

// BenchmarkTouchPoint is the cost of one touch point: encode the report
// and write it to a pipe.
func BenchmarkTouchPoint(b *testing.B) {
	p := newPipe(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		r := hid.Touch(hid.TouchState{Contact: true, X: uint16(i % hid.MaxCoord), Y: uint16((i * 7) % hid.MaxCoord)})
		if err := p.WriteReport(context.Background(), hid.KindTouch, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGesturePacing runs a 1 s swipe at 60 points/s on the real clock
// through a pipe and reports the median interval and the worst gap between
// movement reports (ideal: 16.67 ms both) and the points skipped.
func BenchmarkGesturePacing(b *testing.B) {
	d, err := New(Options{Writer: newPipe(b), Profile: Android})
	if err != nil {
		b.Fatal(err)
	}
	g := phone.Swipe(phone.Point{X: 0.5, Y: 0.9}, phone.Point{X: 0.5, Y: 0.1}, 0, time.Second, 0, 60)
	var medians []time.Duration
	var maxGap time.Duration
	skipped := 0
	for b.Loop() {
		rep, err := d.Touch(context.Background(), g)
		if err != nil {
			b.Fatal(err)
		}
		medians = append(medians, rep.MedianInterval)
		maxGap = max(maxGap, rep.MaxGap)
		skipped += rep.Skipped
	}
	slices.Sort(medians)
	b.ReportMetric(ms(medians[len(medians)/2]), "median-ms")
	b.ReportMetric(ms(maxGap), "maxgap-ms")
	b.ReportMetric(float64(skipped)/float64(len(medians)), "skipped/op")
}

// BenchmarkGesturePacingNaive is the baseline: the same 60 points written
// with a plain time.Sleep(1/60 s) between them, so errors accumulate
// instead of being scheduled against the start.
func BenchmarkGesturePacingNaive(b *testing.B) {
	p := newPipe(b)
	const n = 60
	step := time.Second / n
	var medians []time.Duration
	var maxGap, overrun time.Duration
	for b.Loop() {
		start := time.Now()
		last := start
		gaps := make([]time.Duration, 0, n)
		for i := range n {
			time.Sleep(step) // real wait: the baseline measures the real clock's drift
			y := hid.Scale(0.9 - 0.8*float64(i+1)/n)
			if err := p.WriteReport(context.Background(), hid.KindTouch, hid.Touch(hid.TouchState{Contact: true, X: hid.Scale(0.5), Y: y})); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			if i > 0 {
				gaps = append(gaps, now.Sub(last))
			}
			last = now
		}
		overrun = max(overrun, time.Since(start)-time.Second)
		slices.Sort(gaps)
		medians = append(medians, gaps[len(gaps)/2])
		maxGap = max(maxGap, gaps[len(gaps)-1])
	}
	slices.Sort(medians)
	b.ReportMetric(ms(medians[len(medians)/2]), "median-ms")
	b.ReportMetric(ms(maxGap), "maxgap-ms")
	b.ReportMetric(ms(overrun), "overrun-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
