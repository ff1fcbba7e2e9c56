package control

import "time"

// window is one client's sliding minute of call times, oldest first.
type window struct {
	times []time.Time
}

const rateSpan = time.Minute

// prune drops calls older than a minute before now.
func (w *window) prune(now time.Time) {
	i := 0
	for i < len(w.times) && !w.times[i].After(now.Add(-rateSpan)) {
		i++
	}
	w.times = w.times[i:]
}

// Allow counts one tool call by c against the rate window. It returns the
// calls left in the window after this one, or RATE_LIMITED (the call must
// not run) with how long until a call is allowed again.
func (s *Service) Allow(c Client) (left int, _ *Error) {
	if s.lim.CallsPerMinute < 0 {
		return -1, nil
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.windows[c.ID]
	if w == nil {
		w = &window{}
		s.windows[c.ID] = w
	}
	w.prune(now)
	if len(w.times) >= s.lim.CallsPerMinute {
		return 0, rateLimited(w.times[0].Add(rateSpan).Sub(now))
	}
	w.times = append(w.times, now)
	return s.lim.CallsPerMinute - len(w.times), nil
}

// CallsLeft is how many calls c may still make in the current window
// (-1 when there is no limit).
func (s *Service) CallsLeft(c Client) int {
	if s.lim.CallsPerMinute < 0 {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.windows[c.ID]
	if w == nil {
		return s.lim.CallsPerMinute
	}
	w.prune(s.now())
	return s.lim.CallsPerMinute - len(w.times)
}
