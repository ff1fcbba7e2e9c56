package owner

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// WiFi is the box's Wi-Fi as the Settings page shows and changes it:
// the current network and its signal, the saved networks, joining
// another, and the setup network. cmd/openlolo implements it over
// hw/wifi and appliance/setupnet; nil when the box has no radio (the
// page says so).
type WiFi interface {
	// WiFiStatus is the radio's state now.
	WiFiStatus(ctx context.Context) (WiFiView, error)
	// JoinWiFi starts joining another network; the outcome shows in
	// WiFiStatus. A refused entry is a *WiFiError and changes nothing.
	JoinWiFi(ctx context.Context, ssid, passphrase string) error
	// ForgetWiFi removes a saved network by its id.
	ForgetWiFi(ctx context.Context, id string) error
	// OpenSetupNetwork opens the setup network (why: "settings" or
	// "button"); CloseSetupNetwork closes it.
	OpenSetupNetwork(ctx context.Context, why string) error
	CloseSetupNetwork(ctx context.Context) error
}

// WiFiError is a Wi-Fi request the box refused, with a sentence for the
// owner.
type WiFiError struct {
	Code    string // setupnet's stable codes (WIFI_SSID_TOO_LONG, WIFI_BUSY, …)
	Message string
}

func (e *WiFiError) Error() string { return "owner: wifi: " + e.Code + ": " + e.Message }

// WiFiView is the radio as the Settings page shows it.
type WiFiView struct {
	Interface string // e.g. wlan0
	SSID      string // the network the box is on; "" none
	Signal    int    // dBm, with HasSignal
	HasSignal bool
	Addr      string // the box's address on it
	Saved     []SavedWiFi
	// The setup network.
	SetupOpen     bool
	SetupSSID     string
	SetupClosesAt time.Time
	Joining       string // the network being joined
	LastError     string // why the last join failed, a sentence
}

// SavedWiFi is a saved network.
type SavedWiFi struct {
	ID      string
	SSID    string
	Current bool
}

// wifiView is the Settings page's Wi-Fi section.
type wifiView struct {
	Has  bool
	View WiFiView
	Err  string // the radio's state could not be read
	CSRF string
}

// SignalWords says how good a signal is, for people.
func (v WiFiView) SignalWords() string {
	switch {
	case !v.HasSignal:
		return ""
	case v.Signal >= -55:
		return "strong"
	case v.Signal >= -67:
		return "good"
	case v.Signal >= -75:
		return "fair"
	}
	return "weak"
}

// wifiSection reads the radio for the Settings page.
func (p *Pages) wifiSection(ctx context.Context, csrf string) *wifiView {
	v := &wifiView{Has: p.cfg.WiFi != nil, CSRF: csrf}
	if !v.Has {
		return v
	}
	var err error
	if v.View, err = p.cfg.WiFi.WiFiStatus(ctx); err != nil {
		p.log.Warn("owner: read the Wi-Fi state", "err", err)
		v.Err = "The box could not read its Wi-Fi state: " + err.Error()
	}
	return v
}

// wifiDone is the confirmation a redirect back to Settings shows.
func wifiDone(done string) string {
	switch done {
	case "wifi-join":
		return "The box is joining the network. This page may stop answering if the box moves to a network this device is not on; if the join fails, the box goes back to the network it was on, and this page says why."
	case "wifi-forget":
		return "The network is forgotten."
	case "wifi-setup-open":
		return "The setup network is open for 10 minutes. The box is off its Wi-Fi network meanwhile (the wired link, if any, stays)."
	case "wifi-setup-closed":
		return "The setup network is closed; the box goes back to its saved networks."
	}
	return ""
}

// noWiFi answers the forms when the box has no radio.
func (p *Pages) noWiFi(w http.ResponseWriter, r *http.Request) bool {
	if p.cfg.WiFi != nil {
		return false
	}
	p.showSettings(w, r, http.StatusConflict, "", "This box has no Wi-Fi radio (or serve runs without --wifi).")
	return true
}

// wifiRefused shows a refusal: the WiFiError's sentence, else the
// failure.
func (p *Pages) wifiRefused(w http.ResponseWriter, r *http.Request, what string, err error) {
	var we *WiFiError
	if errors.As(err, &we) {
		status := http.StatusBadRequest
		if we.Code == "WIFI_BUSY" || we.Code == "WIFI_SETUP_CLOSED" || we.Code == "WIFI_NOT_RUNNING" {
			status = http.StatusConflict
		}
		p.showSettings(w, r, status, "", we.Message)
		return
	}
	p.log.Warn("owner: wifi: "+what, "err", err)
	p.showSettings(w, r, http.StatusInternalServerError, "", "The box could not "+what+": "+err.Error())
}

func (p *Pages) wifiJoin(w http.ResponseWriter, r *http.Request) {
	if p.noWiFi(w, r) {
		return
	}
	ssid := r.PostFormValue("ssid")
	if err := p.cfg.WiFi.JoinWiFi(r.Context(), ssid, r.PostFormValue("passphrase")); err != nil {
		p.wifiRefused(w, r, "join the network", err)
		return
	}
	p.log.Info("owner: joining a Wi-Fi network from Settings", "ssid", ssid)
	p.record(r.Context(), actSettings, "asked the box to join the Wi-Fi network "+quoteName(ssid))
	http.Redirect(w, r, "/settings?done=wifi-join#wifi", http.StatusSeeOther)
}

func (p *Pages) wifiForget(w http.ResponseWriter, r *http.Request) {
	if p.noWiFi(w, r) {
		return
	}
	id, ssid := r.PostFormValue("id"), r.PostFormValue("ssid")
	if err := p.cfg.WiFi.ForgetWiFi(r.Context(), id); err != nil {
		p.wifiRefused(w, r, "forget the network", err)
		return
	}
	p.record(r.Context(), actSettings, "forgot the Wi-Fi network "+quoteName(ssid))
	http.Redirect(w, r, "/settings?done=wifi-forget#wifi", http.StatusSeeOther)
}

func (p *Pages) wifiSetup(w http.ResponseWriter, r *http.Request) {
	if p.noWiFi(w, r) {
		return
	}
	open := r.PostFormValue("open") == "1"
	var err error
	if open {
		err = p.cfg.WiFi.OpenSetupNetwork(r.Context(), "settings")
	} else {
		err = p.cfg.WiFi.CloseSetupNetwork(r.Context())
	}
	if err != nil {
		p.wifiRefused(w, r, "switch the setup network", err)
		return
	}
	done := "wifi-setup-closed"
	if open {
		done = "wifi-setup-open"
	}
	p.record(r.Context(), actSettings, map[bool]string{true: "opened", false: "closed"}[open]+" the setup Wi-Fi network")
	http.Redirect(w, r, "/settings?done="+done+"#wifi", http.StatusSeeOther)
}

// quoteName is a network name for the activity log.
func quoteName(s string) string { return "\u201c" + s + "\u201d" }
