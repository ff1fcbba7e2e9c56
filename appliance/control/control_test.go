package control_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"image"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

type env struct {
	t     *testing.T
	dir   string
	st    *store.Store
	ph    *controltest.Phone
	clock *controltest.Clock
	svc   *control.Service
	grant *grants
}

type grants struct {
	mu      sync.Mutex
	revoked map[string]bool
}

func (g *grants) GrantActive(ctx context.Context, id string) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.revoked[id], nil
}

func (g *grants) revoke(id string) { g.mu.Lock(); g.revoked[id] = true; g.mu.Unlock() }

func newEnv(t *testing.T, lim control.Limits) *env {
	t.Helper()
	return newEnvWith(t, lim)
}

// newEnvWith is newEnv with opts applied to the Service's Config.
func newEnvWith(t *testing.T, lim control.Limits, opts ...func(*control.Config)) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), clock: controltest.NewClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)),
		grant: &grants{revoked: map[string]bool{}}}
	e.ph = controltest.New(e.clock.Now)
	e.start(lim, opts...)
	return e
}

// start opens the store and a Service (again, for restart tests).
func (e *env) start(lim control.Limits, opts ...func(*control.Config)) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := control.Config{Store: st, Phone: e.ph, Now: e.clock.Now, Limits: lim, Grants: e.grant}
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := control.New(ctx, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.st, e.svc = st, svc
	e.t.Cleanup(func() { cancel(); st.Close() })
}

func (e *env) stop() { e.st.Close() }

var (
	alice = control.Client{ID: "alice", Name: "alice's script", GrantID: "g-alice"}
	bob   = control.Client{ID: "bob", Name: "bob's agent", GrantID: "g-bob"}
)

// key is a simple input call.
func keyCall(c control.Client, id string, ph phone.Phone, name string) control.Call[api.KeyResult] {
	return control.Call[api.KeyResult]{Client: c, Tool: api.ToolKey, OperationID: id, Args: map[string]string{"key": name}, Input: true,
		Run: func(ctx context.Context) (*api.KeyResult, error) {
			rep, err := ph.Key(ctx, phone.Key{Name: name})
			return &api.KeyResult{Reports: rep.Reports}, err
		}}
}

func touchCall(c control.Client, ph phone.Phone, ref *control.FrameRef, d time.Duration) control.Call[api.SwipeResult] {
	return control.Call[api.SwipeResult]{Client: c, Tool: api.ToolSwipe, Args: map[string]any{"d": d.String(), "ref": ref}, Input: true, Frame: ref,
		Run: func(ctx context.Context) (*api.SwipeResult, error) {
			_, err := ph.Touch(ctx, phone.Swipe(phone.Point{X: 0.5, Y: 0.8}, phone.Point{X: 0.5, Y: 0.2}, 0, d, 0, 60))
			return nil, err
		}}
}

func wantCode[R any](t *testing.T, a control.Answer[R], code api.Code) {
	t.Helper()
	if code == "" {
		if a.Status != api.StatusOK {
			t.Fatalf("answer %s %+v, want ok", a.Status, a.Error)
		}
		return
	}
	if a.Status != api.StatusFailed || a.Error == nil || a.Error.Code != code {
		t.Fatalf("answer %s %+v, want failed %s", a.Status, a.Error, code)
	}
	if a.Error.Message == "" || len(a.Error.NextSteps) == 0 {
		t.Fatalf("error %s has no message or next steps: %+v", code, a.Error)
	}
}

const (
	id1 = "11111111-1111-4111-8111-111111111111"
	id2 = "22222222-2222-4222-8222-222222222222"
)

