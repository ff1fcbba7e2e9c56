package api

import "time"

// AskTTL is how long the owner has to decide an ask, and how long an
// allowed ask waits for the client's retry, before it expires
// (ASK_EXPIRED).
const AskTTL = 10 * time.Minute

// Ask is what the owner is asked before a call the owner marked runs
// (docs/wire.md, Asks). A pending answer carries it; so do the failed
// answers ASK_DENIED and ASK_EXPIRED.
type Ask struct {
	ID  string `json:"id" desc:"The ask's id."`
	URL string `json:"url" desc:"The box page where the owner allows or denies it."`
	// What says in words what the owner is asked ("launch Wallet
	// (com.apple.Passbook)"), without secrets.
	What      string   `json:"what" desc:"What the owner is asked, in words."`
	State     AskState `json:"state" desc:"pending, allowed, denied or expired."`
	ExpiresMS int64    `json:"expires_ms" desc:"When the ask expires (Unix ms) unless decided, or when an allowed ask stops waiting for the retry."`
}

// AskState is an ask's state.
type AskState string

// Ask states.
const (
	AskPending AskState = "pending"
	AskAllowed AskState = "allowed"
	AskDenied  AskState = "denied"
	AskExpired AskState = "expired"
)

// Enum lists the ask states.
func (AskState) Enum() []string {
	return []string{string(AskPending), string(AskAllowed), string(AskDenied), string(AskExpired)}
}

// AskKind is what kind of action a mark makes the box ask about.
type AskKind string

// Ask kinds: the marks the owner sets, box-wide and per client.
const (
	// AskApp: launching one app (the mark's subject is its bundle id).
	AskApp AskKind = "app"
	// AskURL: opening any URL.
	AskURL AskKind = "url"
	// AskText: typing text.
	AskText AskKind = "text"
	// AskInput: every input of the client (touches, keys, buttons, ...).
	AskInput AskKind = "input"
)

// Enum lists the ask kinds.
func (AskKind) Enum() []string {
	return []string{string(AskApp), string(AskURL), string(AskText), string(AskInput)}
}

// Valid reports whether k is one of the ask kinds.
func (k AskKind) Valid() bool {
	switch k {
	case AskApp, AskURL, AskText, AskInput:
		return true
	}
	return false
}

// AskEvent: an ask of the caller's was created or decided (allowed,
// denied) or expired.
type AskEvent struct {
	Event       string   `json:"event" desc:"created, allowed, denied or expired."`
	AskID       string   `json:"ask_id"`
	OperationID string   `json:"operation_id"`
	Tool        Tool     `json:"tool"`
	State       AskState `json:"state"`
	URL         string   `json:"url,omitempty"`
}
