package sdk

import (
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/api"
)

// AskPendingError is a tool answer with status "pending" that carries an
// ask: the owner marked this kind of call, so the box asks them first
// (docs/wire.md, Asks). Nothing reached the phone. Call the same tool
// again with the same arguments and OperationID once the owner decided
// (an "ask" event on openlolo_watch says when): allowed, it runs once;
// denied, the call fails with ASK_DENIED ([ErrAskDenied]); undecided for
// api.AskTTL, ASK_EXPIRED ([ErrAskExpired]). Still waiting, it answers
// AskPendingError again.
//
// [Client.Mutate] puts the operation_id into its args map, so calling it
// again with the same map is the retry.
type AskPendingError struct {
	Tool        string
	OperationID string
	// Ask is what the owner is asked, and where (Ask.URL, the box page).
	Ask api.Ask
}

func (e *AskPendingError) Error() string {
	return fmt.Sprintf("%s waits for the owner: they are asked to %s at %s; call it again with operation_id %s and the same arguments once they decide",
		e.Tool, e.Ask.What, e.Ask.URL, e.OperationID)
}

// Sentinels for the ask codes, for errors.Is on a *Refused.
const (
	ErrAskDenied  = codeError(api.CodeAskDenied)
	ErrAskExpired = codeError(api.CodeAskExpired)
)

// askPending is the error of a pending answer with an ask; nil for any
// other answer.
func askPending(tool string, res *Result) error {
	if res.Status() != string(api.StatusPending) || res.Outcome.Ask == nil {
		return nil
	}
	return &AskPendingError{Tool: tool, OperationID: res.Outcome.OperationID, Ask: *res.Outcome.Ask}
}

// IsAskPending reports whether err is (or wraps) an [AskPendingError],
// and returns it.
func IsAskPending(err error) (*AskPendingError, bool) {
	var e *AskPendingError
	ok := errors.As(err, &e)
	return e, ok
}
