package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// fakeWiFi is a radio on "home" with two saved networks.
type fakeWiFi struct {
	mu     sync.Mutex
	saved  []owner.SavedWiFi
	setup  bool
	joined []string
}

func newFakeWiFi() *fakeWiFi {
	return &fakeWiFi{saved: []owner.SavedWiFi{{ID: "0", SSID: "home", Current: true}, {ID: "1", SSID: "café <b>"}}}
}

func (f *fakeWiFi) WiFiStatus(context.Context) (owner.WiFiView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := owner.WiFiView{Interface: "wlan0", Saved: append([]owner.SavedWiFi(nil), f.saved...), SetupOpen: f.setup, SetupSSID: "openlolo-setup-3f2a"}
	if !f.setup {
		v.SSID, v.Signal, v.HasSignal, v.Addr = "home", -61, true, "192.168.1.23"
	}
	return v, nil
}

func (f *fakeWiFi) JoinWiFi(_ context.Context, ssid, pass string) error {
	if len(ssid) > 32 {
		return &owner.WiFiError{Code: "WIFI_SSID_TOO_LONG", Message: "A Wi-Fi name has at most 32 bytes."}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joined = append(f.joined, ssid+"/"+pass)
	return nil
}

func (f *fakeWiFi) ForgetWiFi(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, n := range f.saved {
		if n.ID == id {
			f.saved = append(f.saved[:i], f.saved[i+1:]...)
			break
		}
	}
	return nil
}

func (f *fakeWiFi) OpenSetupNetwork(context.Context, string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.setup {
		return &owner.WiFiError{Code: "WIFI_BUSY", Message: "The box is joining a network; wait for it to finish."}
	}
	f.setup = true
	return nil
}

func (f *fakeWiFi) CloseSetupNetwork(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setup = false
	return nil
}

// TestSettingsWiFi: the section shows the network, its signal and the
// saved networks (escaped); forget, join (with a refusal shown) and the
// setup network's switch work from it, each behind the form token.
func TestSettingsWiFi(t *testing.T) {
	wifi := newFakeWiFi()
	b, c := claimedBox(t, boxOpts{wifi: wifi})
	_, body := ownertest.Get(t, c, b.url, "/settings")
	for _, want := range []string{`id="wifi"`, "<strong>home</strong>", "192.168.1.23", "-61 dBm (good)", "café &lt;b&gt;", "(in use)", "Open the setup network"} {
		if !strings.Contains(body, want) {
			t.Errorf("Settings lacks %q", want)
		}
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/wifi/setup", url.Values{"open": {"1"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("open without the form token: %d, want 403", res.StatusCode)
	}
	res, body := ownertest.PostForm(t, c, b.url, "/settings/wifi/forget", url.Values{"csrf": {tok}, "id": {"1"}, "ssid": {"café <b>"}})
	if res.StatusCode != 200 || !strings.Contains(body, "The network is forgotten") || strings.Contains(body, "café &lt;b&gt;") {
		t.Fatalf("forget: %d %q", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/wifi/join", url.Values{"csrf": {tok}, "ssid": {strings.Repeat("x", 33)}, "passphrase": {"password1"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "at most 32 bytes") {
		t.Fatalf("join with a long name: %d %q, want 400 with the sentence", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/wifi/join", url.Values{"csrf": {tok}, "ssid": {"office"}, "passphrase": {"password1"}})
	if res.StatusCode != 200 || !strings.Contains(body, "The box is joining the network") || len(wifi.joined) != 1 || wifi.joined[0] != "office/password1" {
		t.Fatalf("join: %d %q, joined %q", res.StatusCode, ownertest.Text(body), wifi.joined)
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/wifi/setup", url.Values{"csrf": {tok}, "open": {"1"}})
	if res.StatusCode != 200 || !strings.Contains(body, "The setup network is open") || !strings.Contains(body, "openlolo-setup-3f2a") || !strings.Contains(body, "Close the setup network") {
		t.Fatalf("open the setup network: %d %q", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/wifi/setup", url.Values{"csrf": {tok}, "open": {"1"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "wait for it to finish") {
		t.Fatalf("a refused open: %d %q, want 409 with the sentence", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/settings/wifi/setup", url.Values{"csrf": {tok}, "open": {"0"}})
	if res.StatusCode != 200 || !strings.Contains(body, "The setup network is closed") {
		t.Fatalf("close the setup network: %d %q", res.StatusCode, ownertest.Text(body))
	}
}

// TestSettingsWithoutWiFi: a box without a radio says so and refuses the
// forms.
func TestSettingsWithoutWiFi(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	if _, body := ownertest.Get(t, c, b.url, "/settings"); !strings.Contains(body, "This box has no Wi-Fi radio") {
		t.Fatalf("Settings without a radio: %q", ownertest.Text(body))
	}
	tok := ownertest.CSRF(t, c, b.url)
	if res, _ := ownertest.PostForm(t, c, b.url, "/settings/wifi/setup", url.Values{"csrf": {tok}, "open": {"1"}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("open without a radio: %d, want 409", res.StatusCode)
	}
}
