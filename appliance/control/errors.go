package control

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/phone"
)

// Stable error codes (DESIGN §3.4). Extend, never rename.
const (
	CodeInvalidArguments  = "INVALID_ARGUMENTS"
	CodeScopeRequired     = "SCOPE_REQUIRED"
	CodeRateLimited       = "RATE_LIMITED"
	CodeFrameExpired      = "FRAME_EXPIRED"
	CodeControlBusy       = "CONTROL_BUSY"
	CodeControlRequired   = "CONTROL_REQUIRED"
	CodePaused            = "PAUSED"
	CodeOperationConflict = "OPERATION_CONFLICT"
	CodeOperationNotFound = "OPERATION_NOT_FOUND"
	CodeOutcomeUnknown    = "OUTCOME_UNKNOWN"
	CodeQueueFull         = "QUEUE_FULL"
	CodePhoneUnavailable  = "PHONE_UNAVAILABLE"
	CodeCaptureFailed     = "CAPTURE_FAILED"
	CodeInputFailed       = "INPUT_FAILED"
	CodeUnsupported       = "UNSUPPORTED"
	CodeUnsupportedText   = "UNSUPPORTED_TEXT"
	CodeUnsupportedKey    = "UNSUPPORTED_KEY"
	CodeUnsupportedButton = "UNSUPPORTED_BUTTON"
	CodeAppNotFound       = "APP_NOT_FOUND"
	CodeCursorExpired     = "CURSOR_EXPIRED"
	CodeInternal          = "INTERNAL"
	CodeCancelled         = "CANCELLED" // stopped by openlolo_cancel before it reached the phone
	CodeGrantRevoked      = "GRANT_REVOKED"
)

// Error is the error object of a failed answer.
type Error struct {
	Code         string   `json:"code"`
	Message      string   `json:"message"`
	Retryable    bool     `json:"retryable"`
	NextSteps    []string `json:"next_steps"`
	RetryAfterMS int64    `json:"retry_after_ms,omitempty"`
}

// Error returns the code and the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// codeGuide gives, per code, whether retrying the same call can work and
// the next steps an agent should take.
func codeGuide(code string) (retryable bool, steps []string) {
	switch code {
	case CodeInvalidArguments:
		return false, []string{"fix the arguments as the message says (tools/list gives each tool's schema) and call again"}
	case CodeScopeRequired:
		return false, []string{"ask the owner for a grant with the missing scope (pair again with phone:control)"}
	case CodeRateLimited:
		return true, []string{"wait retry_after_ms, then send the same call again; it did not run"}
	case CodeFrameExpired:
		return true, []string{"openlolo_screenshot returns a current frame_id and geometry_epoch; take coordinates from that image"}
	case CodeControlBusy:
		return true, []string{"another client holds control; wait and retry, or openlolo_status shows who holds it and until when"}
	case CodeControlRequired:
		return true, []string{"openlolo_control with command=acquire takes control when it is free"}
	case CodePaused:
		return false, []string{"input is paused; openlolo_control with command=resume continues, but only if resuming is intended"}
	case CodeOperationConflict:
		return false, []string{"send a fresh UUID as operation_id for a new action; reuse an id only to retry the identical call"}
	case CodeOperationNotFound:
		return false, []string{"check the operation_id; only your own operations are visible"}
	case CodeOutcomeUnknown:
		return false, []string{"openlolo_screenshot shows what happened; do not replay the input blindly"}
	case CodeQueueFull:
		return true, []string{"wait for earlier inputs to finish (openlolo_watch reports operation events), then send again"}
	case CodePhoneUnavailable:
		return true, []string{"openlolo_status says why the phone is unavailable; retry when it is ready"}
	case CodeCaptureFailed:
		return true, []string{"call openlolo_screenshot again; openlolo_status reports the capture state"}
	case CodeInputFailed:
		return true, []string{"openlolo_screenshot shows the phone's state; openlolo_status reports whether the phone is reading input"}
	case CodeUnsupported, CodeUnsupportedKey, CodeUnsupportedButton:
		return false, []string{"openlolo_capabilities lists what this phone supports"}
	case CodeUnsupportedText:
		return false, []string{"type_text takes printable US ASCII only; split the text or leave out the other characters"}
	case CodeAppNotFound:
		return false, []string{"openlolo_apps lists the apps this box knows, with their bundle ids and names"}
	case CodeCursorExpired:
		return false, []string{"call openlolo_watch without a cursor to continue from now, and openlolo_status to catch up"}
	case CodeCancelled:
		return false, []string{"send the action again with a fresh operation_id if it is still wanted"}
	case CodeGrantRevoked:
		return false, []string{"the owner removed this client's access; pair again to continue"}
	}
	return true, []string{"retry once; if it fails again, openlolo_status shows the box's state"}
}

// Errorf returns an Error with code, the code's standard guidance and a
// formatted message.
func Errorf(code, format string, args ...any) *Error {
	r, steps := codeGuide(code)
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: r, NextSteps: steps}
}

// PhoneError maps an error a phone backend returned to an answer error.
func PhoneError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, phone.ErrUnavailable):
		return Errorf(CodePhoneUnavailable, "%v", err)
	case errors.Is(err, phone.ErrCaptureFailed):
		return Errorf(CodeCaptureFailed, "%v", err)
	case errors.Is(err, phone.ErrInputFailed):
		return Errorf(CodeInputFailed, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedText):
		return Errorf(CodeUnsupportedText, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedKey):
		return Errorf(CodeUnsupportedKey, "%v", err)
	case errors.Is(err, phone.ErrUnsupportedButton):
		return Errorf(CodeUnsupportedButton, "%v", err)
	case errors.Is(err, phone.ErrUnsupported):
		return Errorf(CodeUnsupported, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Errorf(CodeOutcomeUnknown, "the input was interrupted: %v", err)
	}
	return Errorf(CodeInternal, "%v", err)
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
	return errors.As(err, &ce) && ce.Code != CodeOutcomeUnknown && ce.Code != CodeInputFailed
}

// rateLimited is the error for a call refused by the rate window.
func rateLimited(wait time.Duration) *Error {
	e := Errorf(CodeRateLimited, "this client made too many calls in the last minute; the call did not run")
	e.RetryAfterMS = max(1, wait.Milliseconds())
	return e
}
