package appliance_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/phone"
)

// fakePanel is the box's button and LED as a test drives and watches them.
type fakePanel struct {
	events chan panel.Event

	mu  sync.Mutex
	led []panel.LED // every state the box set, in order
}

func newFakePanel() *fakePanel { return &fakePanel{events: make(chan panel.Event, 8)} }

func (f *fakePanel) Events() <-chan panel.Event { return f.events }
func (f *fakePanel) Available() bool            { return true }
func (f *fakePanel) HasButton() bool            { return true }

func (f *fakePanel) SetLED(s panel.LED) {
	f.mu.Lock()
	f.led = append(f.led, s)
	f.mu.Unlock()
}

func (f *fakePanel) send(k panel.EventKind) { f.events <- panel.Event{Kind: k, At: time.Now()} }

// LED returns what the LED shows now (Off before the first SetLED).
func (f *fakePanel) LED() panel.LED {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.led) == 0 {
		return panel.Off
	}
	return f.led[len(f.led)-1]
}

// waitLED waits until the LED shows want.
func (f *fakePanel) waitLED(t *testing.T, want panel.LED) {
	t.Helper()
	eventually(t, "LED "+want.String(), func() bool { return f.LED() == want })
}

// eventually checks cond every 20 ms for up to 15 s (the box's real
// listeners rule out testing/synctest).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// syncBuffer is a log sink tests can read while the box writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// browser is a pinned HTTPS client with a cookie jar, as a person's
// browser on the LAN.
func browser(t *testing.T, r *running) (*http.Client, string) {
	t.Helper()
	c := pinnedClient(t, r.box.Cert().Fingerprint())
	c.CheckRedirect = nil
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Jar = jar
	return c, strings.TrimSuffix(r.field(t, "LAN URL"), "/")
}

// claimByButton starts a button claim from c and presses the button; it
// returns once c is logged in.
func claimByButton(t *testing.T, fp *fakePanel, c *http.Client, base, pass string) {
	t.Helper()
	_, page := ownertest.Get(t, c, base, "/claim")
	if !strings.Contains(page, "Claim with the button") {
		t.Fatalf("the claim page of a box with a button does not offer it: %q", ownertest.Text(page))
	}
	res, body := ownertest.PostForm(t, c, base, "/claim/button", url.Values{
		"csrf": {ownertest.FormToken(page)}, "passphrase": {pass}, "confirm": {pass},
	})
	if res.Request.URL.Path != "/claim/button" {
		t.Fatalf("start the button claim: %d at %s %q", res.StatusCode, res.Request.URL.Path, ownertest.Text(body))
	}
	fp.send(panel.Press)
	eventually(t, "the press to log the browser in", func() bool {
		res, _ := ownertest.Get(t, c, base, "/claim/button")
		return res.Request.URL.Path == "/status"
	})
}

func TestBoxButtonClaimAndFactoryReset(t *testing.T) {
	t.Parallel()
	fp := newFakePanel()
	var logs syncBuffer
	setupFile := filepath.Join(t.TempDir(), "boot", "setup-code.txt")
	r := start(t, appliance.Config{Panel: fp, SetupCodeFile: setupFile,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	first := r.field(t, "Setup code")
	fp.waitLED(t, panel.SlowBlink) // unclaimed

	c, base := browser(t, r)
	claimByButton(t, fp, c, base, "correct horse battery staple")
	if _, err := os.Stat(setupFile); !os.IsNotExist(err) {
		t.Errorf("setup code file after the button claim: %v, want it gone", err)
	}
	fp.waitLED(t, panel.On) // claimed, sim phone ready, nothing waiting

	// A warning and a let-go change nothing.
	fp.send(panel.ResetWarning)
	fp.send(panel.ResetCancelled)
	if res, _ := ownertest.Get(t, c, base, "/status"); res.Request.URL.Path != "/status" {
		t.Fatalf("a cancelled hold logged the owner out: at %s", res.Request.URL.Path)
	}

	// The 10 s hold: the owner is gone and a new code is out.
	fp.send(panel.Reset)
	var code string
	eventually(t, "a new setup code in the file", func() bool {
		b, err := os.ReadFile(setupFile)
		code = strings.TrimSpace(string(b))
		return err == nil && code != "" && code != first
	})
	if !strings.Contains(logs.String(), "FACTORY RESET") || !strings.Contains(logs.String(), code) {
		t.Errorf("the log does not announce the reset and its code %s:\n%s", code, logs.String())
	}
	fp.waitLED(t, panel.SlowBlink)
	res, body := ownertest.Get(t, c, base, "/status")
	if !strings.Contains(body, "<h1>Claim this box</h1>") {
		t.Fatalf("after the reset GET /status = %d at %s, want the claim page", res.StatusCode, res.Request.URL.Path)
	}
	// The certificate is kept: the pinned client still connects (it just
	// did), and the new code claims the box.
	fresh, _ := browser(t, r)
	ownertest.Claim(t, fresh, base, code, "a new owner's passphrase")

	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	if got := fp.LED(); got != panel.Off {
		t.Errorf("LED after the box stopped = %s, want off", got)
	}
}

// readyPhone is a phone whose readiness the test switches.
type readyPhone struct {
	phone.Phone
	down atomic.Bool
}

func (p *readyPhone) State() phone.State {
	if p.down.Load() {
		return phone.State{Code: "no_video", Reason: "test: the capture device is gone"}
	}
	return p.Phone.State()
}

func TestBoxLEDFollowsTheBox(t *testing.T) {
	t.Parallel()
	fp := newFakePanel()
	ph := &readyPhone{Phone: simPhone(t)}
	r := start(t, appliance.Config{Panel: fp, Phone: ph})
	c, base := browser(t, r)
	fp.waitLED(t, panel.SlowBlink)
	ownertest.Claim(t, c, base, r.field(t, "Setup code"), "correct horse battery staple")
	fp.waitLED(t, panel.On)

	// A script asks for access: slow blink until the owner decides.
	res, err := c.PostForm(base+"/oauth/device_authorization", url.Values{"client_name": {"led test"}, "scope": {"phone:read"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("device authorization: %d", res.StatusCode)
	}
	fp.waitLED(t, panel.SlowBlink)

	ph.down.Store(true)
	fp.waitLED(t, panel.FastBlink) // the phone's error outranks the waiting request
	ph.down.Store(false)
	fp.waitLED(t, panel.SlowBlink)
}

func TestBoxWithoutButton(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    panel.Panel
	}{
		// What serve opens on a machine without GPIO (cmd/openlolo's
		// adapter of hw/gpio reports the same; its tests check that).
		{"no GPIO", &partPanel{}},
		// An LED but no button: the LED works, the claim needs the code.
		{"LED only", &partPanel{led: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := start(t, appliance.Config{Panel: tt.p})
			c, base := browser(t, r)
			_, page := ownertest.Get(t, c, base, "/claim")
			if !strings.Contains(page, "Claim this box") || strings.Contains(page, "/claim/button") {
				t.Errorf("claim page: %q, want the code form only", ownertest.Text(page))
			}
		})
	}
}

// partPanel is a panel without a button, with or without an LED.
type partPanel struct{ led bool }

func (p *partPanel) Events() <-chan panel.Event { return nil }
func (p *partPanel) SetLED(panel.LED)           {}
func (p *partPanel) Available() bool            { return p.led }
func (p *partPanel) HasButton() bool            { return false }
