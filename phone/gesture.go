package phone

import (
	"context"
	"slices"
	"time"
)

// Contact is how one backend encodes a single contact: each method sends
// one contact sample (a HID report, a remote HID message) and returns
// when the phone has taken it. A [Player] calls them on a gesture's
// timeline.
type Contact interface {
	// Down makes contact at p (a mouse moves there, settles and presses).
	Down(ctx context.Context, p Point) error
	// Move moves the contact to p; wrote is false when nothing was sent
	// because p is where the contact already is.
	Move(ctx context.Context, p Point) (wrote bool, err error)
	// Up lifts the contact at p, the gesture's last point.
	Up(ctx context.Context, p Point) error
}

// Player turns a [Gesture] (a tap, a long press, a swipe, a drag path)
// into timed contact samples. It is the one gesture timeline of every
// backend. The zero Player plays on the real clock.
type Player struct {
	// Now reads the clock the timeline is measured on; nil means
	// time.Now. It must be monotonic (time.Now's readings are).
	Now func() time.Time
	// Sleep waits on that clock; nil means [Sleep].
	Sleep func(ctx context.Context, d time.Duration) error
	// Hold is how long a gesture of a single point is held; 0 means
	// [PointHold]. Gestures of two or more points follow their own times.
	Hold time.Duration
}

// Play performs g through c: contact at the first point, movement through
// the rest on g's timeline (measured from the contact), release at the
// last point. When c falls behind, a movement point whose successor is
// already due is skipped (counted in Report.Skipped) instead of being
// sent late; the first and last points are never skipped.
// Report.MedianInterval and MaxGap are measured between the movement
// samples sent after the contact. Report.Reports and Took are the
// backend's to fill; the others are filled on an error too. Play does not
// lift a contact it leaves down on an error: the backend knows how to
// release what it holds.
func (pl Player) Play(ctx context.Context, g Gesture, c Contact) (rep Report, _ error) {
	var moves []time.Time
	defer func() { rep.MedianInterval, rep.MaxGap = cadence(moves) }()
	now, sleep := pl.Now, pl.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = Sleep
	}
	steps := g.Steps
	if err := c.Down(ctx, steps[0].Point); err != nil {
		return rep, err
	}
	t0 := now()
	last := len(steps) - 1
	if last == 0 {
		hold := pl.Hold
		if hold <= 0 {
			hold = PointHold
		}
		if err := sleep(ctx, hold); err != nil {
			return rep, err
		}
		return rep, c.Up(ctx, steps[0].Point)
	}
	for i := 1; i <= last; i++ {
		if i < last && !now().Before(t0.Add(steps[i+1].At)) {
			rep.Skipped++
			continue
		}
		if err := sleep(ctx, t0.Add(steps[i].At).Sub(now())); err != nil {
			return rep, err
		}
		wrote, err := c.Move(ctx, steps[i].Point)
		if err != nil {
			return rep, err
		}
		if wrote {
			moves = append(moves, now())
		}
	}
	return rep, c.Up(ctx, steps[last].Point)
}

// cadence is the median and the largest gap between consecutive times.
func cadence(ts []time.Time) (median, maxGap time.Duration) {
	if len(ts) < 2 {
		return 0, 0
	}
	gaps := make([]time.Duration, len(ts)-1)
	for i := range gaps {
		gaps[i] = ts[i+1].Sub(ts[i])
	}
	slices.Sort(gaps)
	n := len(gaps)
	median = gaps[n/2]
	if n%2 == 0 {
		median = (gaps[n/2-1] + gaps[n/2]) / 2
	}
	return median, gaps[n-1]
}
