package sim

import (
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/input"
)

// FixedClock returns a clock that always says t. A phone on it paces no
// input (see Options.Sleep): inputs take no time, every contact counts as
// short, and frames are byte-identical for the same inputs.
func FixedClock(t time.Time) func() time.Time {
	return func() time.Time { return t }
}

// newDriver returns the hw/input driver that writes to p's host. For the
// relative mouse it is calibrated to the host's pointer speed, as a person
// would calibrate it on a phone.
func newDriver(p *Phone, opts Options) (*input.Driver, error) {
	l := p.ui.lay
	rel := p.relScale()
	d, err := input.New(input.Options{
		Writer:      p,
		Profile:     opts.Profile,
		Now:         p.now,
		Sleep:       opts.Sleep,
		Calibration: input.Calibration{X: float64(l.size.X) / rel, Y: float64(l.size.Y) / rel},
		Logger:      opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	return d, nil
}
