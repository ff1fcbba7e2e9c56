package phone

import (
	"context"
	"time"
)

// The timing table: how long every input touches, holds and waits, stated
// once for every backend. hw/input takes its defaults from here, the
// CoreDevice backend holds its buttons for these times, and the verbs
// above build their taps and swipes with them.
const (
	// TapHold is how long a tap touches (the tap the tools send: a
	// gesture of two points, TapHold apart).
	TapHold = 80 * time.Millisecond
	// PointHold is how long a gesture of a single point is held: its own
	// timeline gives it no duration, and a phone needs one to see a touch.
	PointHold = 70 * time.Millisecond
	// SwipeRate is the points per second of a swipe's movement.
	SwipeRate = 60
	// SwipeDwell is how long a swipe rests at its start before moving, so
	// the phone sees a touch and not a flick from nowhere.
	SwipeDwell = 50 * time.Millisecond
	// PointerSettle is the wait between moving a mouse pointer (iOS
	// AssistiveTouch) and pressing it, while the animated cursor catches
	// up.
	PointerSettle = 80 * time.Millisecond
	// KeyHold is how long a key without modifiers is held.
	KeyHold = 50 * time.Millisecond
	// ChordHold is how long a key with modifiers is held.
	ChordHold = 120 * time.Millisecond
	// ButtonHold is how long a hardware or system button is held.
	ButtonHold = 100 * time.Millisecond
	// LockHold is how long the side (lock) button is held where the phone
	// takes a shorter press as nothing (an iPhone over CoreDevice).
	LockHold = 500 * time.Millisecond
	// Releases is how many times a release is sent, ReleaseGap apart, so
	// one lost report cannot leave a key or a finger down.
	Releases   = 3
	ReleaseGap = 15 * time.Millisecond
	// DefaultStepDelay is a real phone's [Info.StepDelay].
	DefaultStepDelay = 400 * time.Millisecond
)

// Sleep waits for d on the real clock (a timer, which testing/synctest
// fakes), or until ctx ends; it returns ctx.Err(). It is the wait of
// every backend that is not given another.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
