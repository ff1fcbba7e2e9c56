package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/input"
)

// FixedClock is an input.Clock that always says t and never waits: inputs
// take no time, every contact counts as short, and frames are
// byte-identical for the same inputs.
type FixedClock time.Time

// Now returns the fixed time.
func (c FixedClock) Now() time.Time { return time.Time(c) }

// Sleep returns at once (with ctx's error, if it has ended).
func (c FixedClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// newDriver returns the hw/input driver that writes to p's host. For the
// relative mouse it is calibrated to the host's pointer speed, as a person
// would calibrate it on a phone.
func newDriver(p *Phone, opts Options, clock input.Clock) (*input.Driver, error) {
	l := p.ui.lay
	rel := p.relScale()
	d, err := input.New(input.Options{
		Writer:      p,
		Profile:     opts.Profile,
		Clock:       clock,
		Calibration: input.Calibration{X: float64(l.size.X) / rel, Y: float64(l.size.Y) / rel},
		Logger:      opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	return d, nil
}
