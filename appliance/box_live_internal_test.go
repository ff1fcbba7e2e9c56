package appliance

import (
	"context"
	"errors"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// The owner's input on the live view goes through the control verbs: a
// tap on an icon opens the app on the sim, typing types, a press presses;
// each is in the journal and in Activity as the owner's; an agent holding
// control refuses it with CONTROL_BUSY until the owner takes over, and
// giving back lets the agent in again.
func TestOwnerDrivesThroughControl(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	svc, err := control.New(ctx, control.Config{Store: st, Phone: ph})
	if err != nil {
		t.Fatal(err)
	}
	c := controller{s: svc}

	at, ok := ph.IconCenter("Notes")
	if !ok {
		t.Fatal("no Notes icon")
	}
	if err := c.Input(ctx, owner.Input{Kind: owner.InputTap, X: at.X, Y: at.Y}); err != nil {
		t.Fatal(err)
	}
	if ph.Screen() != "notes" {
		t.Fatalf("after the owner's tap on Notes the sim shows %q", ph.Screen())
	}
	if err := c.Input(ctx, owner.Input{Kind: owner.InputText, Text: "milk"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Input(ctx, owner.Input{Kind: owner.InputKey, Key: "backspace"}); err != nil {
		t.Fatal(err)
	}
	if ph.NoteText() != "mil" {
		t.Fatalf("note %q after the owner typed milk and deleted a letter, want mil", ph.NoteText())
	}
	if err := c.Input(ctx, owner.Input{Kind: owner.InputButton, Button: "home"}); err != nil {
		t.Fatal(err)
	}
	if l := c.Lease(); !l.Owner() || l.Name != control.OwnerName {
		t.Fatalf("lease after the owner's input = %+v", l)
	}
	var ae *api.Error
	if err := c.Input(ctx, owner.Input{Kind: owner.InputButton, Button: "back"}); !errors.As(err, &ae) || ae.Code != api.CodeUnsupportedButton {
		t.Fatalf("Back on an iPhone: %v, want UNSUPPORTED_BUTTON", err)
	}

	// An agent takes control once the owner gives it back; the owner is
	// then refused until Take over.
	if err := c.GiveBack(ctx); err != nil {
		t.Fatal(err)
	}
	agent := control.Client{ID: "agent-1", Name: "nightly.py"}
	if r := svc.Control(ctx, agent, api.ControlArgs{Command: api.CommandAcquire}); r.Status != api.StatusOK {
		t.Fatalf("agent acquire: %+v", r.Error)
	}
	err = c.Input(ctx, owner.Input{Kind: owner.InputButton, Button: "home"})
	if !errors.As(err, &ae) || ae.Code != api.CodeControlBusy {
		t.Fatalf("owner input while the agent holds control: %v, want CONTROL_BUSY", err)
	}
	if l := c.Lease(); l.Owner() || l.Name != "nightly.py" {
		t.Fatalf("lease = %+v, want the agent's", l)
	}
	if err := c.TakeOver(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Input(ctx, owner.Input{Kind: owner.InputSwipe, X: 0.5, Y: 0.8, X2: 0.5, Y2: 0.3, Seconds: 0.2}); err != nil {
		t.Fatalf("owner swipe after Take over: %v", err)
	}
	if r := svc.Button(ctx, agent, api.ButtonArgs{Button: "home"}); r.Error == nil || r.Error.Code != api.CodePaused {
		t.Fatalf("agent input after Take over: %+v, want PAUSED", r.Outcome)
	}
	if err := c.GiveBack(ctx); err != nil {
		t.Fatal(err)
	}
	if r := svc.Button(ctx, agent, api.ButtonArgs{Button: "home"}); r.Status != api.StatusOK {
		t.Fatalf("agent input after giving back: %+v", r.Error)
	}

	acts, err := c.Recent(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, a := range acts {
		if a.Client == control.OwnerName {
			mine = append(mine, strings.TrimSpace(a.Tool+a.Action+" "+a.Outcome+" "+a.Code))
		}
	}
	// Refused inputs (UNSUPPORTED_BUTTON, CONTROL_BUSY) are there too,
	// with their codes, as a client's refused calls are.
	want := "resume done|openlolo_swipe succeeded|take_over done|pause done|openlolo_button failed CONTROL_BUSY|release done|openlolo_button failed UNSUPPORTED_BUTTON|openlolo_button succeeded|openlolo_key succeeded|openlolo_type_text succeeded|openlolo_tap succeeded"
	// Rows of one instant may come in either order: compare as sets.
	sorted := func(l []string) string { l = slices.Clone(l); slices.Sort(l); return strings.Join(l, "|") }
	got := sorted(mine)
	if want = sorted(strings.Split(want, "|")); got != want {
		t.Fatalf("the owner's Activity = %q\nwant %q", got, want)
	}
}

// On a box of several phones the box page's phones drive their own phone:
// the owner's tap on sim-2's live view opens Notes on sim-2 only, and the
// box-wide pause pauses every phone.
func TestOwnerDrivesEachPhone(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var sims []*sim.Phone
	var att []control.Attached
	for _, id := range []string{"sim-1", "sim-2", "sim-3"} {
		ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
		if err != nil {
			t.Fatal(err)
		}
		defer ph.Close()
		sims = append(sims, ph)
		att = append(att, control.Attached{ID: id, Phone: ph})
	}
	svc, err := control.New(ctx, control.Config{Store: st, Phones: att})
	if err != nil {
		t.Fatal(err)
	}
	phones := boxPhones(svc)
	if len(phones) != 3 || phones[1].ID != "sim-2" || phones[1].Phone != sims[1] {
		t.Fatalf("boxPhones = %+v", phones)
	}
	at, ok := sims[1].IconCenter("Notes")
	if !ok {
		t.Fatal("no Notes icon")
	}
	if err := phones[1].Driver.Input(ctx, owner.Input{Kind: owner.InputTap, X: at.X, Y: at.Y}); err != nil {
		t.Fatal(err)
	}
	if sims[1].Screen() != "notes" || sims[0].Screen() == "notes" || sims[2].Screen() == "notes" {
		t.Fatalf("after the owner's tap on sim-2's Notes the sims show %q, %q, %q", sims[0].Screen(), sims[1].Screen(), sims[2].Screen())
	}
	if err := boxController(svc).Pause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	for _, p := range phones {
		if !p.Control.Lease().Paused {
			t.Errorf("%s is not paused after the box-wide pause", p.ID)
		}
	}
	st1, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st1.Close()
	one, err := control.New(ctx, control.Config{Store: st1, Phone: sims[0]})
	if err != nil {
		t.Fatal(err)
	}
	if boxPhones(one) != nil || boxController(one).all {
		t.Error("a box of one phone lists phones, or pauses box-wide")
	}
}
