package control

import "github.com/openlolo/openlolo/api"

// Answer is a tool's answer (docs/wire.md, Answers): the outcome every answer carries and, when
// the status is ok, the tool's typed result.
type Answer[R any] = api.Answer[R]

// Reply is what a verb returns: its answer and, for a screenshot or an
// input's observation, the picture taken (the caller encodes it into the
// answer: it fills the result's frame, or the observation).
type Reply[R any] struct {
	Answer[R]
	// Shot is the screenshot taken; nil when none was.
	Shot *Shot
	// Pages are openlolo_full_page's pictures (nil for other tools and
	// for a replayed answer).
	Pages *Pages
	// ShotError says why an input's observation was not taken (the
	// input itself succeeded).
	ShotError *Error
}

// OK is a successful read answer with result r.
func OK[R any](r *R) Answer[R] {
	return Answer[R]{Outcome: api.Outcome{Status: api.StatusOK}, Result: r}
}

// Fail is a failed read answer.
func Fail[R any](e *Error) Answer[R] {
	return Answer[R]{Outcome: api.Outcome{Status: api.StatusFailed, Error: e}}
}

// Refuse is a mutating call refused before it became an operation:
// nothing reached the phone.
func Refuse[R any](e *Error) Answer[R] {
	a := Fail[R](e)
	a.Dispatched = boolp(false)
	return a
}

func reply[R any](a Answer[R]) Reply[R] { return Reply[R]{Answer: a} }

func boolp(b bool) *bool { return &b }
