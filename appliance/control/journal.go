package control

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"time"

	"github.com/google/uuid"

	"github.com/openlolo/openlolo/appliance/store"
)

// Call is one mutating tool call whose result is an R.
type Call[R any] struct {
	Client Client
	Tool   api.Tool
	// OperationID is the client's UUID, or "" for one the box generates.
	OperationID string
	// Args is everything that defines the action. Only a keyed
	// fingerprint of it is stored, never the values (typed text).
	Args any
	// Input calls need control (taking it when free), are refused while
	// paused, and wait in the input queue to run one at a time.
	Input bool
	// Frame, for touches, is checked when the call is accepted and again
	// just before it runs.
	Frame *FrameRef
	// Check, when set, refuses the call before it is journaled (so the
	// same operation_id may be sent again once the refusal no longer
	// holds), as the input rules do for input calls.
	Check func() *Error
	// Run performs the action and returns the tool's result. Its ctx is
	// cancelled by pause or openlolo_cancel.
	Run func(ctx context.Context) (*R, error)
}

var (
	errPaused    = errors.New("input was paused")
	errCancelled = errors.New("cancelled by openlolo_cancel")
)

type pending struct {
	client, fp string
	phone      string // the id of the phone it is for
	tool       api.Tool
	input      bool
	cancel     context.CancelCauseFunc
	dispatched bool
}

func (s *Service) fingerprint(tool api.Tool, args any) string {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", args))
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(tool))
	m.Write([]byte{0})
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// opKey names an operation: operation ids are per client (one client's
// ids never collide with another's).
type opKey struct{ client, id string }

// Do runs call on s under the rules and journals it: a known operation id
// of the client with the same arguments returns the stored answer without
// running again; other arguments are OPERATION_CONFLICT. Ids are the
// client's own: another client's same id is another operation. The verbs
// are built on it (their rate window comes first, in the verb); a new
// mutating tool is a verb that calls Do. Its steps, in order: the
// journal's memory of the id, the tool's check, the owner's ask,
// admission (pause, queue, lease, frame), the journal's record, the
// input's turn (the frame checked again), dispatch.
func Do[R any](ctx context.Context, s *Service, call Call[R]) Answer[R] {
	o := newOp(s, call)
	if a, ok := known[R](ctx, s, o); ok {
		return a
	}
	if call.Check != nil {
		if e := call.Check(); e != nil {
			return refused[R](o, e)
		}
	}
	if out := s.gate(ctx, o.client, o.id, call.OperationID == "", o.tool, call.Args, o.input, o.fp); out != nil {
		return Answer[R]{Outcome: *out}
	}
	if e := s.enter(o); e != nil {
		return refused[R](o, e)
	}
	defer s.done(o)
	rec, a, ok := record[R](ctx, s, o, call.Args)
	if !ok {
		return a
	}
	if o.input {
		held, state, e := s.turn(o)
		if held {
			defer func() { <-s.slot }()
		}
		if e != nil {
			return finish[R](s, rec, state, false, e, nil)
		}
	} else {
		s.mu.Lock()
		o.p.dispatched = true
		s.mu.Unlock()
	}
	return dispatch(s, o, rec, call.Run)
}

// opCall is one call of Do on its way through the steps.
type opCall struct {
	id     string
	client Client
	tool   api.Tool
	fp     string    // the arguments' keyed fingerprint
	input  bool      // Call.Input
	frame  *FrameRef // Call.Frame
	// Set by enter: the call's pending entry and its run context.
	p       *pending
	runCtx  context.Context
	waiting bool // counted in s.waiting
}

// key names o's operation among every client's.
func (o *opCall) key() opKey { return opKey{client: o.client.ID, id: o.id} }

// newOp names call's operation (the client's id, or a new one) and
// fingerprints its arguments.
func newOp[R any](s *Service, call Call[R]) *opCall {
	id := call.OperationID
	if id == "" {
		id = uuid.NewString()
	}
	return &opCall{id: id, client: call.Client, tool: call.Tool, fp: s.fingerprint(call.Tool, call.Args),
		input: call.Input, frame: call.Frame}
}

// refused is o refused before it became an operation: nothing was sent.
func refused[R any](o *opCall, e *Error) Answer[R] {
	a := Refuse[R](e)
	a.OperationID = o.id
	return a
}

func conflict[R any](o *opCall) Answer[R] {
	return refused[R](o, api.Errorf(api.CodeOperationConflict, "operation_id %s was already used for another call", o.id))
}

