package control

import (
	"context"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// callBatch is how many recorded calls one transaction writes at most.
const callBatch = 256

// callGather is how long recorded calls gather before their batch is
// written: a record reaches the store at most this late (or at once when
// the Activity page reads).
const callGather = 200 * time.Millisecond

// call is one entry of the calls queue: a call to record, the screen
// after an input (with frame set: its thumbnail is stored for the
// operation operationID), or (with only done set) a flush that is answered
// once everything queued before it is written.
type call struct {
	action      store.Action
	operationID string
	frame       *phone.Frame
	done        chan struct{}
}

// queueCall hands a recorded call to writeCalls. A tool call pays for no
// SQLite commit of its own: the queue is written in batches, one
// transaction each, off the call's path. When the queue is full the call
// waits for room rather than lose the record.
func (s *Service) queueCall(c call) {
	select {
	case s.calls <- c:
	case <-s.base.Done():
	}
}

// FlushCalls returns once every call recorded before it is in the store,
// so the Activity page reads what has just happened.
func (s *Service) FlushCalls(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case s.calls <- call{done: done}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.base.Done():
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.base.Done():
		return nil
	}
}

// writeCalls writes queued calls in batches until ctx ends, then writes
// what is still queued.
func (s *Service) writeCalls(ctx context.Context) {
	for {
		var batch []call
		select {
		case <-ctx.Done():
			for {
				select {
				case c := <-s.calls:
					batch = append(batch, c)
				default:
					s.writeCallBatch(ctx, batch)
					return
				}
			}
		case c := <-s.calls:
			batch = append(batch, c)
		}
		// Gather for a moment, so a busy client's calls share one commit;
		// a flush (the Activity page reading) writes at once.
		wait := time.NewTimer(callGather)
	gather:
		for len(batch) < callBatch && batch[len(batch)-1].done == nil {
			select {
			case c := <-s.calls:
				batch = append(batch, c)
			case <-wait.C:
				break gather
			case <-ctx.Done():
				break gather
			}
		}
		wait.Stop()
		s.writeCallBatch(ctx, batch)
	}
}

func (s *Service) writeCallBatch(ctx context.Context, batch []call) {
	n := 0
	thumbs := map[int]store.Thumb{}
	for i, c := range batch {
		if c.frame != nil {
			th, err := Thumbnail(c.frame)
			if err != nil {
				s.log.Warn("control: thumbnail", "op", c.operationID, "err", err)
				continue
			}
			thumbs[i] = th
			n++
		} else if c.done == nil {
			n++
		}
	}
	if n > 0 {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
		err := s.st.Update(wctx, func(tx *store.Tx) error {
			for i, c := range batch {
				if c.frame != nil {
					if th, ok := thumbs[i]; ok {
						// Only this statement fails (the operation was
						// pruned meanwhile): the calls are still written.
						if err := tx.SetOperationThumb(c.action.ClientID, c.operationID, th); err != nil {
							s.log.Warn("control: store a thumbnail", "op", c.operationID, "err", err)
						}
					}
					continue
				}
				if c.done != nil {
					continue
				}
				if _, err := tx.InsertCallAction(c.action, c.operationID); err != nil {
					return err
				}
			}
			return nil
		})
		cancel()
		if err != nil {
			s.log.Warn("control: record calls", "calls", n, "err", err)
		}
	}
	for _, c := range batch {
		if c.done != nil {
			close(c.done)
		}
	}
}
