package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/wifi"
)

func TestJoinReason(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want setupnet.Reason
	}{
		{wifi.ErrWrongKey, setupnet.ReasonWrongPassword},
		{fmt.Errorf("join: %w", wifi.ErrNotFound), setupnet.ReasonNotFound},
		{fmt.Errorf("%w: CTRL-EVENT-ASSOC-REJECT", wifi.ErrAuthFailed), setupnet.ReasonFailed},
		{context.DeadlineExceeded, setupnet.ReasonFailed},
	} {
		if got := joinReason(tc.err); got != tc.want {
			t.Errorf("joinReason(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestWiFiRadioWithoutDaemons(t *testing.T) {
	// No wpa_supplicant: opening the AP fails with the cause, and a join
	// is a JoinError the policy can show.
	absent := t.TempDir() + "/absent"
	r := newWiFiRadio("wlan-none", "", t.TempDir(), netip.MustParsePrefix("192.168.4.1/24"),
		radioPaths{ctrlDir: absent, global: absent + "/global", conf: absent + "/conf", dhcpcPID: absent + "/pid"}, nil)
	if err := r.OpenAP(t.Context(), setupnet.AP{SSID: "openlolo-setup-3f2a", Passphrase: "k7dm-2xqa-9fhe-wp3t"}); err == nil {
		t.Fatal("OpenAP succeeded without wpa_supplicant")
	}
	var je *setupnet.JoinError
	if _, err := r.Join(t.Context(), setupnet.Network{SSID: "home", Passphrase: "password1"}); !errors.As(err, &je) || je.Reason != setupnet.ReasonFailed {
		t.Fatalf("Join = %v, want a JoinError", err)
	}
}
