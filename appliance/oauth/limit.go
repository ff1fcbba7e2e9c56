package oauth

import (
	"sync"
	"time"
)

// window is a sliding-window rate limit: at most n events per period.
type window struct {
	n      int
	period time.Duration

	mu     sync.Mutex
	events []time.Time
}

func newWindow(n int, period time.Duration) *window { return &window{n: n, period: period} }

// allow records an event at now and reports whether it is within the limit.
// When it is not, wait says how long until the oldest event leaves the
// window.
func (w *window) allow(now time.Time) (ok bool, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cut := now.Add(-w.period)
	i := 0
	for i < len(w.events) && !w.events[i].After(cut) {
		i++
	}
	w.events = w.events[i:]
	if len(w.events) >= w.n {
		return false, w.events[0].Sub(cut)
	}
	w.events = append(w.events, now)
	return true, 0
}
