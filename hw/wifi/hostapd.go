package wifi

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// APConfig is the setup access point: WPA2-PSK with CCMP and no
// management-frame protection (the Pi's brcmfmac drops MFP in AP mode).
type APConfig struct {
	Interface  string // e.g. wlan0
	SSID       string // 1..32 bytes
	Passphrase string // 8..63 printable ASCII
	Channel    int    // 2.4 GHz channel; 0 is 6
	Country    string // ISO 3166 alpha-2 for the regulatory domain; "" leaves the kernel's
	CtrlDir    string // hostapd's control socket directory; "" is /run/hostapd
}

// checkLine refuses what would break a line of a daemon's configuration.
func checkLine(what, s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return fmt.Errorf("wifi: %s has a control character at byte %d", what, i)
		}
	}
	return nil
}

// Config returns hostapd's configuration for the access point.
func (c APConfig) Config() ([]byte, error) {
	switch {
	case c.Interface == "" || strings.ContainsAny(c.Interface, "/ \t\n"):
		return nil, fmt.Errorf("wifi: hostapd config: interface %q is not a name", c.Interface)
	case len(c.SSID) < 1 || len(c.SSID) > 32:
		return nil, fmt.Errorf("wifi: hostapd config: SSID is %d bytes, want 1..32", len(c.SSID))
	case len(c.Passphrase) < 8 || len(c.Passphrase) > 63:
		return nil, fmt.Errorf("wifi: hostapd config: passphrase is %d characters, want 8..63", len(c.Passphrase))
	case c.Country != "" && (len(c.Country) != 2 || strings.ToUpper(c.Country) != c.Country):
		return nil, fmt.Errorf("wifi: hostapd config: country %q is not two capital letters", c.Country)
	}
	if err := checkLine("passphrase", c.Passphrase); err != nil {
		return nil, err
	}
	ch := c.Channel
	if ch == 0 {
		ch = 6
	}
	if ch < 1 || ch > 13 {
		return nil, fmt.Errorf("wifi: hostapd config: channel %d is not a 2.4 GHz channel (1..13)", ch)
	}
	dir := c.CtrlDir
	if dir == "" {
		dir = "/run/hostapd"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# openlolo setup network (generated; hw/wifi APConfig)\n")
	fmt.Fprintf(&b, "interface=%s\ndriver=nl80211\nctrl_interface=%s\n", c.Interface, dir)
	// ssid2 as hex: any bytes, no quoting rules.
	fmt.Fprintf(&b, "ssid2=%s\nutf8_ssid=1\n", hex.EncodeToString([]byte(c.SSID)))
	if c.Country != "" {
		fmt.Fprintf(&b, "country_code=%s\nieee80211d=1\n", c.Country)
	}
	fmt.Fprintf(&b, "hw_mode=g\nchannel=%d\nieee80211n=1\nwmm_enabled=1\n", ch)
	fmt.Fprintf(&b, "auth_algs=1\nignore_broadcast_ssid=0\nmax_num_sta=8\n")
	fmt.Fprintf(&b, "wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nieee80211w=0\n")
	fmt.Fprintf(&b, "wpa_passphrase=%s\n", c.Passphrase)
	return b.Bytes(), nil
}

// Hostapd runs hostapd for the setup access point.
type Hostapd struct {
	Path string // the hostapd binary; "" is "hostapd" on PATH
	Dir  string // where the configuration is written (e.g. /run/openlolo)
	proc process
}

// Start writes the configuration and starts hostapd; it returns once
// hostapd answers PING on its control socket, or with hostapd's failure.
func (h *Hostapd) Start(ctx context.Context, cfg APConfig) error {
	conf, err := cfg.Config()
	if err != nil {
		return err
	}
	path, err := writeConf(h.Dir, "hostapd.conf", conf)
	if err != nil {
		return fmt.Errorf("wifi: hostapd: %w", err)
	}
	bin := h.Path
	if bin == "" {
		bin = "hostapd"
	}
	if err := h.proc.start("hostapd", bin, path); err != nil {
		return err
	}
	ctrl := &Ctrl{Path: filepath.Join(ctrlDir(cfg), cfg.Interface), LocalDir: h.Dir}
	for {
		if reply, err := ctrl.Request(ctx, "PING"); err == nil && strings.TrimSpace(reply) == "PONG" {
			return nil
		}
		if err := h.proc.exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			_ = h.proc.stop()
			return fmt.Errorf("wifi: hostapd: not answering: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func ctrlDir(c APConfig) string {
	if c.CtrlDir == "" {
		return "/run/hostapd"
	}
	return c.CtrlDir
}

// Stop ends hostapd (SIGTERM, then SIGKILL after 5 s).
func (h *Hostapd) Stop() error { return h.proc.stop() }
