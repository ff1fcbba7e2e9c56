package sdk

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Refused is a tool answer with status "failed": the box understood the call
// and refused or failed it. Code is one of the stable codes (docs/wire.md, Codes).
// Test for a code with errors.Is(err, sdk.ErrFrameExpired) and friends.
type Refused struct {
	Code       string
	Message    string
	NextSteps  []string
	Dispatched bool // true if input may have reached the phone
	Retryable  bool
	RetryAfter time.Duration // from retry_after_ms; 0 if none
	Tool       string
}

func (e *Refused) Error() string {
	s := fmt.Sprintf("%s refused: %s: %s", e.Tool, e.Code, e.Message)
	if len(e.NextSteps) > 0 {
		s += " (next: " + strings.Join(e.NextSteps, "; ") + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrFrameExpired) and the other code sentinels
// match a Refused with that code.
func (e *Refused) Is(target error) bool {
	c, ok := target.(codeError)
	return ok && string(c) == e.Code
}

// codeError is the type of the per-code sentinels.
type codeError string

func (c codeError) Error() string { return "openlolo: " + string(c) }

// Sentinels for the stable codes, for errors.Is on a *Refused.
const (
	ErrInvalidArguments  = codeError("INVALID_ARGUMENTS")
	ErrScopeRequired     = codeError("SCOPE_REQUIRED")
	ErrRateLimited       = codeError("RATE_LIMITED")
	ErrFrameExpired      = codeError("FRAME_EXPIRED")
	ErrControlBusy       = codeError("CONTROL_BUSY")
	ErrControlRequired   = codeError("CONTROL_REQUIRED")
	ErrPaused            = codeError("PAUSED")
	ErrOperationConflict = codeError("OPERATION_CONFLICT")
	ErrOperationNotFound = codeError("OPERATION_NOT_FOUND")
	ErrOutcomeUnknown    = codeError("OUTCOME_UNKNOWN")
	ErrQueueFull         = codeError("QUEUE_FULL")
	ErrPhoneUnavailable  = codeError("PHONE_UNAVAILABLE")
	ErrCaptureFailed     = codeError("CAPTURE_FAILED")
	ErrInputFailed       = codeError("INPUT_FAILED")
	ErrUnsupported       = codeError("UNSUPPORTED")
	ErrUnsupportedText   = codeError("UNSUPPORTED_TEXT")
	ErrUnsupportedKey    = codeError("UNSUPPORTED_KEY")
	ErrUnsupportedButton = codeError("UNSUPPORTED_BUTTON")
	ErrAppNotFound       = codeError("APP_NOT_FOUND")
	ErrCursorExpired     = codeError("CURSOR_EXPIRED")
	ErrInternal          = codeError("INTERNAL")
)

// ProtocolError is a JSON-RPC error or an answer the SDK could not read: the
// call itself was malformed, or the box is not speaking MCP as expected.
type ProtocolError struct {
	Code    int // JSON-RPC error code; 0 when the answer was unreadable
	Message string
}

func (e *ProtocolError) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("openlolo: protocol error %d: %s", e.Code, e.Message)
	}
	return "openlolo: protocol error: " + e.Message
}

// Errors below MCP.
var (
	// ErrGrantRevoked: the grant is gone (revoked under Access, expired,
	// or revoked by the box because a used refresh token was presented).
	// The person must pair again.
	ErrGrantRevoked = errors.New("openlolo: the grant was revoked or has expired; pair again with `openlolo pair`")
	// ErrWrongEntry: a token was sent to an entry that did not issue it (a
	// LAN token on the tailnet entry or the reverse).
	ErrWrongEntry = errors.New("openlolo: this token belongs to another entry of the box (LAN vs tailnet); pair with the entry you use")
)

// PinMismatch: the box presented a certificate other than the pinned one.
// Nothing was sent after the handshake.
type PinMismatch struct {
	Want, Got string
}

func (e *PinMismatch) Error() string {
	return fmt.Sprintf("openlolo: certificate pin mismatch: pinned %s, box presented %s; if the box's certificate was rotated on purpose, pair again", e.Want, e.Got)
}

// The RFC 8628 states while pairing.
var (
	// ErrAuthorizationPending: the owner has not decided yet.
	ErrAuthorizationPending = errors.New("openlolo: authorization pending: the owner has not approved the request yet")
	// ErrSlowDown: the client polled too fast; the interval grew.
	ErrSlowDown = errors.New("openlolo: slow down: polling too fast, or too many pairing requests at once")
	// ErrAccessDenied: the owner denied the request.
	ErrAccessDenied = errors.New("openlolo: access denied: the owner denied the request on the box page")
	// ErrExpiredToken: the request expired before the owner decided.
	ErrExpiredToken = errors.New("openlolo: the pairing request expired before it was approved; pair again")
)
