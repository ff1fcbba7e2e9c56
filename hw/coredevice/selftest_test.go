package coredevice_test

import (
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
)

// TestSelfTestInput: on an iOS 27 phone with the input services the
// self-test pastes, taps and presses Home, and each reaches the phone.
func TestSelfTestInput(t *testing.T) {
	in := &coredevicetest.Input{}
	st := &coredevicetest.State{Input: in, Apps: map[string]string{"com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	var out strings.Builder
	failed := coredevice.SelfTest(t.Context(), &out, coredevice.SelfTestOptions{Socket: mux.Socket, StateDir: t.TempDir()})
	for _, want := range []string{"ok      paste ", "ok      tap ", "ok      home button ", "result: 12 ok, 0 failed, 0 skipped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if failed != 0 {
		t.Errorf("%d failed", failed)
	}
	until(t, "the self-test's input", func() bool { return len(in.Keys()) == 4 && len(in.Touches()) == 3 && len(in.Buttons()) == 2 })
}
