package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIElements: `openlolo call BOX openlolo_elements query=Notes` on
// the simulated phone lists Notes; the text answer (--text) is one line
// per element; a tap by element=… opens it.
func TestCLIElements(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "cli elements")

	found := callJSON(t, store, 0, tb.URL, "openlolo_elements", "query=Notes")
	els, _ := found["elements"].([]any)
	if found["source"] != "sim" || len(els) != 1 {
		t.Fatalf("elements query=Notes: %v", found)
	}
	notes := els[0].(map[string]any)
	if notes["text"] != "Notes" {
		t.Fatalf("element %v, want Notes", notes)
	}
	text, _, code := cli(t, store, "", "call", tb.URL, "openlolo_elements", "query=notes", "limit=5", "--text")
	if code != 0 || !strings.Contains(text, `button "Notes"`) {
		t.Fatalf("--text printed %q (exit %d)", text, code)
	}
	callJSON(t, store, 0, tb.URL, "openlolo_tap", "frame_id="+found["frame_id"].(string),
		"geometry_epoch="+found["geometry_epoch"].(string), "element="+notes["id"].(string))
	if tb.Sim.Screen() != "notes" {
		t.Fatalf("after the CLI tap by element the phone shows %q", tb.Sim.Screen())
	}
}
