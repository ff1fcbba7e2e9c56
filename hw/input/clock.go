package input

import (
	"context"
	"time"
)

// Clock is the time source gestures are paced on. Now must be monotonic
// (time.Now's readings are).
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends, then returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock with its monotonic reading: the default
// Clock of a Driver, and what backends that pace anything else use too.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
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
