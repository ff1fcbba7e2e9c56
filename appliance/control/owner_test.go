package control_test

import (
	"context"
	"image"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

func ptr[T any](v T) *T { return &v }

// ownerTap is the box page's tap: the owner's frame now, then the verb.
func ownerTap(t *testing.T, e *env, epoch string) control.Reply[api.TapResult] {
	t.Helper()
	fa, ferr := e.svc.OwnerFrame(context.Background(), epoch, 0.5, 0.5)
	if ferr != nil {
		return control.Reply[api.TapResult]{Answer: control.Refuse[api.TapResult](ferr)}
	}
	return e.svc.Tap(context.Background(), control.Owner(), api.TapArgs{FrameArgs: fa})
}

// The owner is a client of its own: its first input takes the free lease
// (90 s, renewed by each input), an agent then meets CONTROL_BUSY naming
// the owner, and the lease lapses like anyone's.
func TestOwnerInputTakesItsOwnLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		wantCode(t, ownerTap(t, e, "").Answer, "")
		if l := e.svc.Lease(); l.Holder != control.OwnerID || l.Name != control.OwnerName {
			t.Fatalf("lease after the owner's tap = %+v", l)
		}
		a := control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a"))
		wantCode(t, a, api.CodeControlBusy)
		if !strings.Contains(a.Error.Message, control.OwnerName) {
			t.Fatalf("busy refusal does not name the owner: %+v", a.Error)
		}
		e.clock.Advance(91 * time.Second)
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
		// Now alice holds it: the owner's input is refused the same way
		// (the page then offers Take over).
		r := ownerTap(t, e, "")
		wantCode(t, r.Answer, api.CodeControlBusy)
		if *r.Dispatched {
			t.Fatal("a refused owner tap says it was dispatched")
		}
		if e.ph.Inputs() != 2 {
			t.Fatalf("phone saw %d inputs, want 2 (the owner's tap, alice's key)", e.ph.Inputs())
		}
	})
}

// Take over: while an agent holds control, the owner pauses the agents
// and takes the lease; the agents' inputs and resumes answer PAUSED, the
// owner's inputs run (journaled as the owner's), an agent's own pause
// does not stop them, and Resume hands control back to the agents.
func TestTakeOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, control.Limits{})
		ctx := context.Background()
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
		if err := e.svc.TakeOver(ctx); err != nil {
			t.Fatal(err)
		}
		l := e.svc.Lease()
		if l.Holder != control.OwnerID || !l.Paused || !l.PausedByOwner {
			t.Fatalf("lease after Take over = %+v", l)
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "b")), api.CodePaused)
		wantCode(t, e.svc.Control(ctx, alice, api.ControlArgs{Command: api.CommandResume}).Answer, api.CodePaused)
		wantCode(t, e.svc.Control(ctx, bob, api.ControlArgs{Command: api.CommandAcquire}).Answer, api.CodeControlBusy)

		before := e.ph.Inputs()
		tap := ownerTap(t, e, "")
		wantCode(t, tap.Answer, "")
		txt := e.svc.TypeText(ctx, control.Owner(), api.TypeTextArgs{Text: ptr("hi")})
		wantCode(t, txt.Answer, "")
		// An agent's openlolo_pause stops agents, not the owner.
		if r := e.svc.PauseInput(ctx, bob, api.PauseArgs{}); r.Status != api.StatusOK {
			t.Fatalf("bob's pause: %+v", r.Error)
		}
		wantCode(t, e.svc.Button(ctx, control.Owner(), api.ButtonArgs{Button: api.Button("home")}).Answer, "")
		if got := e.ph.Inputs() - before; got != 3 || e.ph.Typed() != "hi" {
			t.Fatalf("the owner's inputs reached the phone %d times (typed %q), want 3 and \"hi\"", got, e.ph.Typed())
		}
		if l := e.svc.Lease(); !l.PausedByOwner {
			t.Fatalf("bob's pause took the pause from the owner: %+v", l)
		}

		ops, err := e.svc.Recent(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var owned []string
		for _, op := range ops {
			if op.ClientID == control.OwnerID {
				if op.ClientName != control.OwnerName {
					t.Fatalf("owner operation named %q", op.ClientName)
				}
				owned = append(owned, op.Tool+" "+op.State)
			}
		}
		if want := "openlolo_button succeeded|openlolo_type_text succeeded|openlolo_tap succeeded"; strings.Join(owned, "|") != want {
			t.Fatalf("owner's journal = %q, want %q", strings.Join(owned, "|"), want)
		}

		if err := e.svc.GiveBack(ctx); err != nil {
			t.Fatal(err)
		}
		if l := e.svc.Lease(); l.Paused || l.Holder != "" {
			t.Fatalf("lease after giving back = %+v", l)
		}
		wantCode(t, control.Do(ctx, e.svc, keyCall(bob, "", e.ph, "c")), "")

		acts, err := e.svc.RecentActions(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := len(acts) - 1; i >= 0; i-- {
			got = append(got, acts[i].Actor+" "+acts[i].Action)
		}
		want := "owner pause|owner take_over|bob's agent pause|owner resume"
		if strings.Join(got, "|") != want {
			t.Fatalf("actions = %q, want %q", strings.Join(got, "|"), want)
		}
		if !strings.Contains(acts[len(acts)-2].Detail, alice.Name) {
			t.Fatalf("take over detail does not name whom it took over from: %q", acts[len(acts)-2].Detail)
		}
	})
}

