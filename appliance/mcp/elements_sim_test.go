package mcp_test

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
)

// elementArgs names element e of the answer sc (its frame) for a touch.
func elementArgs(sc map[string]any, e map[string]any) map[string]any {
	return map[string]any{"frame_id": sc["frame_id"], "geometry_epoch": sc["geometry_epoch"], "element": e["id"], "settle": 0}
}

// only is the one element of an elements answer.
func only(t *testing.T, what string, sc map[string]any) map[string]any {
	t.Helper()
	mustOK(t, what, sc)
	els, _ := sc["elements"].([]any)
	if len(els) != 1 {
		t.Fatalf("%s: %d elements, want one: %v", what, len(els), sc)
	}
	return els[0].(map[string]any)
}

// TestElementsJourney is issue 25's acceptance on the sim, through the
// real HTTPS endpoint with a device-flow token: list home's elements, find
// Notes by query, tap it by element, type into the note's field by
// element, list again and read the text in that field; a stale id answers
// FRAME_EXPIRED; Settings' switch, which has no text, is listed.
func TestElementsJourney(t *testing.T) {
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "elements agent", "phone:read phone:control"))

	res, home := call(t, cs, "openlolo_elements", nil)
	mustOK(t, "home", home)
	if home["source"] != "sim" || home["total"].(float64) < 20 {
		t.Fatalf("home: %v", home)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(text, `e9 button "Notes"`) || len(text) > 4096 {
		t.Fatalf("home's text answer (%d bytes) lacks a line for Notes or is over 4 KB:\n%s", len(text), text)
	}

	_, found := call(t, cs, "openlolo_elements", map[string]any{"query": "Notes"})
	notes := only(t, "query Notes", found)
	if notes["text"] != "Notes" || notes["clickable"] != true {
		t.Fatalf("Notes: %v", notes)
	}
	_, tap := call(t, cs, "openlolo_tap", elementArgs(found, notes))
	mustOK(t, "tap Notes by element", tap)
	if b.sim.Screen() != "notes" {
		t.Fatalf("after the tap the sim shows %q", b.sim.Screen())
	}
	// The tap's observation is the caller's latest frame now: the home
	// screen's id is stale.
	_, stale := call(t, cs, "openlolo_tap", elementArgs(found, notes))
	if code(stale) != api.CodeFrameExpired || stale["dispatched"] != false {
		t.Fatalf("stale element: %v", stale)
	}

	_, fields := call(t, cs, "openlolo_elements", map[string]any{"query": "note", "clickable_only": true})
	field := only(t, "the note's field", fields)
	if field["role"] != "text_field" {
		t.Fatalf("field: %v", field)
	}
	typeArgs := elementArgs(fields, field)
	typeArgs["text"] = "Buy oat milk"
	typeArgs["observe"] = false
	_, typed := call(t, cs, "openlolo_type_text", typeArgs)
	mustOK(t, "type by element", typed)
	_, after := call(t, cs, "openlolo_elements", map[string]any{"query": "oat milk"})
	if got := only(t, "the typed text", after); got["role"] != "text_field" || got["text"] != "Buy oat milk" || got["id"] != field["id"] {
		t.Fatalf("after typing: %v", got)
	}

	_, pressed := call(t, cs, "openlolo_button", map[string]any{"button": "home", "observe": false})
	mustOK(t, "home", pressed)
	_, icons := call(t, cs, "openlolo_elements", map[string]any{"query": "settings"})
	_, opened := call(t, cs, "openlolo_tap", elementArgs(icons, only(t, "Settings' icon", icons)))
	mustOK(t, "open Settings", opened)
	_, switches := call(t, cs, "openlolo_elements", map[string]any{"query": "airplane", "clickable_only": true})
	sw := only(t, "the switch", switches)
	if sw["role"] != "switch" || sw["text"] != nil || sw["label"] != "Airplane Mode" {
		t.Fatalf("the switch: %v", sw)
	}
	_, flip := call(t, cs, "openlolo_tap", elementArgs(switches, sw))
	mustOK(t, "tap the switch", flip)
	if !b.sim.AirplaneMode() {
		t.Fatal("the switch did not turn on")
	}
}

// TestElementsPageThroughEndpoint: next_cursor pages on through the
// endpoint with a read-only grant.
func TestElementsPageThroughEndpoint(t *testing.T) {
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "pager", "phone:read"))
	_, first := call(t, cs, "openlolo_elements", map[string]any{"limit": 5})
	mustOK(t, "first page", first)
	next, _ := first["next_cursor"].(string)
	if next == "" {
		t.Fatalf("no next_cursor: %v", first)
	}
	_, second := call(t, cs, "openlolo_elements", map[string]any{"limit": 5, "cursor": next})
	mustOK(t, "second page", second)
	if els := second["elements"].([]any); els[0].(map[string]any)["id"] != "e6" {
		t.Fatalf("second page starts at %v, want e6", els[0])
	}
}
