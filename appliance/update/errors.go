package update

import (
	"errors"
	"fmt"
)

// Code is a stable name for why an update was refused or failed. Codes
// are extended, never renamed.
type Code string

// The codes of [Error].
const (
	CodeNotBundle    Code = "UPDATE_NOT_A_BUNDLE"    // not a bundle, or a member out of place
	CodeBadSignature Code = "UPDATE_BAD_SIGNATURE"   // the manifest is not signed by this box's key
	CodeTruncated    Code = "UPDATE_TRUNCATED"       // the bundle ends early
	CodeCorrupt      Code = "UPDATE_CORRUPT"         // a file does not match its signed size or hash
	CodeWrongBoard   Code = "UPDATE_WRONG_BOARD"     // the bundle is for another board
	CodeNotNewer     Code = "UPDATE_NOT_NEWER"       // older or the same version, without the owner's choice
	CodeTooLarge     Code = "UPDATE_TOO_LARGE"       // the root image does not fit the slot
	CodeNoSpace      Code = "UPDATE_NO_SPACE"        // the data partition has no room for the database backup
	CodeWriteFailed  Code = "UPDATE_WRITE_FAILED"    // writing the inactive slot failed
	CodeReadBack     Code = "UPDATE_READBACK_FAILED" // the slot read back differs from the manifest
	CodeBusy         Code = "UPDATE_BUSY"            // an update runs, or a new version is on trial
	CodeUnsupported  Code = "UPDATE_UNSUPPORTED"     // this box cannot update itself (no slots or no key)
	CodeFetchFailed  Code = "UPDATE_FETCH_FAILED"    // the bundle's URL could not be fetched
)

// Error is a refused or failed update: a stable code, a sentence for the
// owner, and the cause when there is one.
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("update: %s: %s (%v)", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("update: %s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

func fail(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns err's code, or "" when err is no [*Error].
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
