package setupnet_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

var home = map[string]router{
	"home":      {pass: "correct horse", dhcp: true, answering: true},
	"no-dhcp":   {pass: "password123", dhcp: false},
	"silent-gw": {pass: "password123", dhcp: true, answering: false},
	"open-cafe": {pass: "", dhcp: true, answering: true},
}

const apSSID = "openlolo-setup-3f2a"

// run starts a machine on radio inside the bubble and returns it; the
// machine stops when the test ends.
func run(t *testing.T, radio setupnet.Radio) *setupnet.Machine {
	t.Helper()
	m, err := setupnet.New(radio, setupnet.Config{AP: setupnet.AP{SSID: apSSID, Passphrase: "k7dm-2xqa-9fhe-wp3t"}, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	return m
}

func wantState(t *testing.T, m *setupnet.Machine, want setupnet.State) setupnet.Status {
	t.Helper()
	synctest.Wait()
	st := m.Status()
	if st.State != want {
		t.Fatalf("state %s, want %s (status %+v)", st.State, want, st)
	}
	return st
}

func TestOpensAtBootWithoutLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home)
		m := run(t, r)
		start := time.Now()
		if err := m.Boot(t.Context(), false); err != nil {
			t.Fatal(err)
		}
		st := wantState(t, m, setupnet.StateOpen)
		if st.Trigger != setupnet.TriggerBoot || !st.ClosesAt.Equal(start.Add(10*time.Minute)) {
			t.Fatalf("status %+v, want trigger boot, closing at +10 min", st)
		}
		// It closes by itself after 10 minutes, not before.
		time.Sleep(10*time.Minute - time.Second)
		wantState(t, m, setupnet.StateOpen)
		time.Sleep(time.Second)
		wantState(t, m, setupnet.StateClosed)
		if calls, _, ap := r.state(); ap || !slices.Equal(calls, []string{"open " + apSSID, "close"}) {
			t.Fatalf("radio calls %q, AP open %v", calls, ap)
		}
	})
}

func TestStaysClosedAtBootWithLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home, "home")
		m := run(t, r)
		if err := m.Boot(t.Context(), true); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		wantState(t, m, setupnet.StateClosed)
		if calls, _, _ := r.state(); len(calls) != 0 {
			t.Fatalf("radio calls %q, want none", calls)
		}
	})
}

func TestOpensAfterLinkLostFor120s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := run(t, newFakeRadio(home, "home"))
		ctx := t.Context()
		_ = m.Boot(ctx, true)
		_ = m.SetOnline(ctx, false)
		time.Sleep(119 * time.Second)
		wantState(t, m, setupnet.StateClosed)
		// Back within the grace: the timer is cancelled.
		_ = m.SetOnline(ctx, true)
		time.Sleep(time.Hour)
		wantState(t, m, setupnet.StateClosed)
		_ = m.SetOnline(ctx, false)
		time.Sleep(120 * time.Second)
		if st := wantState(t, m, setupnet.StateOpen); st.Trigger != setupnet.TriggerOffline {
			t.Fatalf("trigger %s, want offline", st.Trigger)
		}
	})
}

func TestButtonAndSettingsOpenAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := run(t, newFakeRadio(home, "home"))
		ctx := t.Context()
		_ = m.Boot(ctx, true)
		if err := m.Open(ctx, setupnet.TriggerButton); err != nil {
			t.Fatal(err)
		}
		wantState(t, m, setupnet.StateOpen)
		// Opening again (Settings) restarts the 10-minute window.
		time.Sleep(9 * time.Minute)
		if err := m.Open(ctx, setupnet.TriggerSettings); err != nil {
			t.Fatal(err)
		}
		time.Sleep(9 * time.Minute)
		if st := wantState(t, m, setupnet.StateOpen); st.Trigger != setupnet.TriggerSettings {
			t.Fatalf("trigger %s, want settings", st.Trigger)
		}
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		wantState(t, m, setupnet.StateClosed)
	})
}

