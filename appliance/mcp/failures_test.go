package mcp_test

import (
	"fmt"
	"github.com/openlolo/openlolo/api"
	"testing"

	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/phone"
)

// TestPhoneFailures: backend errors become PHONE_UNAVAILABLE,
// CAPTURE_FAILED and INPUT_FAILED answers, with dispatched telling whether
// anything may have reached the phone, and a release after a failed input.
func TestPhoneFailures(t *testing.T) {
	ph := controltest.New(nil)
	b := newBox(t, boxOpts{phone: ph})
	cs := b.session(t, "agent", bothScopes)
	cases := []struct {
		name       string
		fail       func()
		tool       string
		args       map[string]any
		code       api.Code
		dispatched any
		state      any
	}{
		{"capture", func() { ph.FailScreenshots(fmt.Errorf("fake: no signal: %w", phone.ErrCaptureFailed)) },
			"openlolo_screenshot", nil, api.CodeCaptureFailed, nil, nil},
		{"unplugged screenshot", func() { ph.FailScreenshots(fmt.Errorf("fake: %w", phone.ErrUnavailable)) },
			"openlolo_screenshot", nil, api.CodePhoneUnavailable, nil, nil},
		{"unplugged input", func() { ph.FailInputs(fmt.Errorf("fake: no host: %w", phone.ErrUnavailable)) },
			"openlolo_key", map[string]any{"key": "a", "observe": false}, api.CodePhoneUnavailable, false, "failed"},
		{"host not reading", func() { ph.FailInputs(fmt.Errorf("fake: write timed out: %w", phone.ErrInputFailed)) },
			"openlolo_key", map[string]any{"key": "a", "observe": false}, api.CodeInputFailed, true, "failed"},
	}
	for _, c := range cases {
		c.fail()
		released := ph.Released()
		_, sc := call(t, cs, c.tool, c.args)
		if code(sc) != c.code || sc["dispatched"] != c.dispatched || sc["state"] != c.state {
			t.Errorf("%s: %v", c.name, sc)
		}
		if c.dispatched == true && ph.Released() == released {
			t.Errorf("%s: no release after a failed input", c.name)
		}
		ph.FailInputs(nil)
		ph.FailScreenshots(nil)
	}
	// An input whose observation fails still succeeded: the failure is
	// reported beside it.
	ph.FailScreenshots(fmt.Errorf("fake: %w", phone.ErrCaptureFailed))
	_, sc := call(t, cs, "openlolo_key", map[string]any{"key": "a", "settle": 0})
	oe, _ := sc["observation_error"].(map[string]any)
	if sc["status"] != "ok" || oe["code"] != string(api.CodeCaptureFailed) {
		t.Fatalf("input with a failed observation: %v", sc)
	}
}

// TestJournalUnavailable: a journal that cannot be written is INTERNAL and
// nothing is sent.
func TestJournalUnavailable(t *testing.T) {
	ph := controltest.New(nil)
	b := newBox(t, boxOpts{phone: ph})
	cs := b.session(t, "agent", bothScopes)
	b.closeStore()
	_, sc := call(t, cs, "openlolo_key", map[string]any{"key": "a", "observe": false})
	if code(sc) != api.CodeInternal || sc["dispatched"] != false || ph.Inputs() != 0 {
		t.Fatalf("with the store closed: %v, inputs %d", sc, ph.Inputs())
	}
}