// known answers a call whose operation id is queued, running or in the
// journal: its state, or its stored answer, for the same client and
// arguments; OPERATION_CONFLICT otherwise. ok is false for a new id.
func known[R any](ctx context.Context, s *Service, o *opCall) (_ Answer[R], ok bool) {
	s.mu.Lock()
	if p, ok := s.pending[o.key()]; ok {
		s.mu.Unlock()
		if p.client != o.client.ID || p.fp != o.fp {
			return conflict[R](o), true
		}
		state := store.OpQueued
		if p.dispatched {
			state = store.OpDispatched
		}
		return Answer[R]{Outcome: api.Outcome{Status: api.StatusPending, OperationID: o.id, Dispatched: boolp(p.dispatched),
			Tool: p.tool, State: state}}, true
	}
	s.mu.Unlock()
	var stored store.Operation
	err := s.st.View(ctx, func(tx *store.Tx) error {
		var err error
		stored, err = tx.OperationByID(o.client.ID, o.id)
		return err
	})
	switch {
	case err == nil:
		if stored.ClientID != o.client.ID || stored.Fingerprint != o.fp {
			return conflict[R](o), true
		}
		return replay[R](stored), true
	case !errors.Is(err, store.ErrNotFound):
		return refused[R](o, api.Errorf(api.CodeInternal, "the journal could not be read: %v", err)), true
	}
	return Answer[R]{}, false
}

// enter lets o in under the input rules (not paused, unless the owner's
// own input; room in the queue; the control lease, taken when free; the
// frame still the caller's latest) and makes it pending. The refusal
// says nothing was sent.
func (s *Service) enter(o *opCall) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[o.key()]; ok { // raced with the same id
		return api.Errorf(api.CodeOperationConflict, "operation_id %s was already used for another call", o.id)
	}
	if o.input {
		var e *Error
		switch {
		case s.paused && o.client.IsOwner():
			// The owner's own input runs while the agents are paused.
		case s.paused && s.pausedOwner:
			e = s.ownerPausedLocked()
			e.Message += "; nothing was sent"
		case s.paused:
			e = s.pausedLocked()
		case s.waiting >= s.lim.Queue:
			e = api.Errorf(api.CodeQueueFull, "%d inputs are already waiting; nothing was sent", s.waiting)
		}
		if e == nil {
			e = s.takeLocked(o.client)
		}
		if e == nil && o.frame != nil {
			e = s.checkFrameLocked(o.client, *o.frame)
		}
		if e != nil {
			return e
		}
		s.waiting++
		o.waiting = true
	}
	runCtx, cancel := context.WithCancelCause(s.base)
	o.p = &pending{client: o.client.ID, fp: o.fp, tool: o.tool, input: o.input, cancel: cancel, phone: s.id}
	o.runCtx = runCtx
	s.pending[o.key()] = o.p
	return nil
}

// done forgets the entered o: it is no longer pending or waiting.
func (s *Service) done(o *opCall) {
	s.mu.Lock()
	delete(s.pending, o.key())
	if o.waiting {
		s.waiting--
	}
	s.mu.Unlock()
	o.p.cancel(nil)
}

// record journals o as queued. When another call with its id finished
// since known looked, that call's answer (or OPERATION_CONFLICT) is
// returned instead, with ok false.
func record[R any](ctx context.Context, s *Service, o *opCall, args any) (_ store.Operation, _ Answer[R], ok bool) {
	now := s.now()
	c := o.client
	rec := store.Operation{ID: o.id, ClientID: c.ID, ClientName: c.Name, Tool: string(o.tool), Fingerprint: o.fp,
		State: store.OpQueued, Created: now, Updated: now, Summary: Summarize(args), RunID: c.Run.ID, RunTitle: c.Run.Title, Phone: s.id}
	var existing store.Operation
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		if existing, err = tx.OperationByID(o.client.ID, o.id); err == nil || !errors.Is(err, store.ErrNotFound) {
			return err
		}
		existing = store.Operation{}
		return tx.InsertOperation(rec)
	})
	switch {
	case err != nil:
		return rec, refused[R](o, api.Errorf(api.CodeInternal, "the journal could not record the operation: %v", err)), false
	case existing.ID != "":
		if existing.ClientID != c.ID || existing.Fingerprint != o.fp {
			return rec, conflict[R](o), false
		}
		return rec, replay[R](existing), false
	}
	s.opEvent(c, o.id, o.tool, store.OpQueued)
	return rec, Answer[R]{}, true
}

