package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/store"
)

// On a box of three phones, over the real HTTPS endpoint: a call naming no
// phone is PHONE_REQUIRED naming them; a tap on sim-2 changes only sim-2's
// screen; a lease on one phone leaves the others free; openlolo_phones
// lists all three with who holds each.
func TestSimPhones(t *testing.T) {
	b := newSimsBox(t, 3)
	ids := []string{"sim-1", "sim-2", "sim-3"}
	cs := b.session(t, b.token(t, "farm agent", "phone:read phone:control"))
	other := b.session(t, b.token(t, "other agent", "phone:read phone:control"))

	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"openlolo_screenshot", nil},
		{"openlolo_status", nil},
		{"openlolo_tap", map[string]any{"frame_id": "00-1", "geometry_epoch": "1", "x": 0.5, "y": 0.5}},
		{"openlolo_screenshot", map[string]any{"phone": "sim-9"}},
	} {
		_, sc := call(t, cs, tc.tool, tc.args)
		if code(sc) != api.CodePhoneRequired {
			t.Fatalf("%s %v: %v, want PHONE_REQUIRED", tc.tool, tc.args, sc)
		}
		steps, _ := sc["error"].(map[string]any)["next_steps"].([]any)
		if len(steps) == 0 || !strings.Contains(steps[0].(string), strings.Join(ids, ", ")) {
			t.Errorf("%s: next steps %v do not name the phones", tc.tool, steps)
		}
	}
	for _, ph := range b.sims {
		if ph.Screen() != "home" {
			t.Fatalf("a refused call reached a phone: %q", ph.Screen())
		}
	}

	_, w := call(t, cs, "openlolo_watch", map[string]any{"wait_ms": 0})
	mustOK(t, "watch", w)
	_, shot := call(t, cs, "openlolo_screenshot", map[string]any{"phone": "sim-2"})
	mustOK(t, "screenshot sim-2", shot)
	notes, _ := b.sims[1].IconCenter("Notes")
	args := frameArgs(shot, notes.X, notes.Y)
	args["phone"] = "sim-2"
	_, tap := call(t, cs, "openlolo_tap", args)
	mustOK(t, "tap sim-2", tap)
	var ops []store.Operation
	if err := b.store.View(t.Context(), func(tx *store.Tx) (err error) {
		ops, err = tx.RecentOperations(1)
		return err
	}); err != nil || len(ops) != 1 || ops[0].ID != tap["operation_id"] || ops[0].Phone != "sim-2" {
		t.Fatalf("the journal's last operation: %+v, %v; want the tap on sim-2", ops, err)
	}
	_, w = call(t, cs, "openlolo_watch", map[string]any{"cursor": w["cursor"], "wait_ms": 5000, "kinds": []string{"operation", "control"}})
	evs, _ := w["events"].([]any)
	for _, e := range evs {
		if e.(map[string]any)["phone"] != "sim-2" {
			t.Errorf("an event of the tap on sim-2 names another phone: %v", e)
		}
	}
	if len(evs) == 0 {
		t.Errorf("the tap on sim-2 made no control or operation event")
	}
	if got := []string{b.sims[0].Screen(), b.sims[1].Screen(), b.sims[2].Screen()}; !slices.Equal(got, []string{"home", "notes", "home"}) {
		t.Fatalf("after a tap on sim-2 the phones show %v, want only sim-2 in notes", got)
	}

	// The tap took sim-2's control: the other client is busy there only.
	_, shot3 := call(t, other, "openlolo_screenshot", map[string]any{"phone": "sim-3"})
	args3 := frameArgs(shot3, notes.X, notes.Y)
	args3["phone"] = "sim-3"
	_, tap3 := call(t, other, "openlolo_tap", args3)
	mustOK(t, "other's tap on sim-3", tap3)
	if _, sc := call(t, other, "openlolo_control", map[string]any{"command": "acquire", "phone": "sim-2"}); code(sc) != api.CodeControlBusy {
		t.Fatalf("acquire sim-2 held by another: %v, want CONTROL_BUSY", sc)
	}

	_, list := call(t, cs, "openlolo_phones", nil)
	mustOK(t, "phones", list)
	var got []string
	for _, p := range list["phones"].([]any) {
		p := p.(map[string]any)
		ctl := p["control"].(map[string]any)
		got = append(got, p["id"].(string)+" "+p["state"].(string)+" "+strOr(ctl["holder"]))
	}
	want := []string{"sim-1 ready ", "sim-2 ready farm agent", "sim-3 ready other agent"}
	if !slices.Equal(got, want) {
		t.Fatalf("openlolo_phones: %q, want %q", got, want)
	}

	// The frame is sim-2's: on sim-1 it is no frame of the caller's.
	args["phone"] = "sim-1"
	if _, sc := call(t, cs, "openlolo_tap", args); code(sc) != api.CodeFrameExpired {
		t.Fatalf("sim-2's frame on sim-1: %v, want FRAME_EXPIRED", sc)
	}

	// openlolo_pause naming no phone pauses them all; naming one, that one.
	_, p := call(t, other, "openlolo_pause", map[string]any{"phone": "sim-1"})
	mustOK(t, "pause sim-1", p)
	_, st := call(t, cs, "openlolo_status", map[string]any{"phone": "sim-2"})
	if st["paused"] != false {
		t.Fatalf("pausing sim-1 paused sim-2: %v", st)
	}
	_, p = call(t, other, "openlolo_pause", nil)
	mustOK(t, "pause all", p)
	for _, id := range ids {
		if _, st := call(t, cs, "openlolo_status", map[string]any{"phone": id}); st["paused"] != true {
			t.Fatalf("pause without phone left %s running: %v", id, st)
		}
	}
}

func strOr(v any) string { s, _ := v.(string); return s }

// A grant the owner limited to sim-2, over the real HTTPS endpoint:
// openlolo_phones lists sim-2 alone, a call naming no phone goes to it,
// and a call to sim-1 is PHONE_NOT_GRANTED and reaches nothing.
func TestSimPhonesGrant(t *testing.T) {
	b := newSimsBox(t, 3)
	cs := b.session(t, b.tokenOn(t, "sim-2 agent", "phone:read phone:control", []string{"sim-2"}))
	_, ph := call(t, cs, "openlolo_phones", nil)
	mustOK(t, "phones", ph)
	list, _ := ph["phones"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != "sim-2" {
		t.Fatalf("openlolo_phones for a grant of sim-2: %v", list)
	}
	_, shot := call(t, cs, "openlolo_screenshot", nil)
	mustOK(t, "screenshot naming no phone", shot)
	notes, _ := b.sims[0].IconCenter("Notes")
	args := frameArgs(shot, notes.X, notes.Y)
	args["phone"] = "sim-1"
	_, tap := call(t, cs, "openlolo_tap", args)
	if code(tap) != api.CodePhoneNotGranted || tap["dispatched"] != false {
		t.Fatalf("a tap on sim-1 with a grant of sim-2: %v", tap)
	}
	if b.sims[0].Screen() != "home" {
		t.Fatalf("a refused tap reached sim-1: %q", b.sims[0].Screen())
	}
}
