package mcp_test

import (
	"fmt"
	"testing"
)

// TestWatchOverMCP: frame, control and operation events arrive in order,
// each exactly once across cursors.
func TestWatchOverMCP(t *testing.T) {
	b := newBox(t, boxOpts{})
	cs := b.session(t, "agent", bothScopes)
	_, w := call(t, cs, "openlolo_watch", map[string]any{"wait_ms": 0})
	mustOK(t, "watch", w)
	cursor := w["cursor"].(string)
	_, shot := call(t, cs, "openlolo_screenshot", nil)
	_, r := call(t, cs, "openlolo_tap", frameArgs(shot, 0.5, 0.5))
	mustOK(t, "tap", r)
	_, r = call(t, cs, "openlolo_control", map[string]any{"command": "release"})
	mustOK(t, "release", r)

	seen := map[string]bool{}
	var seq []string
	for i := 0; i < 10; i++ {
		_, w = call(t, cs, "openlolo_watch", map[string]any{"cursor": cursor, "wait_ms": 1500})
		mustOK(t, "watch", w)
		evs := w["events"].([]any)
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			ev := e.(map[string]any)
			c := ev["cursor"].(string)
			if seen[c] {
				t.Fatalf("event %s delivered twice", c)
			}
			seen[c] = true
			switch ev["kind"] {
			case "frame":
				seq = append(seq, "frame")
			case "control":
				seq = append(seq, "control:"+ev["event"].(string))
			case "operation":
				if ev["tool"] == "openlolo_tap" {
					seq = append(seq, "tap:"+ev["state"].(string))
				}
			}
		}
		cursor = w["cursor"].(string)
	}
	// The frame event (the tap changed the picture) follows the tap's
	// dispatch; it comes from the phone's own event stream, so its place
	// relative to "succeeded" is not fixed. Everything else is in order.
	var rest []string
	frameAt, dispatchedAt := -1, -1
	for i, s := range seq {
		switch s {
		case "frame":
			if frameAt < 0 {
				frameAt = i
			}
			continue
		case "tap:dispatched":
			dispatchedAt = i
		}
		rest = append(rest, s)
	}
	want := []string{"control:acquired", "tap:queued", "tap:dispatched", "tap:succeeded", "control:released"}
	if fmt.Sprint(rest) != fmt.Sprint(want) || frameAt < dispatchedAt {
		t.Fatalf("events %v, want %v with a frame after the dispatch", seq, want)
	}
}
