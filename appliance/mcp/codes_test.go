package mcp_test

import (
	"context"
	"github.com/openlolo/openlolo/api"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
)

const opA = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"

// TestErrorCodes produces each stable error code through the endpoint, in
// the situation that causes it.
func TestErrorCodes(t *testing.T) {
	clock := controltest.NewClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	ph := controltest.New(clock.Now)
	b := newBox(t, boxOpts{phone: ph, clock: clock})
	agent := b.session(t, "agent", bothScopes)
	other := b.session(t, "other", bothScopes)
	reader := b.session(t, "reader", readScope)
	_, shot := call(t, agent, "openlolo_screenshot", nil)
	mustOK(t, "screenshot", shot)

	cases := []struct {
		name     string
		who      string
		tool     string
		args     map[string]any
		code     api.Code
		mutating bool
	}{
		{"bad coordinate", "agent", "openlolo_tap", map[string]any{"frame_id": shot["frame_id"], "geometry_epoch": shot["geometry_epoch"], "x": 1.5, "y": 0.5}, api.CodeInvalidArguments, true},
		{"unknown argument", "agent", "openlolo_status", map[string]any{"verbose": true}, api.CodeInvalidArguments, false},
		{"wrong type", "agent", "openlolo_screenshot", map[string]any{"max_size": "big"}, api.CodeInvalidArguments, false},
		{"max_size range", "agent", "openlolo_screenshot", map[string]any{"max_size": 64}, api.CodeInvalidArguments, false},
		{"bad operation_id", "agent", "openlolo_key", map[string]any{"key": "a", "operation_id": "not-a-uuid"}, api.CodeInvalidArguments, true},
		{"read scope taps", "reader", "openlolo_tap", map[string]any{"frame_id": "x", "geometry_epoch": "1", "x": 0.5, "y": 0.5}, api.CodeScopeRequired, true},
		{"non-ASCII text", "agent", "openlolo_type_text", map[string]any{"text": "héllo"}, api.CodeUnsupportedText, true},
		{"unknown key", "agent", "openlolo_key", map[string]any{"key": "hyper"}, api.CodeUnsupportedKey, true},
		{"back on iOS", "agent", "openlolo_button", map[string]any{"button": "back"}, api.CodeUnsupportedButton, true},
		{"unknown app", "agent", "openlolo_launch_app", map[string]any{"bundle_id": "com.example.nothing"}, api.CodeAppNotFound, true},
		{"ftp url", "agent", "openlolo_open_url", map[string]any{"url": "ftp://example.com/x"}, api.CodeUnsupported, true},
		{"unknown operation", "agent", "openlolo_operation_status", map[string]any{"operation_id": opA}, api.CodeOperationNotFound, false},
		{"unknown cursor", "agent", "openlolo_watch", map[string]any{"cursor": "c99999", "wait_ms": 0}, api.CodeCursorExpired, false},
		{"stale frame", "agent", "openlolo_tap", map[string]any{"frame_id": "00-1", "geometry_epoch": "1", "x": 0.5, "y": 0.5, "observe": false}, api.CodeFrameExpired, true},
		{"first key takes control", "agent", "openlolo_key", map[string]any{"key": "a", "observe": false, "operation_id": opA}, "", true},
		{"same id other args", "agent", "openlolo_key", map[string]any{"key": "b", "observe": false, "operation_id": opA}, api.CodeOperationConflict, true},
		{"other client busy", "other", "openlolo_key", map[string]any{"key": "a", "observe": false}, api.CodeControlBusy, true},
		{"other's operation", "other", "openlolo_operation_status", map[string]any{"operation_id": opA}, api.CodeOperationNotFound, false},
		{"renew without lease", "other", "openlolo_control", map[string]any{"command": "renew"}, api.CodeControlBusy, true},
		{"reader pauses", "reader", "openlolo_pause", map[string]any{}, "", true},
		{"input while paused", "agent", "openlolo_key", map[string]any{"key": "a", "observe": false}, api.CodePaused, true},
		{"holder resumes", "agent", "openlolo_control", map[string]any{"command": "resume"}, "", true},
		{"release", "agent", "openlolo_control", map[string]any{"command": "release"}, "", true},
		{"renew free lease", "agent", "openlolo_control", map[string]any{"command": "renew"}, api.CodeControlRequired, true},
		{"cancel unknown", "agent", "openlolo_cancel", map[string]any{"target": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}, api.CodeOperationNotFound, true},
	}
	for _, c := range cases {
		cs := agent
		switch c.who {
		case "other":
			cs = other
		case "reader":
			cs = reader
		}
		_, sc := call(t, cs, c.tool, c.args)
		if got := code(sc); got != c.code {
			t.Errorf("%s: code %q, want %q (%v)", c.name, got, c.code, sc)
			continue
		}
		if c.code != "" {
			e := sc["error"].(map[string]any)
			if e["message"] == "" || len(e["next_steps"].([]any)) == 0 {
				t.Errorf("%s: error without message or next steps: %v", c.name, e)
			}
			if _, ok := e["retryable"].(bool); !ok {
				t.Errorf("%s: error without retryable", c.name)
			}
		}
		if c.mutating && c.code != "" && c.code != api.CodeControlRequired && c.code != api.CodeOperationNotFound && sc["dispatched"] != false {
			t.Errorf("%s: refused mutating call has dispatched=%v, want false", c.name, sc["dispatched"])
		}
	}
	if ph.Inputs() != 1 {
		t.Fatalf("phone saw %d inputs, want 1 (only the first key)", ph.Inputs())
	}
}