func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		net    setupnet.Network
		reason setupnet.Reason // "" for success
	}{
		{"joins", setupnet.Network{SSID: "home", Passphrase: "correct horse"}, ""},
		{"open network", setupnet.Network{SSID: "open-cafe"}, ""},
		{"wrong password", setupnet.Network{SSID: "home", Passphrase: "wrong horse"}, setupnet.ReasonWrongPassword},
		{"not found", setupnet.Network{SSID: "neighbour", Passphrase: "whatever1"}, setupnet.ReasonNotFound},
		{"no address", setupnet.Network{SSID: "no-dhcp", Passphrase: "password123"}, setupnet.ReasonNoAddress},
		{"gateway silent", setupnet.Network{SSID: "silent-gw", Passphrase: "password123"}, setupnet.ReasonNoGateway},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// "office" worked before and was lost: the box is offline.
				r := newFakeRadio(home, "office")
				m := run(t, r)
				ctx := t.Context()
				_ = m.Boot(ctx, false)
				wantState(t, m, setupnet.StateOpen)
				if err := m.Join(ctx, tc.net); err != nil {
					t.Fatal(err)
				}
				// The radio stays on the setup network for the handoff.
				time.Sleep(5 * time.Second)
				if _, _, ap := r.state(); !ap {
					t.Fatal("the setup network closed before the handoff delay")
				}
				st := wantState(t, m, setupnet.StateJoining)
				if st.Joining != tc.net.SSID {
					t.Fatalf("joining %q, want %q", st.Joining, tc.net.SSID)
				}
				time.Sleep(time.Minute)
				calls, saved, ap := r.state()
				if tc.reason == "" {
					st := wantState(t, m, setupnet.StateClosed)
					if !st.Online || st.Joined != tc.net.SSID || st.LastError != nil || ap {
						t.Fatalf("status %+v, AP open %v", st, ap)
					}
					if !slices.Equal(saved, []string{"office", tc.net.SSID}) {
						t.Fatalf("saved %q", saved)
					}
					return
				}
				st = wantState(t, m, setupnet.StateOpen)
				if st.Trigger != setupnet.TriggerFailed || st.LastError == nil || st.LastError.Reason != tc.reason {
					t.Fatalf("status %+v, want reopened with reason %s", st, tc.reason)
				}
				if st.LastError.Reason.Sentence() == setupnet.ReasonFailed.Sentence() {
					t.Fatalf("reason %s has no sentence of its own", tc.reason)
				}
				if !ap || !slices.Equal(saved, []string{"office"}) || !slices.Contains(calls, "forget "+tc.net.SSID) {
					t.Fatalf("AP open %v, saved %q, calls %q: want the AP back, office kept, %s forgotten", ap, saved, calls, tc.net.SSID)
				}
				// The reopened window has its full 10 minutes from the failure.
				if left := time.Until(st.ClosesAt); left < 9*time.Minute {
					t.Fatalf("the reopened window closes in %v, want about 10 minutes", left)
				}
				time.Sleep(time.Until(st.ClosesAt) - time.Second)
				wantState(t, m, setupnet.StateOpen)
				time.Sleep(time.Second)
				wantState(t, m, setupnet.StateClosed)
			})
		})
	}
}

func TestJoinRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home)
		m := run(t, r)
		ctx := t.Context()
		var e *setupnet.Error
		// Closed: nothing to join from.
		_ = m.Boot(ctx, true)
		if err := m.Join(ctx, setupnet.Network{SSID: "home", Passphrase: "correct horse"}); !errors.As(err, &e) || e.Code != setupnet.CodeClosed {
			t.Fatalf("join while closed: %v, want %s", err, setupnet.CodeClosed)
		}
		_ = m.Open(ctx, setupnet.TriggerSettings)
		if err := m.Join(ctx, setupnet.Network{SSID: "home", Passphrase: "short"}); !errors.As(err, &e) || e.Code != setupnet.CodePassphraseShort {
			t.Fatalf("short passphrase: %v", err)
		}
		wantState(t, m, setupnet.StateOpen) // a refused entry changes nothing
		if err := m.Join(ctx, setupnet.Network{SSID: "home", Passphrase: "correct horse"}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []func() error{
			func() error { return m.Join(ctx, setupnet.Network{SSID: "home", Passphrase: "correct horse"}) },
			func() error { return m.Close(ctx) },
			func() error { return m.Open(ctx, setupnet.TriggerButton) },
		} {
			if err := f(); !errors.As(err, &e) || e.Code != setupnet.CodeBusy {
				t.Fatalf("while joining: %v, want %s", err, setupnet.CodeBusy)
			}
		}
	})
}

func TestOpenFailureIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home)
		r.openErr = errors.New("hostapd: nl80211 driver initialization failed")
		m := run(t, r)
		if err := m.Open(t.Context(), setupnet.TriggerButton); err == nil {
			t.Fatal("Open succeeded though the radio failed")
		}
		wantState(t, m, setupnet.StateClosed)
	})
}

func TestNewRefusesBadSetupNetwork(t *testing.T) {
	for _, ap := range []setupnet.AP{{SSID: apSSID}, {SSID: "", Passphrase: "k7dm-2xqa-9fhe-wp3t"}, {SSID: apSSID, Passphrase: "short"}} {
		if _, err := setupnet.New(newFakeRadio(nil), setupnet.Config{AP: ap}); err == nil {
			t.Errorf("New(%+v) succeeded", ap)
		}
	}
}

func TestWaitsAtBootForASavedNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home, "home")
		m := run(t, r)
		ctx := t.Context()
		if err := m.BootWithSaved(ctx, false); err != nil {
			t.Fatal(err)
		}
		// The router comes up after the box: no setup network meanwhile.
		time.Sleep(60 * time.Second)
		wantState(t, m, setupnet.StateClosed)
		_ = m.SetOnline(ctx, true)
		time.Sleep(time.Hour)
		wantState(t, m, setupnet.StateClosed)
		if calls, _, _ := r.state(); len(calls) != 0 {
			t.Fatalf("radio calls %q, want none", calls)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		m := run(t, newFakeRadio(home, "home"))
		_ = m.BootWithSaved(t.Context(), false)
		time.Sleep(119 * time.Second)
		wantState(t, m, setupnet.StateClosed)
		time.Sleep(time.Second)
		if st := wantState(t, m, setupnet.StateOpen); st.Trigger != setupnet.TriggerOffline {
			t.Fatalf("trigger %s, want offline (no saved network came back)", st.Trigger)
		}
	})
}

// TestSwitchFromSettings: with the setup network closed, a join from
// Settings that fails forgets only the new network and leaves the setup
// network closed (the box stays on the saved ones); one that works is kept.
func TestSwitchFromSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newFakeRadio(home, "home")
		m := run(t, r)
		ctx := t.Context()
		_ = m.Boot(ctx, true)
		if err := m.Join(ctx, setupnet.Network{SSID: "open-cafe"}); err == nil {
			t.Fatal("Join with the setup network closed succeeded; only Switch may")
		}
		if err := m.Switch(ctx, setupnet.Network{SSID: "home", Passphrase: "wrong password"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		st := wantState(t, m, setupnet.StateClosed)
		if st.LastError == nil || st.LastError.Reason != setupnet.ReasonWrongPassword {
			t.Fatalf("status %+v, want the wrong password", st)
		}
		calls, saved, ap := r.state()
		if ap || slices.Contains(calls, "open "+apSSID) || !slices.Equal(saved, []string{"home"}) {
			t.Fatalf("calls %q, saved %q, AP %v: want no setup network and home still saved", calls, saved, ap)
		}
		if err := m.Switch(ctx, setupnet.Network{SSID: "open-cafe"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if st := wantState(t, m, setupnet.StateClosed); st.LastError != nil || st.Joined != "open-cafe" {
			t.Fatalf("status %+v, want joined open-cafe", st)
		}
		if _, saved, _ := r.state(); !slices.Equal(saved, []string{"home", "open-cafe"}) {
			t.Fatalf("saved %q", saved)
		}
		if err := m.Switch(ctx, setupnet.Network{SSID: strings.Repeat("x", 33)}); err == nil {
			t.Fatal("Switch took a 33-byte SSID")
		}
	})
}
