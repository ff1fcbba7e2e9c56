package input

import (
	"context"
	"fmt"
	"math"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// pointer is how one profile puts a contact down, moves it and lifts it.
type pointer interface {
	// down makes contact at p (for mice: move there, settle, press).
	down(ctx context.Context, o *op, p phone.Point) error
	// move moves the contact to p; wrote is false when p maps to where
	// the contact already is.
	move(ctx context.Context, o *op, p phone.Point) (wrote bool, err error)
	// up lifts the contact (release reports, repeated).
	up(ctx context.Context, o *op) error
}

// contact is one input's pointer as the gesture player drives it.
type contact struct {
	p pointer
	o *op
}

func (c contact) Down(ctx context.Context, p phone.Point) error { return c.p.down(ctx, c.o, p) }
func (c contact) Move(ctx context.Context, p phone.Point) (bool, error) {
	return c.p.move(ctx, c.o, p)
}
func (c contact) Up(ctx context.Context, _ phone.Point) error { return c.p.up(ctx, c.o) }

// Touch performs g with phone.Player on the driver's clock: contact at
// its first point, movement through the rest on g's timeline, release
// after the last point. A gesture of one point is held Timing.TapHold.
// When the writer falls behind, stale movement points are skipped
// (Report.Skipped) rather than sent in a burst; Report.MedianInterval and
// MaxGap are measured between the movement reports written after the
// contact.
func (d *Driver) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	if err := g.Validate(); err != nil {
		return phone.Report{}, fmt.Errorf("input: touch: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.begin("touch")
	var p pointer
	switch d.profile {
	case Android:
		p = touchscreen{d}
	case IOSRelative:
		p = &relPointer{d: d}
	default:
		p = absPointer{d}
	}
	played, err := phone.Player{Now: d.now, Sleep: d.sleep, Hold: d.t.TapHold}.Play(ctx, g, contact{p, o})
	rep := d.report(o)
	rep.Skipped, rep.MedianInterval, rep.MaxGap = played.Skipped, played.MedianInterval, played.MaxGap
	if err != nil {
		return rep, d.fail(ctx, o, err)
	}
	return rep, nil
}

// touchscreen is the Android digitizer: contact 0 down, moved, lifted.
type touchscreen struct{ d *Driver }

func (t touchscreen) down(ctx context.Context, o *op, p phone.Point) error {
	x, y := hid.Scale(p.X), hid.Scale(p.Y)
	if err := t.d.write(ctx, o, hid.KindTouch, hid.Touch(hid.TouchState{Contact: true, X: x, Y: y}), true); err != nil {
		return err
	}
	t.d.x, t.d.y = x, y
	return nil
}

func (t touchscreen) move(ctx context.Context, o *op, p phone.Point) (bool, error) {
	x, y := hid.Scale(p.X), hid.Scale(p.Y)
	if x == t.d.x && y == t.d.y {
		return false, nil
	}
	if err := t.d.write(ctx, o, hid.KindTouch, hid.Touch(hid.TouchState{Contact: true, X: x, Y: y}), true); err != nil {
		return false, err
	}
	t.d.x, t.d.y = x, y
	return true, nil
}

func (t touchscreen) up(ctx context.Context, o *op) error {
	return t.d.releaseKind(ctx, o, hid.KindTouch)
}

// absPointer is the iOS absolute mouse: move, settle, press the left
// button, drag, release.
type absPointer struct{ d *Driver }

func (a absPointer) down(ctx context.Context, o *op, p phone.Point) error {
	x, y := hid.Scale(p.X), hid.Scale(p.Y)
	if err := a.d.write(ctx, o, hid.KindAbsMouse, hid.AbsMouse(0, x, y, 0), false); err != nil {
		return err
	}
	a.d.x, a.d.y = x, y
	if err := a.d.sleep(ctx, a.d.t.Settle); err != nil {
		return err
	}
	return a.d.write(ctx, o, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0), true)
}

func (a absPointer) move(ctx context.Context, o *op, p phone.Point) (bool, error) {
	x, y := hid.Scale(p.X), hid.Scale(p.Y)
	if x == a.d.x && y == a.d.y {
		return false, nil
	}
	if err := a.d.write(ctx, o, hid.KindAbsMouse, hid.AbsMouse(hid.ButtonLeft, x, y, 0), true); err != nil {
		return false, err
	}
	a.d.x, a.d.y = x, y
	return true, nil
}

func (a absPointer) up(ctx context.Context, o *op) error {
	return a.d.releaseKind(ctx, o, hid.KindAbsMouse)
}

// homingMargin is how far past the calibrated screen size homing pushes
// the pointer, so it reaches the corner from anywhere even when the
// calibration is short.
const homingMargin = 1.5

// relPointer is the iOS relative mouse: home in the top-left corner, then
// move by counts (Calibration) to each point, the left button held while
// in contact. cx, cy are the counts from the corner.
type relPointer struct {
	d      *Driver
	cx, cy int
}

// homeReports is the number of (-127, -127) reports that home the pointer.
func (r *relPointer) homeReports() int {
	return int(math.Ceil(max(r.d.cal.X, r.d.cal.Y) * homingMargin / hid.MaxRel))
}

func (r *relPointer) target(p phone.Point) (int, int) {
	return int(math.Round(p.X * r.d.cal.X)), int(math.Round(p.Y * r.d.cal.Y))
}

// moveTo moves by whole reports of at most MaxRel counts per axis.
func (r *relPointer) moveTo(ctx context.Context, o *op, tx, ty int, b hid.MouseButtons) (bool, error) {
	wrote := false
	for tx != r.cx || ty != r.cy {
		dx := max(-hid.MaxRel, min(hid.MaxRel, tx-r.cx))
		dy := max(-hid.MaxRel, min(hid.MaxRel, ty-r.cy))
		if err := r.d.write(ctx, o, hid.KindRelMouse, hid.RelMouse(b, int8(dx), int8(dy), 0), b != 0); err != nil {
			return wrote, err
		}
		r.cx += dx
		r.cy += dy
		wrote = true
	}
	return wrote, nil
}

func (r *relPointer) down(ctx context.Context, o *op, p phone.Point) error {
	for range r.homeReports() {
		if err := r.d.write(ctx, o, hid.KindRelMouse, hid.RelMouse(0, -hid.MaxRel, -hid.MaxRel, 0), false); err != nil {
			return err
		}
	}
	r.cx, r.cy = 0, 0
	tx, ty := r.target(p)
	if _, err := r.moveTo(ctx, o, tx, ty, 0); err != nil {
		return err
	}
	if err := r.d.sleep(ctx, r.d.t.Settle); err != nil {
		return err
	}
	return r.d.write(ctx, o, hid.KindRelMouse, hid.RelMouse(hid.ButtonLeft, 0, 0, 0), true)
}

func (r *relPointer) move(ctx context.Context, o *op, p phone.Point) (bool, error) {
	tx, ty := r.target(p)
	return r.moveTo(ctx, o, tx, ty, hid.ButtonLeft)
}

func (r *relPointer) up(ctx context.Context, o *op) error {
	return r.d.releaseKind(ctx, o, hid.KindRelMouse)
}
