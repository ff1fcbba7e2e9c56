package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/setupnet"
)

// wifiSettings is the radio and the setup network as the Settings page
// and the button need them (owner.WiFi). The box is made before the
// setup network's machine (whose name comes from the box), so the machine
// is attached once it runs; until then the forms say so.
type wifiSettings struct {
	radio   *wifiRadio
	machine atomic.Pointer[setupnet.Machine]
}

var _ owner.WiFi = (*wifiSettings)(nil)

var errSetupNotRunning = &owner.WiFiError{Code: "WIFI_NOT_RUNNING", Message: "The setup network is not running yet; try again in a moment."}

func (s *wifiSettings) m() (*setupnet.Machine, error) {
	if m := s.machine.Load(); m != nil {
		return m, nil
	}
	return nil, errSetupNotRunning
}

// WiFiStatus implements owner.WiFi.
func (s *wifiSettings) WiFiStatus(ctx context.Context) (owner.WiFiView, error) {
	v := owner.WiFiView{Interface: s.radio.iface}
	if m := s.machine.Load(); m != nil {
		st := m.Status()
		v.SetupOpen = st.State == setupnet.StateOpen
		v.SetupClosesAt = st.ClosesAt
		v.Joining = st.Joining
		if st.LastError != nil {
			v.LastError = st.LastError.Reason.Sentence()
		}
		if v.SetupOpen {
			v.SetupSSID = s.radio.apSSID()
			// wpa_supplicant has let go of the radio: nothing else to read
			return v, nil
		}
	}
	st, err := s.radio.sup.Status(ctx)
	if err != nil {
		return v, err
	}
	if st.State == "COMPLETED" {
		v.SSID = st.SSID
		v.Signal, v.HasSignal = s.radio.sup.Signal(ctx)
		v.Addr = ifaceAddr(s.radio.iface)
	}
	saved, err := s.radio.sup.Networks(ctx)
	for _, n := range saved {
		v.Saved = append(v.Saved, owner.SavedWiFi{ID: n.ID, SSID: n.SSID, Current: n.Current})
	}
	return v, err
}

// ifaceAddr is iface's first IPv4 address, or "".
func ifaceAddr(iface string) string {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return ""
	}
	addrs, _ := ifi.Addrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// JoinWiFi implements owner.WiFi.
func (s *wifiSettings) JoinWiFi(ctx context.Context, ssid, passphrase string) error {
	m, err := s.m()
	if err != nil {
		return err
	}
	return settingsError(m.Switch(ctx, setupnet.Network{SSID: ssid, Passphrase: passphrase}))
}

// ForgetWiFi implements owner.WiFi.
func (s *wifiSettings) ForgetWiFi(ctx context.Context, id string) error {
	if m := s.machine.Load(); m != nil && m.Status().State != setupnet.StateClosed {
		return &owner.WiFiError{Code: string(setupnet.CodeBusy), Message: "Close the setup network (or wait for the join) before forgetting a network."}
	}
	return s.radio.sup.Remove(ctx, id)
}

// OpenSetupNetwork implements owner.WiFi.
func (s *wifiSettings) OpenSetupNetwork(ctx context.Context, why string) error {
	m, err := s.m()
	if err != nil {
		return err
	}
	trig := setupnet.TriggerSettings
	if why == "button" {
		trig = setupnet.TriggerButton
	}
	return settingsError(m.Open(ctx, trig))
}

// CloseSetupNetwork implements owner.WiFi.
func (s *wifiSettings) CloseSetupNetwork(ctx context.Context) error {
	m, err := s.m()
	if err != nil {
		return err
	}
	return settingsError(m.Close(ctx))
}

// settingsError turns setupnet's refusals into the page's.
func settingsError(err error) error {
	var e *setupnet.Error
	if errors.As(err, &e) {
		return &owner.WiFiError{Code: string(e.Code), Message: e.Message}
	}
	return err
}
