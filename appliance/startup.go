package appliance

import (
	"log/slog"
	"time"
)

// startupSteps logs, at debug level (serve with OPENLOLO_LOG=debug), how
// long each of the box's start-up steps took and the time since the
// first, so a slow start is traced to its step.
type startupSteps struct {
	log         *slog.Logger
	now         func() time.Time
	start, last time.Time
}

func newStartupSteps(log *slog.Logger, now func() time.Time) *startupSteps {
	if now == nil {
		now = time.Now
	}
	t := now()
	return &startupSteps{log: log, now: now, start: t, last: t}
}

// done logs the step that just ended.
func (s *startupSteps) done(step string) {
	t := s.now()
	s.log.Debug("start-up step done", "step", step, "took", t.Sub(s.last), "since_start", t.Sub(s.start))
	s.last = t
}
