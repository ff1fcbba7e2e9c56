package mcp_test

import (
	"os/exec"
	"testing"
)

// TestFindTextJourney: through the real endpoint on the sim, an agent
// finds "Notes" by its text, taps the match's centre with the answer's
// frame, types, finds the typed text on the new screen, and goes home with
// the home shortcut.
func TestFindTextJourney(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("no tesseract here (scripts/deps.sh installs it)")
	}
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "ocr agent", "phone:read phone:control"))
	_, found := call(t, cs, "openlolo_find_text", map[string]any{"query": "Notes"})
	mustOK(t, "find Notes", found)
	ms, _ := found["matches"].([]any)
	if len(ms) != 1 {
		t.Fatalf("matches %v, want one", found["matches"])
	}
	m := ms[0].(map[string]any)
	_, tap := call(t, cs, "openlolo_tap", frameArgs(found, m["center_x"].(float64), m["center_y"].(float64)))
	mustOK(t, "tap Notes", tap)
	if b.sim.Screen() != "notes" {
		t.Fatalf("after tapping %v the sim shows %q", m, b.sim.Screen())
	}
	_, typed := call(t, cs, "openlolo_type_text", map[string]any{"text": "Call the plumber at 5", "observe": false})
	mustOK(t, "type", typed)
	_, again := call(t, cs, "openlolo_find_text", map[string]any{"query": "call the PLUMBER"})
	mustOK(t, "find the note", again)
	if ms, _ := again["matches"].([]any); len(ms) != 1 {
		t.Fatalf("typed text: %v", again)
	}
	_, lines := call(t, cs, "openlolo_find_text", nil)
	mustOK(t, "lines", lines)
	if ls, _ := lines["lines"].([]any); len(ls) < 2 {
		t.Fatalf("lines: %v", lines)
	}
	_, home := call(t, cs, "openlolo_shortcut", map[string]any{"shortcut": "home", "observe": false})
	mustOK(t, "home shortcut", home)
	if b.sim.Screen() != "home" {
		t.Fatalf("after the home shortcut the sim shows %q", b.sim.Screen())
	}
	_, refused := call(t, cs, "openlolo_shortcut", map[string]any{"shortcut": "notifications"})
	if e, _ := refused["error"].(map[string]any); e["code"] != "UNSUPPORTED" {
		t.Fatalf("an Android shortcut on the iPhone: %v", refused)
	}
}
