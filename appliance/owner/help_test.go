package owner_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/phone"
)

// problemPhone is a phone whose State the test sets; everything else is
// the simulated phone's.
type problemPhone struct {
	phone.Phone
	mu sync.Mutex
	st phone.State
}

func (p *problemPhone) State() phone.State { p.mu.Lock(); defer p.mu.Unlock(); return p.st }
func (p *problemPhone) set(st phone.State) { p.mu.Lock(); p.st = st; p.mu.Unlock() }
func (p *problemPhone) Subscribe(ctx context.Context) <-chan phone.Event {
	return p.Phone.Subscribe(ctx)
}

// TestStatusProblems: each problem a backend reports is listed on Status
// with its next step and walkthrough; problems the box waits out make
// the page refresh; a ready phone shows none.
func TestStatusProblems(t *testing.T) {
	ph := &problemPhone{Phone: simPhone(t)}
	b, c := claimedBox(t, boxOpts{phone: ph})
	tests := []struct {
		name    string
		st      phone.State
		want    []string
		refresh bool
	}{
		{"trust", phone.State{Code: "pairing", Reason: "The iPhone asks Trust This Computer?: tap Trust and enter its passcode.", Problems: phone.ProblemSet(phone.NotTrusted)},
			[]string{`data-problem="not_trusted"`, "has not trusted this box yet", `href="/help/trust"`, "refreshes"}, true},
		{"developer mode on iOS 26", phone.State{Code: "developer_mode_off", Reason: "Developer Mode is off.", Problems: phone.ProblemSet(phone.DeveloperModeOff, phone.InputNeedsIOS27)},
			[]string{`data-problem="developer_mode_off"`, `href="/help/developer-mode"`, "Privacy &amp; Security", `data-problem="ios_below_27"`, `href="/help/ios-27"`}, true},
		{"disk image", phone.State{Code: "ddi_not_mounted", Reason: "not mounted", Problems: phone.ProblemSet(phone.DiskImageNotMounted)},
			[]string{`data-problem="ddi_not_mounted"`, "needs the internet", `href="/help/disk-image"`}, true},
		{"ready below 27", phone.State{Ready: true, Code: "ready", Problems: phone.ProblemSet(phone.InputNeedsIOS27)},
			[]string{`data-problem="ios_below_27"`, "gadget backend"}, false},
		{"no udc", phone.State{Code: "no_udc", Reason: "no UDC", Problems: phone.ProblemSet(phone.NoUDC)},
			[]string{`data-problem="no_udc"`, `href="/help/usb-device"`}, false},
	}
	for _, tt := range tests {
		ph.set(tt.st)
		body := mustGet(t, c, b.url, "/status")
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: Status lacks %q: %s", tt.name, w, ownertest.Text(body))
			}
		}
		if got := strings.Contains(body, "data-reload="); got != tt.refresh {
			t.Errorf("%s: page refreshes = %v, want %v", tt.name, got, tt.refresh)
		}
		if strings.Contains(body, "blocks") != !tt.st.Ready {
			t.Errorf("%s: the blocking problem is not marked", tt.name)
		}
	}
	ph.set(phone.State{Ready: true, Code: "ready"})
	if body := mustGet(t, c, b.url, "/status"); strings.Contains(body, "phone-problems") || strings.Contains(body, "data-reload=") {
		t.Errorf("a ready phone without problems shows problems or refreshes: %s", ownertest.Text(body))
	}
}

// TestHelpPages: every walkthrough renders, says whether the phone needs
// it now (refreshing while the box waits), and unknown topics are 404.
func TestHelpPages(t *testing.T) {
	ph := &problemPhone{Phone: simPhone(t)}
	b, c := claimedBox(t, boxOpts{phone: ph})
	ph.set(phone.State{Code: "developer_mode_off", Problems: phone.ProblemSet(phone.DeveloperModeOff)})
	pages := map[string][]string{
		"/help":                {"Phone help", `href="/help/developer-mode"`, `href="/help/disk-image"`, `href="/help/trust"`, `href="/help/ios-27"`},
		"/help/trust":          {"Trust This Computer?", "Don't Trust", "Reset Location &amp; Privacy", "Your phone does not have this problem now"},
		"/help/developer-mode": {"Settings › Privacy &amp; Security", "Restart", "Turn On Developer Mode?", "Your phone needs this now", "data-reload="},
		"/help/disk-image":     {"gs.apple.com", "after every restart", "BuildManifest.plist", "coredevice/ddi", "at most every 30 seconds", "does not download the image itself"},
		"/help/ios-27":         {"iOS 27", "UNSUPPORTED", "--phone gadget", "AssistiveTouch"},
		"/help/usb-device":     {"dtoverlay=dwc2", "Pi 3 cannot"},
		"/help/usb-cable":      {"data", "USB-C"},
		"/help/capture":        {"capture adapter", "HDCP"},
	}
	for path, wants := range pages {
		body := mustGet(t, c, b.url, path)
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q: %s", path, w, ownertest.Text(body))
			}
		}
		if path != "/help/developer-mode" && strings.Contains(body, "data-reload=") {
			t.Errorf("%s refreshes although the phone does not need it", path)
		}
	}
	res, body := ownertest.Get(t, c, b.url, "/help/nonsense")
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "no help page called nonsense") {
		t.Errorf("/help/nonsense: %d %s", res.StatusCode, ownertest.Text(body))
	}
	// Owner only, like every page.
	anon := ownertest.NewClient(t, b.srv)
	if res, _ := ownertest.Get(t, anon, b.url, "/help/trust"); res.Request.URL.Path != "/login" {
		t.Errorf("/help/trust without a session ended at %s, want /login", res.Request.URL.Path)
	}
}
