package api

// Status is an answer's status.
type Status string

// Answer statuses.
const (
	StatusOK      Status = "ok"
	StatusFailed  Status = "failed"
	StatusPending Status = "pending"
)

// Enum lists the statuses.
func (Status) Enum() []string {
	return []string{string(StatusOK), string(StatusFailed), string(StatusPending)}
}

// Code is a stable error code. Extend, never rename.
type Code string

// Stable error codes.
const (
	CodeInvalidArguments  Code = "INVALID_ARGUMENTS"
	CodeScopeRequired     Code = "SCOPE_REQUIRED"
	CodeRateLimited       Code = "RATE_LIMITED"
	CodeFrameExpired      Code = "FRAME_EXPIRED"
	CodeControlBusy       Code = "CONTROL_BUSY"
	CodeControlRequired   Code = "CONTROL_REQUIRED"
	CodePaused            Code = "PAUSED"
	CodeOperationConflict Code = "OPERATION_CONFLICT"
	CodeOperationNotFound Code = "OPERATION_NOT_FOUND"
	CodeOutcomeUnknown    Code = "OUTCOME_UNKNOWN"
	CodeQueueFull         Code = "QUEUE_FULL"
	CodePhoneUnavailable  Code = "PHONE_UNAVAILABLE"
	CodeCaptureFailed     Code = "CAPTURE_FAILED"
	CodeInputFailed       Code = "INPUT_FAILED"
	CodeUnsupported       Code = "UNSUPPORTED"
	CodeUnsupportedText   Code = "UNSUPPORTED_TEXT"
	CodeUnsupportedKey    Code = "UNSUPPORTED_KEY"
	CodeUnsupportedButton Code = "UNSUPPORTED_BUTTON"
	CodeAppNotFound       Code = "APP_NOT_FOUND"
	CodeCursorExpired     Code = "CURSOR_EXPIRED"
	CodeInternal          Code = "INTERNAL"
	CodeCancelled         Code = "CANCELLED" // stopped by openlolo_cancel before it reached the phone
	CodeGrantRevoked      Code = "GRANT_REVOKED"
	CodeProfileNotFound   Code = "PROFILE_NOT_FOUND" // no app profile with that bundle id
	CodeLinkNotFound      Code = "LINK_NOT_FOUND"    // the profile has no deep link of that name
	CodeLinkParams        Code = "LINK_PARAMS"       // a deep link's parameter is missing, unknown or of the wrong type
	CodeAskDenied         Code = "ASK_DENIED"        // the owner denied the ask this call waited for
	CodeAskExpired        Code = "ASK_EXPIRED"       // nobody decided the ask in time, or the retry came too late
	CodePhoneRequired     Code = "PHONE_REQUIRED"    // the box has several phones and the call named none (or none of them)
	CodePhoneNotGranted   Code = "PHONE_NOT_GRANTED" // the phone named is not one the client's grant reaches
)

// Codes lists every stable error code, in the order the contract gives
// them (what /llms.txt documents).
func Codes() []Code {
	return []Code{CodeInvalidArguments, CodeScopeRequired, CodeRateLimited, CodeFrameExpired, CodeControlBusy,
		CodeControlRequired, CodePaused, CodeOperationConflict, CodeOperationNotFound, CodeOutcomeUnknown,
		CodeQueueFull, CodePhoneUnavailable, CodeCaptureFailed, CodeInputFailed, CodeUnsupported,
		CodeUnsupportedText, CodeUnsupportedKey, CodeUnsupportedButton, CodeAppNotFound, CodeCursorExpired,
		CodeInternal, CodeCancelled, CodeGrantRevoked,
		CodeProfileNotFound, CodeLinkNotFound, CodeLinkParams, CodeAskDenied, CodeAskExpired, CodePhoneRequired,
		CodePhoneNotGranted}
}

// Error is the error object of a failed answer.
type Error struct {
	Code         Code     `json:"code" desc:"Stable error code, e.g. FRAME_EXPIRED."`
	Message      string   `json:"message"`
	Retryable    bool     `json:"retryable"`
	NextSteps    []string `json:"next_steps"`
	RetryAfterMS int64    `json:"retry_after_ms,omitempty"`
}

// Error returns the code and the message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Guide tells whether retrying the same call can work after an error with
// code c, and the next steps an agent should take.
func (c Code) Guide() (retryable bool, steps []string) {
	switch c {
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
		return false, []string{"openlolo_type_text takes printable US ASCII only: split the text or leave the other characters out; where openlolo_capabilities shows clipboard.available, openlolo_send_text pastes any Unicode text"}
	case CodeAppNotFound:
		return false, []string{"openlolo_apps lists the apps this box knows, with their bundle ids and names"}
	case CodeCursorExpired:
		return false, []string{"call openlolo_watch without a cursor to continue from now, and openlolo_status to catch up"}
	case CodeCancelled:
		return false, []string{"send the action again with a fresh operation_id if it is still wanted"}
	case CodeGrantRevoked:
		return false, []string{"the owner removed this client's access; pair again to continue"}
	case CodeProfileNotFound:
		return false, []string{"openlolo_app_profiles lists the apps this box has profiles for; openlolo_launch_app opens apps without one"}
	case CodeLinkNotFound:
		return false, []string{"openlolo_app_profile lists the app's deep links by name, with their parameters"}
	case CodeLinkParams:
		return false, []string{"openlolo_app_profile gives each parameter's type, pattern or values and whether it is required; fix params and call again"}
	case CodeAskDenied:
		return false, []string{"the owner said no to this action; do not send it again, choose another way or ask the owner"}
	case CodePhoneRequired:
		return false, []string{"name the phone: openlolo_phones lists the box's phones; pass one's id as phone"}
	case CodePhoneNotGranted:
		return false, []string{"openlolo_phones lists the phones this client's grant reaches; to use another, ask the owner to approve the client again for it (Access)"}
	case CodeAskExpired:
		return false, []string{"send the call again with a fresh operation_id to ask the owner again (ask.url is the page where they decide)"}
	}
	return true, []string{"retry once; if it fails again, openlolo_status shows the box's state"}
}