func TestRateLimitedOverMCP(t *testing.T) {
	b := newBox(t, boxOpts{limits: control.Limits{CallsPerMinute: 3}})
	cs := b.session(t, "agent", bothScopes)
	for i := 0; i < 3; i++ {
		_, sc := call(t, cs, "openlolo_status", nil)
		mustOK(t, "status", sc)
	}
	_, sc := call(t, cs, "openlolo_status", nil)
	e, _ := sc["error"].(map[string]any)
	if code(sc) != api.CodeRateLimited || e["retry_after_ms"] == nil || e["retryable"] != true {
		t.Fatalf("4th call %v", sc)
	}
	// Pause is never limited.
	_, sc = call(t, cs, "openlolo_pause", nil)
	mustOK(t, "pause", sc)
	b.clock.Advance(time.Minute)
	_, sc = call(t, cs, "openlolo_status", nil)
	mustOK(t, "status after a minute", sc)
}

func TestReplayOverMCP(t *testing.T) {
	ph := controltest.New(nil)
	b := newBox(t, boxOpts{phone: ph})
	cs := b.session(t, "agent", bothScopes)
	args := map[string]any{"text": "once", "observe": false, "operation_id": opA}
	_, first := call(t, cs, "openlolo_type_text", args)
	mustOK(t, "type", first)
	_, again := call(t, cs, "openlolo_type_text", args)
	mustOK(t, "type again", again)
	if again["replayed"] != true || again["operation_id"] != opA || ph.Typed() != "once" || ph.Inputs() != 1 {
		t.Fatalf("replay %v; phone typed %q in %d inputs", again, ph.Typed(), ph.Inputs())
	}
	_, st := call(t, cs, "openlolo_operation_status", map[string]any{"operation_id": opA})
	op := st["operation"].(map[string]any)
	if op["state"] != "succeeded" || op["tool"] != "openlolo_type_text" {
		t.Fatalf("operation status %v", st)
	}
	// The journal holds no typed text.
	ops, err := b.ctl.Recent(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		for _, s := range []string{o.Answer, o.Fingerprint, o.Code} {
			if containsWord(s, "once") {
				t.Fatalf("journal row stores the typed text: %+v", o)
			}
		}
	}
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}

func TestTwoClientsFramesIndependent(t *testing.T) {
	b := newBox(t, boxOpts{})
	a := b.session(t, "a", bothScopes)
	o := b.session(t, "o", bothScopes)
	_, shotA := call(t, a, "openlolo_screenshot", nil)
	// o changes the screen and takes its own screenshots.
	_, so := call(t, o, "openlolo_screenshot", nil)
	_, r := call(t, o, "openlolo_tap", frameArgs(so, 0.1, 0.1))
	mustOK(t, "o taps", r)
	_, r = call(t, o, "openlolo_control", map[string]any{"command": "release"})
	mustOK(t, "o releases", r)
	call(t, o, "openlolo_screenshot", nil)
	// o's screenshots never replace a's frame: a's latest is still the
	// one it took first (in the Python box this would be FRAME_EXPIRED).
	_, r = call(t, a, "openlolo_tap", frameArgs(shotA, 0.5, 0.5))
	if code(r) != "" {
		t.Fatalf("a's own latest frame refused after another client's screenshots: %v", r)
	}
	_, shotA2 := call(t, a, "openlolo_screenshot", nil)
	call(t, o, "openlolo_screenshot", nil)
	_, r = call(t, a, "openlolo_tap", frameArgs(shotA2, 0.5, 0.5))
	mustOK(t, "a taps with its new frame", r)
	_, r = call(t, a, "openlolo_tap", frameArgs(shotA, 0.5, 0.5))
	if code(r) != api.CodeFrameExpired {
		t.Fatalf("a's older frame after its newer screenshot: %v, want FRAME_EXPIRED", r)
	}
}

// TestUnreadableCallsCount: a call whose arguments cannot be read still
// counts against the rate window (so a client cannot flood with them),
// except openlolo_pause.
func TestUnreadableCallsCount(t *testing.T) {
	b := newBox(t, boxOpts{limits: control.Limits{CallsPerMinute: 2}})
	cs := b.session(t, "agent", bothScopes)
	for _, want := range []api.Code{api.CodeInvalidArguments, api.CodeInvalidArguments, api.CodeRateLimited} {
		if _, sc := call(t, cs, "openlolo_status", map[string]any{"verbose": true}); code(sc) != want {
			t.Fatalf("unreadable status: %v, want %s", sc, want)
		}
	}
	if _, sc := call(t, cs, "openlolo_pause", map[string]any{"bogus": 1}); code(sc) != api.CodeInvalidArguments || sc["dispatched"] != false {
		t.Fatalf("unreadable pause over the limit: %v, want INVALID_ARGUMENTS, not dispatched", sc)
	}
}