func TestLeaseBusyAndLapse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		start, _ := e.svc.Events(ctx, bob, control.WatchRequest{})
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
		if l := e.svc.Lease(); l.Holder != "alice" || !l.Expires.Equal(e.clock.Now().Add(90*time.Second)) {
			t.Fatalf("lease after alice's input = %+v", l)
		}
		a := control.Do(ctx, e.svc, keyCall(bob, "", e.ph, "b"))
		wantCode(t, a, api.CodeControlBusy)
		if *a.Dispatched || a.Error.RetryAfterMS != 90000 {
			t.Fatalf("busy answer dispatched=%v retry_after=%d", *a.Dispatched, a.Error.RetryAfterMS)
		}
		// Reads do not renew; 89 s later alice still holds it.
		e.clock.Advance(89 * time.Second)
		wantCode(t, control.Do(ctx, e.svc, keyCall(bob, "", e.ph, "b")), api.CodeControlBusy)
		e.clock.Advance(time.Second)
		if l := e.svc.Lease(); l.Holder != "" {
			t.Fatalf("lease at 90 s = %+v, want lapsed", l)
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(bob, "", e.ph, "b")), "")
		var events []string
		cursor := start.Cursor
		for len(events) < 3 {
			res, err := e.svc.Events(ctx, bob, control.WatchRequest{Cursor: cursor, Wait: time.Second, Kinds: []api.EventKind{"control"}})
			if err != nil || len(res.Events) == 0 {
				break
			}
			for _, ev := range res.Events {
				events = append(events, fmt.Sprint(ev.Control.Event, "/", ev.Control.Client))
			}
			cursor = res.Cursor
		}
		if want := "[acquired/alice's script lapsed/alice's script acquired/bob's agent]"; fmt.Sprint(events) != want {
			t.Fatalf("control events %v, want %s", events, want)
		}
		if e.ph.Inputs() != 2 {
			t.Fatalf("phone saw %d inputs, want 2", e.ph.Inputs())
		}
		// Control commands: release by a non-holder is refused, by the holder frees it.
		if _, err := e.svc.ControlCommand(ctx, alice, "release"); !isCode(err, api.CodeControlBusy) {
			t.Fatalf("alice release while bob holds = %v", err)
		}
		if _, err := e.svc.ControlCommand(ctx, alice, "renew"); !isCode(err, api.CodeControlBusy) {
			t.Fatalf("alice renew while bob holds = %v", err)
		}
		if _, err := e.svc.ControlCommand(ctx, bob, "release"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.ControlCommand(ctx, alice, "renew"); !isCode(err, api.CodeControlRequired) {
			t.Fatalf("renew of a free lease = %v, want CONTROL_REQUIRED", err)
		}
		if _, err := e.svc.ControlCommand(ctx, alice, "acquire"); err != nil {
			t.Fatal(err)
		}
		if e.svc.Lease().Holder != "alice" {
			t.Fatal("acquire did not take a free lease")
		}
	})
}

func isCode(err error, code api.Code) bool {
	var e *control.Error
	return errors.As(err, &e) && e.Code == code
}

func TestReplayConflictAndRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		first := control.Do(ctx, e.svc, keyCall(alice, id1, e.ph, "a"))
		wantCode(t, first, "")
		again := control.Do(ctx, e.svc, keyCall(alice, id1, e.ph, "a"))
		wantCode(t, again, "")
		if !again.Replayed || again.OperationID != id1 {
			t.Fatalf("replay = %+v", again)
		}
		if e.ph.Inputs() != 1 {
			t.Fatalf("phone saw %d inputs after a replay, want 1", e.ph.Inputs())
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, id1, e.ph, "b")), api.CodeOperationConflict)
		if _, err := e.svc.Operation(ctx, bob, id1); err == nil || err.Code != api.CodeOperationNotFound {
			t.Fatalf("bob reading alice's operation = %v, want OPERATION_NOT_FOUND", err)
		}
		op, err := e.svc.Operation(ctx, alice, id1)
		if err != nil || op.State != store.OpSucceeded || op.Tool != "openlolo_key" {
			t.Fatalf("OperationStatus = %+v, %v", op, err)
		}

		// A restart keeps the journal: the same call still replays.
		e.stop()
		e.start(control.Limits{})
		again = control.Do(ctx, e.svc, keyCall(alice, id1, e.ph, "a"))
		wantCode(t, again, "")
		if !again.Replayed || e.ph.Inputs() != 1 {
			t.Fatalf("replay after restart = %+v, inputs %d", again, e.ph.Inputs())
		}
	})
}

func TestDispatchedAtStopIsOutcomeUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		now := e.clock.Now()
		err := e.st.Update(ctx, func(tx *store.Tx) error {
			return tx.InsertOperation(store.Operation{ID: id2, ClientID: alice.ID, ClientName: alice.Name, Tool: "openlolo_key",
				Fingerprint: "x", State: store.OpDispatched, Created: now, Updated: now})
		})
		if err != nil {
			t.Fatal(err)
		}
		e.stop()
		e.start(control.Limits{})
		op, e2 := e.svc.Operation(ctx, alice, id2)
		if e2 != nil || op.State != store.OpOutcomeUnknown || api.Code(op.Code) != api.CodeOutcomeUnknown {
			t.Fatalf("after restart: %+v, %v", op, e2)
		}
	})
}

func TestPauseMidSwipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		shot, err := e.svc.TakeFrame(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		ref := &control.FrameRef{ID: shot.ID, Epoch: shot.Epoch}
		done := make(chan control.Answer[api.SwipeResult])
		go func() { done <- control.Do(ctx, e.svc, touchCall(alice, e.ph, ref, 10*time.Second)) }()
		// Wait until the swipe runs, then pause (as bob: anyone may).
		waitFor(t, func() bool {
			ops, _ := e.svc.Recent(ctx, 1)
			return len(ops) == 1 && ops[0].State == store.OpDispatched
		})
		released := e.ph.Released()
		if err := e.svc.Pause(ctx, bob.Name); err != nil {
			t.Fatal(err)
		}
		var a control.Answer[api.SwipeResult]
		select {
		case a = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("pause did not stop the running swipe")
		}
		wantCode(t, a, api.CodeOutcomeUnknown)
		if !*a.Dispatched || e.ph.Inputs() != 0 || e.ph.Released() <= released {
			t.Fatalf("dispatched=%v inputs=%d released %d→%d", *a.Dispatched, e.ph.Inputs(), released, e.ph.Released())
		}
		if !e.svc.Lease().Paused {
			t.Fatal("not paused")
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), api.CodePaused)
		if _, err := e.svc.ControlCommand(ctx, alice, "resume"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
	})
}

// waitFor lets every goroutine of the test's bubble run until it blocks,
// then checks cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatal("condition not reached once every goroutine waited")
	}
}

func TestFramesPerClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		shotA, _ := e.svc.TakeFrame(ctx, alice)
		refA := control.FrameRef{ID: shotA.ID, Epoch: shotA.Epoch}
		// bob's screenshots never expire alice's frame.
		if _, err := e.svc.TakeFrame(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.CheckFrame(alice, refA); err != nil {
			t.Fatalf("alice's frame after bob's screenshot: %v", err)
		}
		if err := e.svc.CheckFrame(control.Client{ID: "carol"}, refA); err == nil || err.Code != api.CodeFrameExpired {
			t.Fatalf("a client without a screenshot used alice's frame: %v", err)
		}
		cases := []struct {
			name string
			prep func()
			ref  func() control.FrameRef
		}{
			{"newer frame", func() { e.ph.Key(ctx, phone.Key{Name: "a"}); e.svc.TakeFrame(ctx, alice) }, func() control.FrameRef { return refA }},
			{"wrong epoch", func() {}, func() control.FrameRef {
				s, _ := e.svc.TakeFrame(ctx, alice)
				return control.FrameRef{ID: s.ID, Epoch: "999"}
			}},
			{"foreign id", func() {}, func() control.FrameRef { return control.FrameRef{ID: "abc-1", Epoch: "1"} }},
			{"older than 120 s", func() {}, func() control.FrameRef {
				s, _ := e.svc.TakeFrame(ctx, alice)
				e.clock.Advance(121 * time.Second)
				return control.FrameRef{ID: s.ID, Epoch: s.Epoch}
			}},
			{"geometry changed", func() {}, func() control.FrameRef {
				s, _ := e.svc.TakeFrame(ctx, alice)
				e.ph.SetSize(image.Pt(160, 90))
				return control.FrameRef{ID: s.ID, Epoch: s.Epoch}
			}},
		}
		for _, c := range cases {
			c.prep()
			ref := c.ref()
			a := control.Do(ctx, e.svc, touchCall(alice, e.ph, &ref, 0))
			if a.Error == nil || a.Error.Code != api.CodeFrameExpired || *a.Dispatched {
				t.Errorf("%s: answer %+v %+v, want FRAME_EXPIRED, not dispatched", c.name, a.Status, a.Error)
			}
		}
		// A fresh frame works.
		s, _ := e.svc.TakeFrame(ctx, alice)
		wantCode(t, control.Do(ctx, e.svc, touchCall(alice, e.ph, &control.FrameRef{ID: s.ID, Epoch: s.Epoch}, 0)), "")
	})
}

func TestRateWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{CallsPerMinute: 5})
		for i := 0; i < 5; i++ {
			if _, err := e.svc.Allow(alice); err != nil {
				t.Fatalf("call %d refused: %v", i, err)
			}
			e.clock.Advance(time.Second)
		}
		_, err := e.svc.Allow(alice)
		if err == nil || err.Code != api.CodeRateLimited || err.RetryAfterMS != 55000 {
			t.Fatalf("6th call = %+v, want RATE_LIMITED after 55000 ms", err)
		}
		if _, err := e.svc.Allow(bob); err != nil {
			t.Fatalf("bob limited by alice's calls: %v", err)
		}
		e.clock.Advance(55 * time.Second) // the first call leaves the window
		if _, err := e.svc.Allow(alice); err != nil {
			t.Fatalf("after the window slid: %v", err)
		}
		if _, err := e.svc.Allow(alice); err == nil {
			t.Fatal("second call after one slot freed was allowed")
		}
		if n := e.svc.CallsLeft(alice); n != 0 {
			t.Fatalf("CallsLeft = %d, want 0", n)
		}
	})
}

func TestQueueFullAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{Queue: 2})
		ctx := context.Background()
		shot, _ := e.svc.TakeFrame(ctx, alice)
		ref := &control.FrameRef{ID: shot.ID, Epoch: shot.Epoch}
		running := make(chan control.Answer[api.SwipeResult], 1)
		go func() { running <- control.Do(ctx, e.svc, touchCall(alice, e.ph, ref, 3*time.Second)) }()
		waitFor(t, func() bool {
			ops, _ := e.svc.Recent(ctx, 1)
			return len(ops) == 1 && ops[0].State == store.OpDispatched
		})
		ids := []string{"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"}
		queued := make(chan control.Answer[api.KeyResult], 2)
		for i, id := range ids {
			go func() { queued <- control.Do(ctx, e.svc, keyCall(alice, id, e.ph, fmt.Sprint(i))) }()
		}
		waitFor(t, func() bool { ops, _ := e.svc.Recent(ctx, 3); return len(ops) == 3 })
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "z")), api.CodeQueueFull)
		// A pending duplicate answers pending.
		if a := control.Do(ctx, e.svc, keyCall(alice, ids[0], e.ph, "0")); a.Status != api.StatusPending {
			t.Fatalf("duplicate of a queued operation = %+v", a)
		}
		// bob cannot cancel alice's; alice cancels her queued one.
		if _, err := e.svc.CancelOp(ctx, bob, ids[0]); !isCode(err, api.CodeOperationNotFound) {
			t.Fatalf("bob cancelling alice's op = %v", err)
		}
		if _, err := e.svc.CancelOp(ctx, alice, ids[0]); err != nil {
			t.Fatal(err)
		}
		a := <-queued
		if a.OperationID != ids[0] {
			a, _ = <-queued, 0
		}
		wantCode(t, a, api.CodeCancelled)
		if *a.Dispatched {
			t.Fatal("a cancelled queued input was dispatched")
		}
		wantCode(t, <-running, "")
		wantCode(t, <-queued, "")
		if e.ph.Inputs() != 2 {
			t.Fatalf("inputs = %d, want 2 (swipe and the uncancelled key)", e.ph.Inputs())
		}
	})
}