// Resume alone (no pause) releases the owner's lease: giving control back
// is one press whatever the state.
func TestResumeReleasesOwnerLease(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	wantCode(t, ownerTap(t, e, "").Answer, "")
	if err := e.svc.Resume(ctx, control.OwnerName); err != nil {
		t.Fatal(err)
	}
	if l := e.svc.Lease(); l.Holder != "" {
		t.Fatalf("lease after resume = %+v", l)
	}
	acts, err := e.svc.RecentActions(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Action != "release" {
		t.Fatalf("actions = %+v, want one release", acts)
	}
}

// The owner's touch is at the live picture; a page showing an older
// geometry (the phone rotated) is refused before anything is sent.
func TestOwnerFrameGeometry(t *testing.T) {
	e := newEnv(t, control.Limits{})
	fa, ferr := e.svc.OwnerFrame(context.Background(), "", 0.25, 0.75)
	if ferr != nil {
		t.Fatal(ferr)
	}
	if *fa.X != 0.25 || *fa.Y != 0.75 || fa.FrameID == "" {
		t.Fatalf("frame args = %+v", fa)
	}
	old := string(fa.GeometryEpoch)
	e.ph.SetSize(image.Pt(800, 400))
	before := e.ph.Inputs()
	r := ownerTap(t, e, old)
	wantCode(t, r.Answer, api.CodeFrameExpired)
	if e.ph.Inputs() != before {
		t.Fatal("a refused owner tap reached the phone")
	}
	wantCode(t, ownerTap(t, e, "").Answer, "")
}

// No OAuth client can carry the owner's id: client ids have no spaces.
func TestOwnerIDIsNoClientID(t *testing.T) {
	if !strings.Contains(control.OwnerID, " ") {
		t.Fatalf("OwnerID %q has no space, so an OAuth client could take it", control.OwnerID)
	}
	if !control.Owner().IsOwner() || alice.IsOwner() {
		t.Fatal("IsOwner")
	}
}

// Box-wide asks (typing, every input) are for the agents: the owner's own
// input on the box page runs without asking, while an agent's waits.
func TestOwnerInputIsNeverAsked(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	if err := e.svc.SetBoxMarks(ctx, []control.Mark{{Kind: api.AskText}, {Kind: api.AskInput}}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.svc.TypeText(ctx, control.Owner(), api.TypeTextArgs{Text: ptr("hi")}).Answer, "")
	wantCode(t, ownerTap(t, e, "").Answer, "")
	if e.ph.Typed() != "hi" {
		t.Fatalf("typed %q, want hi", e.ph.Typed())
	}
	if err := e.svc.GiveBack(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.svc.TypeText(ctx, alice, api.TypeTextArgs{Text: ptr("x")})
	if r.Status != api.StatusPending {
		t.Fatalf("an agent's typing under a box-wide mark answered %s, want pending", r.Status)
	}
}
