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

// realClock is the wall clock with its monotonic reading.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
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
