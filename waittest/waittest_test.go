package waittest_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/waittest"
)

func TestUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !waittest.Until(time.Second, 10*time.Millisecond, func() bool { return time.Since(start) >= 50*time.Millisecond }) {
			t.Error("Until gave up on a condition that holds after 50 ms of 1 s")
		}
		if took := time.Since(start); took != 50*time.Millisecond {
			t.Errorf("Until returned after %v, want at the first tick the condition held (50ms)", took)
		}
		start = time.Now()
		if waittest.Until(time.Second, 10*time.Millisecond, func() bool { return false }) {
			t.Error("Until reported a condition that never holds")
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("Until gave up after %v, want the limit (1s)", took)
		}
	})
}
