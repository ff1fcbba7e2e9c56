package phone

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrSkip marks a self-test step that could not run (an earlier step
// failed, or the box lacks the part); [SelfTestReport.Done] prints it as
// skipped with the reason.
var ErrSkip = errors.New("skipped")

// SelfTestReport writes the lines of a backend's self-test (`openlolo
// selftest --phone NAME`), a report a person pastes into an issue: one
// line per step, ok, FAIL or skip, with what to look for on the phone.
// Every backend's self-test prints its steps through it.
type SelfTestReport struct {
	W   io.Writer
	Now func() time.Time // nil: time.Now
	// Width is the step names' column width (0: 12).
	Width int

	Passed, Failed, Skipped int
}

func (s *SelfTestReport) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// width is the step names' column width.
func (s *SelfTestReport) width() int {
	if s.Width == 0 {
		return 12
	}
	return s.Width
}

// Start is the time a step starts, for Done.
func (s *SelfTestReport) Start() time.Time { return s.now() }

// Done prints step name's outcome: ok with detail and the time since
// start, skip (err wraps [ErrSkip]) with detail, or FAIL with err. It
// reports whether the step passed.
func (s *SelfTestReport) Done(name string, start time.Time, err error, detail string) bool {
	width := s.width()
	switch {
	case err == nil:
		s.Passed++
		fmt.Fprintf(s.W, "ok      %-*s %s (%v)\n", width, name, detail, s.now().Sub(start).Round(10*time.Millisecond))
	case errors.Is(err, ErrSkip):
		s.Skipped++
		fmt.Fprintf(s.W, "skip    %-*s %s\n", width, name, detail)
	default:
		s.Failed++
		fmt.Fprintf(s.W, "FAIL    %-*s %v\n", width, name, err)
	}
	return err == nil
}

// Skip prints each named step as skipped for why.
func (s *SelfTestReport) Skip(why string, names ...string) {
	for _, n := range names {
		s.Done(n, s.now(), ErrSkip, why)
	}
}

// Wait prints that step name waits for the person to act.
func (s *SelfTestReport) Wait(name, what string) {
	fmt.Fprintf(s.W, "...     %-*s %s\n", s.width(), name, what)
}

// Look prints what the person should see on the phone or the box.
func (s *SelfTestReport) Look(what string) { fmt.Fprintf(s.W, "        look for:    %s\n", what) }

// Result prints the closing tally and returns how many steps failed.
func (s *SelfTestReport) Result() int {
	fmt.Fprintf(s.W, "result: %d ok, %d failed, %d skipped\n", s.Passed, s.Failed, s.Skipped)
	return s.Failed
}