func TestWatchOrderAndCursors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		first, err := e.svc.Events(ctx, alice, control.WatchRequest{})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, id1, e.ph, "a")), "")
		wantCode(t, control.Do(ctx, e.svc, keyCall(bob, "", e.ph, "b")), api.CodeControlBusy)
		if _, err := e.svc.ControlCommand(ctx, alice, "release"); err != nil {
			t.Fatal(err)
		}
		var got []api.Event
		cursor := first.Cursor
		seen := map[string]bool{}
		for len(got) < 6 {
			res, err := e.svc.Events(ctx, alice, control.WatchRequest{Cursor: cursor, Wait: 2 * time.Second, Kinds: []api.EventKind{"operation", "control"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) == 0 {
				break
			}
			for _, ev := range res.Events {
				c := ev.Cursor
				if seen[c] {
					t.Fatalf("event %s delivered twice", c)
				}
				seen[c] = true
			}
			got = append(got, res.Events...)
			cursor = res.Cursor
		}
		var seq []string
		for _, ev := range got {
			switch ev.Kind {
			case "operation":
				seq = append(seq, "op:"+ev.Operation.State)
			case "control":
				seq = append(seq, "control:"+ev.Control.Event)
			}
		}
		want := []string{"control:acquired", "op:queued", "op:dispatched", "op:succeeded", "control:released"}
		if fmt.Sprint(seq) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", seq, want)
		}
		// bob sees control events but not alice's operations.
		res, _ := e.svc.Events(ctx, bob, control.WatchRequest{Cursor: first.Cursor, Kinds: []api.EventKind{"operation"}})
		if len(res.Events) != 0 {
			t.Fatalf("bob saw alice's operations: %v", res.Events)
		}
		// An empty watch returns the same cursor after its wait.
		again, _ := e.svc.Events(ctx, alice, control.WatchRequest{Cursor: cursor, Wait: 50 * time.Millisecond, Kinds: []api.EventKind{"operation"}})
		if len(again.Events) != 0 {
			t.Fatalf("events after the last cursor: %v", again.Events)
		}
		for _, bad := range []string{"x", "c-1", "c999999", "c1x"} {
			if _, err := e.svc.Events(ctx, alice, control.WatchRequest{Cursor: bad}); err == nil || err.Code != api.CodeCursorExpired {
				t.Errorf("cursor %q: %v, want CURSOR_EXPIRED", bad, err)
			}
		}
	})
}

func TestWatchEndsOnRevokedGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		done := make(chan control.WatchResult)
		go func() {
			res, _ := e.svc.Events(ctx, alice, control.WatchRequest{Wait: 30 * time.Second, Kinds: []api.EventKind{"operation"}})
			done <- res
		}()
		synctest.Wait() // the watch is held
		start := time.Now()
		e.grant.revoke(alice.GrantID)
		select {
		case res := <-done:
			if !res.Revoked || len(res.Events) != 1 || res.Events[0].Kind != "access" {
				t.Fatalf("watch result %+v", res)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("the watch ended %v after the revoke, want within a second", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("held watch did not end after the grant was revoked")
		}
	})
}

func TestFrameEventsCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		start, _ := e.svc.Events(ctx, alice, control.WatchRequest{})
		for i := 0; i < 10; i++ {
			e.ph.Key(ctx, phone.Key{Name: "a"})
		}
		time.Sleep(400 * time.Millisecond) // the bubble's clock: past the coalescing window
		synctest.Wait()
		res, err := e.svc.Events(ctx, alice, control.WatchRequest{Cursor: start.Cursor, Kinds: []api.EventKind{"frame"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Events); n < 1 || n > 2 {
			t.Fatalf("10 quick frames gave %d frame events, want 1 or 2 (coalesced per 250 ms)", n)
		}
		if last := res.Events[len(res.Events)-1].Frame.Seq; last != 11 {
			t.Fatalf("last frame event seq %v, want 11 (the newest)", last)
		}
	})
}

func TestAccessExpiringOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		c := alice
		c.GrantExpires = e.clock.Now().Add(10 * time.Minute)
		// The first watch notices the grant ends soon; the event is
		// written by the log's writer, so that watch or the next one has
		// it, once.
		access := []api.EventKind{"access"}
		before, _ := e.svc.Events(ctx, bob, control.WatchRequest{}) // bob's grant does not end
		start, _ := e.svc.Events(ctx, c, control.WatchRequest{Kinds: access})
		res := start
		if len(res.Events) == 0 {
			var err *control.Error
			if res, err = e.svc.Events(ctx, c, control.WatchRequest{Cursor: start.Cursor, Wait: 2 * time.Second, Kinds: access}); err != nil {
				t.Fatal(err)
			}
		}
		if len(res.Events) != 1 || res.Events[0].Access.Event != "expiring" {
			t.Fatalf("first watches %+v then %+v", start, res)
		}
		again, _ := e.svc.Events(ctx, c, control.WatchRequest{Cursor: res.Cursor, Wait: 300 * time.Millisecond, Kinds: access})
		if len(again.Events) != 0 {
			t.Fatalf("expiring told twice: %v", again.Events)
		}
		other, _ := e.svc.Events(ctx, bob, control.WatchRequest{Cursor: before.Cursor, Kinds: access})
		if len(other.Events) != 0 {
			t.Fatalf("bob saw alice's access event: %v", other.Events)
		}
	})
}

