package control_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

// The owner's pause holds against every client: resume answers PAUSED with
// a next step naming the owner, input stays refused, and only the owner's
// Resume lifts it. A client's pause stays liftable by the control holder.
// Activity's actions log says who paused and resumed.
func TestOwnerPauseOnlyOwnerLifts(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	// alice holds control, then the owner pauses.
	wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")
	at := e.clock.Now()
	if err := e.svc.OwnerPause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	l := e.svc.Lease()
	if !l.Paused || !l.PausedByOwner || l.PausedBy != "owner" || !l.PausedAt.Equal(at) {
		t.Fatalf("lease after the owner's pause = %+v", l)
	}
	for _, who := range []control.Client{alice, bob} {
		r := e.svc.Control(ctx, who, api.ControlArgs{Command: api.CommandResume})
		wantCode(t, r.Answer, api.CodePaused)
		if !strings.Contains(strings.Join(r.Error.NextSteps, " "), "owner") || !strings.Contains(r.Error.Message, "owner") {
			t.Fatalf("%s's resume refusal does not say the owner paused: %+v", who.Name, r.Error)
		}
		if _, err := e.svc.ControlCommand(ctx, who, api.CommandResume); err == nil {
			t.Fatalf("%s's ControlCommand resume lifted the owner's pause", who.Name)
		}
	}
	if !e.svc.Lease().Paused {
		t.Fatal("a client lifted the owner's pause")
	}
	a := control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a"))
	wantCode(t, a, api.CodePaused)
	if !strings.Contains(strings.Join(a.Error.NextSteps, " "), "owner") {
		t.Fatalf("input refusal during the owner's pause: %+v", a.Error)
	}
	// A client's pause on top does not make it liftable by clients.
	if r := e.svc.PauseInput(ctx, bob, api.PauseArgs{}); r.Status != api.StatusOK {
		t.Fatalf("bob's pause: %+v", r.Error)
	}
	wantCode(t, e.svc.Control(ctx, alice, api.ControlArgs{Command: api.CommandResume}).Answer, api.CodePaused)
	if err := e.svc.Resume(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	if l := e.svc.Lease(); l.Paused || l.PausedByOwner || l.PausedBy != "" || !l.PausedAt.IsZero() {
		t.Fatalf("lease after the owner's resume = %+v", l)
	}
	wantCode(t, control.Do(ctx, e.svc, keyCall(alice, "", e.ph, "a")), "")

	// A client's pause: the holder resumes it.
	if r := e.svc.PauseInput(ctx, bob, api.PauseArgs{}); r.Status != api.StatusOK {
		t.Fatalf("bob's pause: %+v", r.Error)
	}
	if l := e.svc.Lease(); !l.Paused || l.PausedByOwner || l.PausedBy != bob.Name {
		t.Fatalf("lease after bob's pause = %+v", l)
	}
	wantCode(t, e.svc.Control(ctx, alice, api.ControlArgs{Command: api.CommandResume}).Answer, "")
	if e.svc.Lease().Paused {
		t.Fatal("the holder's resume did not lift a client's pause")
	}

	acts, err := e.svc.RecentActions(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(acts) - 1; i >= 0; i-- {
		got = append(got, acts[i].Actor+" "+acts[i].Action)
	}
	want := "owner pause|bob's agent pause|owner resume|bob's agent pause|alice's script resume"
	if strings.Join(got, "|") != want {
		t.Fatalf("actions = %q, want %q", strings.Join(got, "|"), want)
	}
	if acts[0].ClientID != alice.ID || acts[len(acts)-1].ClientID != "" {
		t.Fatalf("action client ids: %+v", acts)
	}
}
