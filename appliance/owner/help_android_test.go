package owner_test

import (
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/phone"
)

// TestAndroidProblems: an Android phone that has not allowed the box's
// key shows the key's fingerprint on Status and on its walkthrough,
// both refreshing until the phone allows it; USB debugging off links
// its own walkthrough.
func TestAndroidProblems(t *testing.T) {
	ph := &problemPhone{Phone: simPhone(t)}
	b, c := claimedBox(t, boxOpts{phone: ph})
	const fp = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"
	ph.set(phone.State{Code: "pairing", Problems: phone.ProblemSet(phone.ADBNotAllowed),
		Reason: "The Android phone asks Allow USB debugging? for this box: check that it shows the key fingerprint " + fp + ", tick Always allow from this computer, and tap Allow."})
	pages := map[string][]string{
		"/status":             {fp, `data-problem="adb_not_allowed"`, `href="/help/adb-allow"`, "data-reload="},
		"/help/adb-allow":     {fp, "Always allow from this computer", "Revoke USB debugging authorizations", "Your phone needs this now", "data-reload="},
		"/help":               {`href="/help/usb-debugging"`, `href="/help/adb-allow"`},
		"/help/usb-debugging": {"Build number", "adb tcpip 5555", "Developer options"},
	}
	for path, wants := range pages {
		body := mustGet(t, c, b.url, path)
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q: %s", path, w, ownertest.Text(body))
			}
		}
	}
	ph.set(phone.State{Code: "detached", Reason: "The box cannot reach the Android phone's ADB at 192.168.1.20:5555.", Problems: phone.ProblemSet(phone.USBDebuggingOff)})
	body := mustGet(t, c, b.url, "/status")
	for _, w := range []string{`data-problem="usb_debugging_off"`, `href="/help/usb-debugging"`, "Developer options"} {
		if !strings.Contains(body, w) {
			t.Errorf("/status lacks %q: %s", w, ownertest.Text(body))
		}
	}
}
