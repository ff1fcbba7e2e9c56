package control

import (
	"context"
	"errors"
	"github.com/openlolo/openlolo/api"
	"time"

	"github.com/openlolo/openlolo/phone"
)

// Error is the error object of a failed answer.
type Error = api.Error

// PhoneError maps an error a phone backend returned to an answer error;
// the backend's own next steps ([phone.StepError]) come first.
func PhoneError(err error) *Error {
	e := phoneError(err)
	if steps := phone.NextSteps(err); len(steps) > 0 {
		c := *e
		c.NextSteps = append(append([]string{}, steps...), e.NextSteps...)
		return &c
	}
	return e
}

func phoneError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, phone.ErrUnavailable):
		return api.Errorf(api.CodePhoneUnavailable, "%v", err)
	case errors.Is(err, phone.ErrCaptureFailed):
		return api.Errorf(api.CodeCaptureFailed, "%v", err)
	case errors.Is(err, phone.ErrInputFailed):
		return api.Errorf(api.CodeInputFailed, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedText):
		return api.Errorf(api.CodeUnsupportedText, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedKey):
		return api.Errorf(api.CodeUnsupportedKey, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedButton):
		return api.Errorf(api.CodeUnsupportedButton, "%v", err)
	case errors.Is(err, phone.ErrUnsupported):
		return api.Errorf(api.CodeUnsupported, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return api.Errorf(api.CodeOutcomeUnknown, "the input was interrupted: %v", err)
	}
	return api.Errorf(api.CodeInternal, "%v", err)
}

// notDispatched reports whether a phone error means nothing reached the
// phone (the backend refused before sending).
func notDispatched(err error) bool {
	for _, e := range []error{phone.ErrUnsupported, phone.ErrUnsupportedText, phone.ErrUnsupportedKey,
		phone.ErrUnsupportedButton, phone.ErrUnavailable} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ce *Error
	return errors.As(err, &ce) && ce.Code != api.CodeOutcomeUnknown && ce.Code != api.CodeInputFailed
}

// rateLimited is the error for a call refused by the rate window.
func rateLimited(wait time.Duration) *Error {
	e := api.Errorf(api.CodeRateLimited, "this client made too many calls in the last minute; the call did not run")
	e.RetryAfterMS = max(1, wait.Milliseconds())
	return e
}