// TestRefusalsAreNotJournaled: a control command refused before it ran
// keeps its operation_id free, so the same call works once the refusal no
// longer holds.
func TestRefusalsAreNotJournaled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
		acquire := func(c control.Client) control.Call[api.ControlResult] {
			return control.Call[api.ControlResult]{Client: c, Tool: api.ToolControl, OperationID: id2, Args: "acquire",
				Check: func() *control.Error { return e.svc.CheckCommand(c, "acquire") },
				Run:   func(ctx context.Context) (*api.ControlResult, error) { return e.svc.ControlCommand(ctx, c, "acquire") }}
		}
		wantCode(t, control.Do(ctx, e.svc, acquire(bob)), api.CodeControlBusy)
		if _, err := e.svc.Operation(ctx, bob, id2); err == nil {
			t.Fatal("a refused acquire was journaled")
		}
		e.clock.Advance(91 * time.Second)
		a := control.Do(ctx, e.svc, acquire(bob))
		wantCode(t, a, "")
		if a.Replayed || e.svc.Lease().Holder != "bob" {
			t.Fatalf("retry after the lapse: %+v, lease %+v", a, e.svc.Lease())
		}
		if err := e.svc.CheckCommand(alice, "dance"); err == nil || err.Code != api.CodeInvalidArguments {
			t.Fatalf("unknown command: %v", err)
		}
	})
}

// TestOperationIDsPerClient pins issue 22 D4: operation ids were shared
// across clients, so bob reusing alice's id was told about alice's
// pending ask, and bob taking an id first made alice's later call
// OPERATION_CONFLICT. Each client's ids are its own (DESIGN §3.5).
func TestOperationIDsPerClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		// An ask: bob's call under alice's pending id gets bob's own ask.
		aliceAsk := wantPending(t, launchSettings(e, alice, id1).Answer, id1)
		bobAsk := wantPending(t, launchSettings(e, bob, id1).Answer, id1)
		if bobAsk.ID == aliceAsk.ID {
			t.Fatalf("bob's call under alice's id got alice's ask %s", aliceAsk.ID)
		}
		pend, err := e.svc.PendingAsks(ctx)
		if err != nil || len(pend) != 2 {
			t.Fatalf("PendingAsks = %+v, %v; want alice's and bob's", pend, err)
		}
		// The journal: bob takes id2 first; alice's id2 still runs, and
		// each reads back its own.
		wantCode(t, control.Do(ctx, e.svc, keyCall(bob, id2, e.ph, "a")), "")
		if _, err := e.svc.ControlCommand(ctx, bob, "release"); err != nil {
			t.Fatal(err)
		}
		mine := control.Do(ctx, e.svc, keyCall(alice, id2, e.ph, "b"))
		wantCode(t, mine, "")
		if mine.Replayed || e.ph.Inputs() != 2 {
			t.Fatalf("alice's call under bob's id: replayed %v, phone saw %d inputs; want it run", mine.Replayed, e.ph.Inputs())
		}
		for _, c := range []control.Client{alice, bob} {
			op, err := e.svc.Operation(ctx, c, id2)
			if err != nil || op.ClientID != c.ID {
				t.Errorf("%s's operation %s = %+v, %v", c.ID, id2, op, err)
			}
		}
		// Each replays its own; other arguments are still a conflict.
		if again := control.Do(ctx, e.svc, keyCall(bob, id2, e.ph, "a")); !again.Replayed || e.ph.Inputs() != 2 {
			t.Fatalf("bob's retry: %+v, inputs %d", again, e.ph.Inputs())
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, id2, e.ph, "a")), api.CodeOperationConflict)
	})
}
