package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/wifi"
)

// wifiRadio is hw/wifi's wpa_supplicant and hostapd as the appliance's
// setupnet.Radio (and Scanner), used by serve --wifi. It
// has not run against a real radio: whether hostapd can take wlan0 after
// wpa_supplicant's DISCONNECT, or wpa_supplicant must let go of the
// interface, is for the mac80211_hwsim test to settle.
type wifiRadio struct {
	iface   string // e.g. wlan0
	country string // regulatory domain for the AP, "" for the kernel's
	sup     *wifi.Supplicant
	ap      *wifi.Hostapd
}

var _ setupnet.Radio = (*wifiRadio)(nil)

// newWiFiRadio is the radio on iface, wpa_supplicant's control socket in
// /run/wpa_supplicant, hostapd's files under runDir.
func newWiFiRadio(iface, country, runDir string) *wifiRadio {
	return &wifiRadio{
		iface:   iface,
		country: country,
		sup:     &wifi.Supplicant{Ctrl: wifi.Ctrl{Path: filepath.Join("/run/wpa_supplicant", iface), LocalDir: runDir}},
		ap:      &wifi.Hostapd{Dir: filepath.Join(runDir, "hostapd")},
	}
}

// OpenAP implements setupnet.Radio.
func (r *wifiRadio) OpenAP(ctx context.Context, ap setupnet.AP) error {
	if _, err := r.sup.Ctrl.Request(ctx, "DISCONNECT"); err != nil {
		return fmt.Errorf("wifi radio: release the client side: %w", err)
	}
	cfg := wifi.APConfig{Interface: r.iface, SSID: ap.SSID, Passphrase: ap.Passphrase, Country: r.country,
		CtrlDir: filepath.Join(r.ap.Dir, "ctrl")}
	if err := r.ap.Start(ctx, cfg); err != nil {
		_, _ = r.sup.Ctrl.Request(context.WithoutCancel(ctx), "RECONNECT")
		return err
	}
	return nil
}

// CloseAP implements setupnet.Radio.
func (r *wifiRadio) CloseAP(ctx context.Context) error {
	if err := r.ap.Stop(); err != nil {
		return err
	}
	_, err := r.sup.Ctrl.Request(ctx, "RECONNECT")
	return err
}

// Join implements setupnet.Radio.
func (r *wifiRadio) Join(ctx context.Context, n setupnet.Network) (string, error) {
	id, err := r.sup.Join(ctx, n.SSID, n.Passphrase)
	if err != nil {
		return id, &setupnet.JoinError{Reason: joinReason(err), Err: err}
	}
	return id, nil
}

// joinReason is the setup policy's reason for hw/wifi's join error.
func joinReason(err error) setupnet.Reason {
	switch {
	case errors.Is(err, wifi.ErrWrongKey):
		return setupnet.ReasonWrongPassword
	case errors.Is(err, wifi.ErrNotFound):
		return setupnet.ReasonNotFound
	}
	return setupnet.ReasonFailed
}

// Link implements setupnet.Radio.
func (r *wifiRadio) Link(ctx context.Context) (setupnet.Link, error) {
	l, err := wifi.LinkOf(ctx, r.iface)
	return setupnet.Link{Addr: l.Addr, Gateway: l.Gateway, GatewayAnswers: l.GatewayAnswers}, err
}

// Keep implements setupnet.Radio.
func (r *wifiRadio) Keep(ctx context.Context, id string) error { return r.sup.Keep(ctx, id) }

// Forget implements setupnet.Radio.
func (r *wifiRadio) Forget(ctx context.Context, id string) error { return r.sup.Forget(ctx, id) }
