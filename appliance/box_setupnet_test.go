package appliance_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/panel"
)

// fakeWiFi records what the box asks of its Wi-Fi.
type fakeWiFi struct {
	mu    sync.Mutex
	opens []string
}

func (f *fakeWiFi) WiFiStatus(context.Context) (owner.WiFiView, error) { return owner.WiFiView{}, nil }
func (f *fakeWiFi) JoinWiFi(context.Context, string, string) error     { return nil }
func (f *fakeWiFi) ForgetWiFi(context.Context, string) error           { return nil }
func (f *fakeWiFi) CloseSetupNetwork(context.Context) error            { return nil }
func (f *fakeWiFi) OpenSetupNetwork(_ context.Context, why string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens = append(f.opens, why)
	return nil
}

func (f *fakeWiFi) opened() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.opens)
}

// TestButtonHoldOpensSetupNetwork: the button held past the reset warning
// (5 s) and let go before the reset (10 s) opens the setup network; a
// short press and a hold to the reset do not.
func TestButtonHoldOpensSetupNetwork(t *testing.T) {
	t.Parallel()
	fp := newFakePanel()
	wifi := &fakeWiFi{}
	var logs syncBuffer
	start(t, appliance.Config{Panel: fp, WiFi: wifi, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	fp.waitLED(t, panel.SlowBlink)

	fp.send(panel.Press)
	fp.send(panel.ResetWarning)
	fp.send(panel.ResetCancelled)
	eventually(t, "the setup network to open", func() bool { return len(wifi.opened()) == 1 })
	if got := wifi.opened(); got[0] != "button" {
		t.Fatalf("opened for %q, want button", got)
	}
	fp.send(panel.ResetWarning)
	fp.send(panel.Reset)
	eventually(t, "the factory reset", func() bool { return strings.Contains(logs.String(), "FACTORY RESET") })
	if got := wifi.opened(); len(got) != 1 {
		t.Fatalf("setup network opened %q; a hold to the reset must not open it", got)
	}
}
