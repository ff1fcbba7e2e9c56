package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// giveBackTimeout bounds giving control back, which also runs after
// Ctrl-C ended the call.
const giveBackTimeout = 10 * time.Second

// giveBackControl releases control at the end of a one-shot call whose
// answer shows an input attempt (it carries dispatched: the box may have
// given this client control for it), so the next client (or the user's
// agent) is not refused with CONTROL_BUSY for the api.LeaseTime the lease
// would last. Releasing control one does not hold changes nothing; held by
// another, it is theirs to keep. A failure is only reported: the call's
// own answer stands.
func giveBackControl(ctx context.Context, c *Context, cl *sdk.Client, res *sdk.Result) {
	if res == nil {
		return
	}
	if _, tried := res.Structured["dispatched"]; !tried {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), giveBackTimeout)
	defer cancel()
	_, err := cl.Control(ctx, string(api.CommandRelease))
	if err != nil && !errors.Is(err, sdk.ErrControlBusy) {
		fmt.Fprintf(c.Stderr, "openlolo call: control was not given back (it lapses by itself after %v): %v\n", api.LeaseTime, err)
	}
}

// ownerWait is --wait: it follows the client's ask events on
// openlolo_watch from before the first send, so a decision the owner makes
// at once is not missed.
type ownerWait struct {
	cl     *sdk.Client
	cursor string
}

// startOwnerWait takes the box's current event cursor.
func startOwnerWait(ctx context.Context, cl *sdk.Client) (*ownerWait, error) {
	w := &ownerWait{cl: cl}
	return w, w.next(ctx, 1)
}

// next waits up to waitMS for ask events after the cursor and moves the
// cursor past them; an expired cursor starts again from now.
func (w *ownerWait) next(ctx context.Context, waitMS int) error {
	res, err := w.cl.Watch(ctx, w.cursor, waitMS, []string{string(api.KindAsk)})
	if err != nil {
		if r, ok := err.(*sdk.Refused); ok && r.Code == string(api.CodeCursorExpired) {
			w.cursor = ""
			return nil
		}
		return err
	}
	wr, err := sdk.Decode[api.WatchResult](res)
	if err != nil {
		return err
	}
	w.cursor = wr.Cursor
	return nil
}

// until sends the call again, with the same operation_id, after each ask
// event (or each long poll's end) for as long as it waits for the owner.
// The box ends the wait: allowed, the call runs; denied, ASK_DENIED;
// undecided for api.AskTTL, ASK_EXPIRED.
func (w *ownerWait) until(ctx context.Context, c *Context, res *sdk.Result, err error, send func() (*sdk.Result, error)) (*sdk.Result, error) {
	told := false
	for {
		ask, ok := sdk.IsAskPending(err)
		if !ok {
			return res, err
		}
		if !told {
			fmt.Fprintf(c.Stderr, "Waiting for the owner: they are asked to %s at %s (Ctrl-C stops waiting; the ask stays open).\n", ask.Ask.What, ask.Ask.URL)
			told = true
		}
		if werr := w.next(ctx, api.DefaultWaitMS); werr != nil {
			if ctx.Err() != nil {
				return res, err // stopped waiting: still the owner's to decide
			}
			return res, werr
		}
		res, err = send()
	}
}