// turn waits for o's turn to run (inputs run one at a time), then checks
// it again: not cancelled, not paused meanwhile (the owner's own input
// excepted), its frame still the caller's latest. held says o holds the
// input slot (the caller frees it); on success o is dispatched, else
// state is the journal state it ends in and nothing was sent.
func (s *Service) turn(o *opCall) (held bool, state string, _ *Error) {
	select {
	case s.slot <- struct{}{}:
	case <-o.runCtx.Done():
		return false, store.OpCancelled, stopError(o.runCtx, false)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting--
	o.waiting = false
	var e *Error
	switch {
	case o.runCtx.Err() != nil:
		e = stopError(o.runCtx, false)
	case s.paused && !o.client.IsOwner():
		e = api.Errorf(api.CodePaused, "input was paused before this one ran; nothing was sent")
	case o.frame != nil:
		e = s.checkFrameLocked(o.client, *o.frame)
	}
	switch {
	case e == nil:
		o.p.dispatched = true
		return true, store.OpDispatched, nil
	case e.Code == api.CodeCancelled || e.Code == api.CodePaused:
		return true, store.OpCancelled, e
	}
	return true, store.OpFailed, e
}

// dispatch journals o as dispatched, runs it and journals how it ended:
// succeeded; outcome_unknown when interrupted (pause, cancel) or when the
// phone cannot tell; failed when the phone says nothing was sent. After
// an input failed midway every key and touch is released.
func dispatch[R any](s *Service, o *opCall, rec store.Operation, run func(ctx context.Context) (*R, error)) Answer[R] {
	if err := s.setState(rec, store.OpDispatched, "", ""); err != nil {
		s.log.Error("control: journal dispatched", "op", o.id, "err", err)
	}
	s.opEvent(o.client, o.id, o.tool, store.OpDispatched)
	result, err := run(o.runCtx)
	switch {
	case err == nil:
		return finish(s, rec, store.OpSucceeded, true, nil, result)
	case context.Cause(o.runCtx) != nil && o.runCtx.Err() != nil:
		s.releaseAfterFailure()
		return finish[R](s, rec, store.OpOutcomeUnknown, true, stopError(o.runCtx, true), nil)
	case notDispatched(err):
		return finish[R](s, rec, store.OpFailed, false, PhoneError(err), nil)
	default:
		s.releaseAfterFailure()
		e := PhoneError(err)
		state := store.OpFailed
		if e.Code == api.CodeOutcomeUnknown {
			state = store.OpOutcomeUnknown
		}
		return finish[R](s, rec, state, true, e, nil)
	}
}

// stopError explains why runCtx was stopped.
func stopError(runCtx context.Context, dispatched bool) *Error {
	cause := context.Cause(runCtx)
	if dispatched {
		return api.Errorf(api.CodeOutcomeUnknown, "the input was interrupted while being sent (%v); part of it may have reached the phone", cause)
	}
	if errors.Is(cause, errPaused) {
		return api.Errorf(api.CodePaused, "input was paused before this one ran; nothing was sent")
	}
	if errors.Is(cause, errCancelled) {
		return api.Errorf(api.CodeCancelled, "cancelled before it ran; nothing was sent")
	}
	return api.Errorf(api.CodeCancelled, "stopped before it ran (%v); nothing was sent", cause)
}

func (s *Service) releaseAfterFailure() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.base), releaseTimeout)
	defer cancel()
	if err := s.ph.ReleaseAll(ctx); err != nil {
		s.log.Warn("control: release all after a failed input", "err", err)
	}
}

// finish records the final state and the answer and returns the answer.
func finish[R any](s *Service, op store.Operation, state string, dispatched bool, e *Error, result *R) Answer[R] {
	a := Answer[R]{Outcome: api.Outcome{Status: api.StatusOK, OperationID: op.ID, Dispatched: boolp(dispatched),
		State: state, Error: e}, Result: result}
	if e != nil {
		a.Status = api.StatusFailed
		a.Result = nil
	} else if a.Result == nil {
		a.Result = new(R)
	}
	code := ""
	if e != nil {
		code = string(e.Code)
	}
	b, err := json.Marshal(a)
	if err != nil {
		s.log.Error("control: encode answer", "op", op.ID, "err", err)
	}
	if err := s.setState(op, state, code, string(b)); err != nil {
		s.log.Error("control: journal final state", "op", op.ID, "err", err)
	}
	s.opEvent(Client{ID: op.ClientID, Run: Run{ID: op.RunID, Title: op.RunTitle}}, op.ID, api.Tool(op.Tool), state)
	return a
}

func (s *Service) setState(op store.Operation, state, code, answer string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.base), journalTimeout)
	defer cancel()
	return s.st.Update(ctx, func(tx *store.Tx) error {
		return tx.SetOperationState(op.ClientID, op.ID, state, code, answer, s.now())
	})
}

