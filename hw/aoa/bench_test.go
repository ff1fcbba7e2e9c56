package aoa_test

import (
	"context"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/phone"
)

// noWait skips every hold and gap, so the benchmark measures the work of
// a tap (encoding, transfers, the fake's decoding), not its timeline.
func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// BenchmarkTap is one tap over AOA against the fake phone: ns per tap and
// the control transfers it takes (contact, then the repeated releases).
func BenchmarkTap(b *testing.B) {
	p := &aoatest.Phone{}
	in, err := aoa.Open(b.Context(), aoa.Options{Controller: p, Sleep: noWait, Settle: -1})
	if err != nil {
		b.Fatal(err)
	}
	g := phone.Tap(phone.Point{X: 0.4, Y: 0.6}, phone.TapHold)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Touch(b.Context(), g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(in.Transfers())/float64(b.N), "transfers/tap")
}
