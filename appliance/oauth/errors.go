package oauth

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// Error is an OAuth error answer (RFC 6749 §5.2): a stable code from the
// RFCs and a sentence a person can act on.
type Error struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	// RetryAfter, when set, is sent as a Retry-After header.
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string { return "oauth: " + e.Code + ": " + e.Description }

func errBadRequest(code, desc string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Description: desc}
}

func errInvalidRequest(desc string) *Error { return errBadRequest("invalid_request", desc) }
func errInvalidGrant(desc string) *Error   { return errBadRequest("invalid_grant", desc) }

func errSlowDown(desc string, retry time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: "slow_down", Description: desc, RetryAfter: retry}
}

// Sentinel errors of the owner-side methods; test them with errors.Is.
var (
	// ErrNoRequest: no pending device request has that handle (unknown,
	// already decided, replaced or expired).
	ErrNoRequest = errors.New("oauth: no such pending request; it may have been decided, replaced or expired")
	// ErrNoClient: no client has that client_id.
	ErrNoClient = errors.New("oauth: no such client")
	// ErrBadLife: the grant life is not one of Life24h, Life30d, LifeForever.
	ErrBadLife = errors.New(`oauth: grant life must be "24h", "30d" or "forever"`)
)

// noStore sets the headers every OAuth answer carries.
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// writeJSON writes v as a JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	noStore(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes err as an RFC 6749 JSON error; anything that is not an
// *Error is a server_error whose detail stays in the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *Error
	if !errors.As(err, &oe) {
		s.log.Error("oauth: internal error", "path", r.URL.Path, "err", err)
		oe = &Error{Status: http.StatusInternalServerError, Code: "server_error",
			Description: "the box could not complete the request; try again, and check the box's log if it persists"}
	}
	if oe.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((oe.RetryAfter+time.Second-1)/time.Second)))
	}
	writeJSON(w, oe.Status, oe)
}