// replay returns the stored answer of a journaled operation.
func replay[R any](op store.Operation) Answer[R] {
	var a Answer[R]
	if op.Answer != "" && json.Unmarshal([]byte(op.Answer), &a) == nil {
		a.Replayed = true
		return a
	}
	// Interrupted by a stop of the box: no answer was stored.
	a = Answer[R]{Outcome: api.Outcome{Status: api.StatusFailed, OperationID: op.ID}}
	switch op.State {
	case store.OpOutcomeUnknown:
		a.Dispatched = boolp(true)
		a.Error = api.Errorf(api.CodeOutcomeUnknown, "the box stopped while this input was being sent; part of it may have reached the phone")
	case store.OpCancelled:
		a.Dispatched = boolp(false)
		a.Error = api.Errorf(api.CodeCancelled, "the box stopped before this input ran; nothing was sent")
	default:
		a.Status = api.StatusPending
		a.Dispatched = boolp(op.State == store.OpDispatched)
	}
	a.State, a.Replayed = op.State, true
	return a
}

// Operation returns c's operation id, or OPERATION_NOT_FOUND when there is
// none or it belongs to another client.
func (s *Service) Operation(ctx context.Context, c Client, id string) (store.Operation, *Error) {
	var op store.Operation
	err := s.st.View(ctx, func(tx *store.Tx) error {
		var err error
		op, err = tx.OperationByID(c.ID, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) || (err == nil && op.ClientID != c.ID) {
		return store.Operation{}, api.Errorf(api.CodeOperationNotFound, "no operation %s of yours is known", id)
	}
	if err != nil {
		return store.Operation{}, api.Errorf(api.CodeInternal, "the journal could not be read: %v", err)
	}
	return op, nil
}

// CancelOp stops c's queued or running operation target.
func (s *Service) CancelOp(ctx context.Context, c Client, target string) (*api.CancelResult, error) {
	op, e := s.Operation(ctx, c, target)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	p, ok := s.pending[opKey{client: c.ID, id: target}]
	if ok {
		p.cancel(errCancelled)
	}
	s.mu.Unlock()
	return &api.CancelResult{Target: target, Was: op.State, Stopped: ok}, nil
}

// Recent returns up to n journaled operations, newest first (for the box
// page's Activity).
func (s *Service) Recent(ctx context.Context, n int) ([]store.Operation, error) {
	if err := s.FlushCalls(ctx); err != nil { // the newest thumbnails
		return nil, fmt.Errorf("control: recent: %w", err)
	}
	var ops []store.Operation
	err := s.st.View(ctx, func(tx *store.Tx) error {
		var err error
		ops, err = tx.RecentOperations(n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("control: recent: %w", err)
	}
	return ops, nil
}

// RecentActions returns up to n pauses, resumes and other recorded actions,
// newest first (for the box page's Activity).
func (s *Service) RecentActions(ctx context.Context, n int) ([]store.Action, error) {
	if err := s.FlushCalls(ctx); err != nil {
		return nil, fmt.Errorf("control: recent actions: %w", err)
	}
	var acts []store.Action
	err := s.st.View(ctx, func(tx *store.Tx) error {
		var err error
		acts, err = tx.RecentActions(n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("control: recent actions: %w", err)
	}
	return acts, nil
}

// pruneInterval is how often the journal, actions and events are pruned.
const pruneInterval = time.Hour

// pruneEvery prunes at start and then every interval until ctx ends.
func (s *Service) pruneEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.prune(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Service) prune(ctx context.Context) {
	var n int64
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		n, err = tx.Prune(s.now())
		return err
	})
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("control: prune the journal", "err", err)
	case n > 0:
		s.log.Info("control: pruned the journal", "rows", n)
	}
}

// RecordCall records a tool call for the box page's Activity when the
// journal does not hold it already: a read, or a call refused before it
// became an operation (PAUSED, RATE_LIMITED, SCOPE_REQUIRED, ...). args
// is the call's arguments as sent; only their summary is kept. Successful
// polls (openlolo_watch, openlolo_operation_status) are not recorded: they
// would bury everything else. The record is written shortly after, in a
// batch (FlushCalls waits for it), so the call pays for no commit.
func (s *Service) RecordCall(ctx context.Context, c Client, tool api.Tool, out api.Outcome, args json.RawMessage) {
	s.recordCall(ctx, c, tool, out, "", args)
}

// recordCall is [Service.RecordCall] of a call for phone.
func (s *Service) recordCall(ctx context.Context, c Client, tool api.Tool, out api.Outcome, phone string, args json.RawMessage) {
	if out.Status != api.StatusFailed && (tool == api.ToolWatch || tool == api.ToolOperationStatus) {
		return
	}
	a := store.Action{At: s.now(), Actor: c.Name, ClientID: c.ID, Action: "call", Tool: string(tool),
		Outcome: string(out.Status), Detail: Summarize(args), RunID: c.Run.ID, RunTitle: c.Run.Title, Phone: phone}
	if a.Actor == "" {
		a.Actor = c.ID
	}
	if out.Error != nil {
		a.Code = string(out.Error.Code)
	}
	s.queueCall(call{action: a, operationID: out.OperationID})
}
