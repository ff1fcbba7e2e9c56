package phone_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/phone"
)

// samples is a Contact that records each sample with its time since
// start; each Move first calls lag, when set (a slow phone: the test's
// bubble sleeps in it), and the sample numbered failAt (1-based; 0 =
// never) fails.
type samples struct {
	start  time.Time
	got    []string
	lag    func()
	failAt int
}

var errUnplugged = errors.New("unplugged")

func (s *samples) add(what string, p phone.Point) error {
	s.got = append(s.got, fmt.Sprintf("%s %.2f,%.2f @%v", what, p.X, p.Y, time.Since(s.start)))
	if len(s.got) == s.failAt {
		return errUnplugged
	}
	return nil
}

func (s *samples) Down(_ context.Context, p phone.Point) error { return s.add("down", p) }
func (s *samples) Up(_ context.Context, p phone.Point) error   { return s.add("up", p) }
func (s *samples) Move(_ context.Context, p phone.Point) (bool, error) {
	if s.lag != nil {
		s.lag()
	}
	return true, s.add("move", p)
}

func TestPlayer(t *testing.T) {
	a, b := phone.Point{X: 0.5, Y: 0.8}, phone.Point{X: 0.5, Y: 0.2}
	tests := []struct {
		name    string
		player  phone.Player
		g       phone.Gesture
		lag     time.Duration
		want    []string
		skipped int
		median  time.Duration
	}{
		{"tap", phone.Player{}, phone.Tap(a, phone.TapHold), 0,
			[]string{"down 0.50,0.80 @0s", "move 0.50,0.80 @80ms", "up 0.50,0.80 @80ms"}, 0, 0},
		{"single point holds PointHold", phone.Player{}, phone.Gesture{Steps: []phone.Step{{Point: a}}}, 0,
			[]string{"down 0.50,0.80 @0s", "up 0.50,0.80 @70ms"}, 0, 0},
		{"single point holds Hold", phone.Player{Hold: time.Second}, phone.Gesture{Steps: []phone.Step{{Point: a}}}, 0,
			[]string{"down 0.50,0.80 @0s", "up 0.50,0.80 @1s"}, 0, 0},
		{"long press", phone.Player{}, phone.Tap(a, 2*time.Second), 0,
			[]string{"down 0.50,0.80 @0s", "move 0.50,0.80 @2s", "up 0.50,0.80 @2s"}, 0, 0},
		{"swipe", phone.Player{}, phone.Swipe(a, b, 0, 50*time.Millisecond, 0, 60), 0,
			[]string{"down 0.50,0.80 @0s", "move 0.50,0.60 @16.666666ms", "move 0.50,0.40 @33.333333ms", "move 0.50,0.20 @50ms", "up 0.50,0.20 @50ms"}, 0, 16666667},
		// A phone that takes 40 ms per sample cannot keep 60 a second:
		// a point whose successor is already due is skipped (the 2nd and
		// the 4th of 6), the last never is.
		{"late contact skips", phone.Player{}, phone.Swipe(a, b, 0, 100*time.Millisecond, 0, 60), 40 * time.Millisecond,
			[]string{"down 0.50,0.80 @0s", "move 0.50,0.70 @56.666666ms", "move 0.50,0.50 @96.666666ms", "move 0.50,0.30 @136.666666ms", "move 0.50,0.20 @176.666666ms", "up 0.50,0.20 @176.666666ms"}, 2, 40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &samples{start: time.Now(), lag: func() { time.Sleep(tt.lag) }}
				rep, err := tt.player.Play(t.Context(), tt.g, c)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(c.got, tt.want) {
					t.Errorf("samples\n%q\nwant\n%q", c.got, tt.want)
				}
				if rep.Skipped != tt.skipped || rep.MedianInterval != tt.median {
					t.Errorf("report %+v, want %d skipped, median %v", rep, tt.skipped, tt.median)
				}
			})
		})
	}
}

// TestPlayerInjectedClock: a player on an injected clock waits on it,
// not on the real one.
func TestPlayerInjectedClock(t *testing.T) {
	now := time.Unix(0, 0)
	var slept []time.Duration
	pl := phone.Player{
		Now:   func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); now = now.Add(d); return nil },
	}
	if _, err := pl.Play(t.Context(), phone.Tap(phone.Point{}, time.Hour), &samples{start: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slept, []time.Duration{time.Hour}) {
		t.Errorf("slept %v, want one hour on the injected clock", slept)
	}
}

func TestPlayerFailures(t *testing.T) {
	g := phone.Swipe(phone.Point{}, phone.Point{X: 1, Y: 1}, 0, 100*time.Millisecond, 0, 60)
	for _, failAt := range []int{1, 3, 8} { // down, a move, up
		synctest.Test(t, func(t *testing.T) {
			c := &samples{start: time.Now(), failAt: failAt}
			if _, err := (phone.Player{}).Play(t.Context(), g, c); !errors.Is(err, errUnplugged) || len(c.got) != failAt {
				t.Errorf("sample %d fails: Play = %v after %q, want the error at once", failAt, err, c.got)
			}
		})
	}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(30*time.Millisecond, cancel)
		c := &samples{start: time.Now()}
		if _, err := (phone.Player{}).Play(ctx, g, c); !errors.Is(err, context.Canceled) || len(c.got) != 2 {
			t.Errorf("cancelled at 30 ms: Play = %v after %q, want context.Canceled after the first move", err, c.got)
		}
	})
}
