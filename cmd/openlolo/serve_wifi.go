package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/wifi"
)

// wifiRadio is hw/wifi's wpa_supplicant, hostapd and udhcpd as the
// appliance's setupnet.Radio (and Scanner), used by serve --wifi. The
// image's network script starts wpa_supplicant with a global control
// socket and udhcpc on the interface; opening the setup network takes the
// radio from them in this order, closing gives it back in reverse:
//
//  1. scan (the list the setup page shows: a radio in AP mode cannot scan);
//  2. mark the interface as the setup network's (the udhcpc script then
//     leaves its addresses alone) and tell udhcpc to release its lease;
//  3. wpa_supplicant lets go of the interface (INTERFACE_REMOVE);
//  4. the setup address, hostapd, udhcpd.
type wifiRadio struct {
	iface    string // e.g. wlan0
	country  string // regulatory domain for the AP, "" for the kernel's
	conf     string // wpa_supplicant's configuration file (saved networks)
	addr     netip.Prefix
	marker   string // exists while the setup network has the interface
	dhcpcPID string // the interface's udhcpc pid file
	log      *slog.Logger

	sup    *wifi.Supplicant
	global *wifi.Global
	ap     *wifi.Hostapd
	dhcp   *wifi.DHCPServer
	addrs  wifi.Addrs

	mu     sync.Mutex
	apOpen bool
	ssid   string          // the setup network's, once opened
	seen   []setupnet.Seen // the scan before the AP opened
}

var _ setupnet.Radio = (*wifiRadio)(nil)

// radioPaths are where the image's network script puts wpa_supplicant's
// sockets, its configuration and udhcpc's pid file.
type radioPaths struct {
	ctrlDir, global, conf, dhcpcPID string
}

func defaultRadioPaths(iface string) radioPaths {
	return radioPaths{ctrlDir: "/run/wpa_supplicant", global: "/run/wpa_supplicant-global",
		conf: "/data/openlolo/wifi/wpa_supplicant.conf", dhcpcPID: "/run/udhcpc." + iface + ".pid"}
}

// newWiFiRadio is the radio on iface, with the setup address addr,
// hostapd's and udhcpd's files under runDir.
func newWiFiRadio(iface, country, runDir string, addr netip.Prefix, p radioPaths, log *slog.Logger) *wifiRadio {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &wifiRadio{
		iface: iface, country: country, conf: p.conf, addr: addr, log: log,
		marker:   filepath.Join(runDir, "setupnet."+iface),
		dhcpcPID: p.dhcpcPID,
		sup:      &wifi.Supplicant{Ctrl: wifi.Ctrl{Path: filepath.Join(p.ctrlDir, iface), LocalDir: runDir}},
		global:   &wifi.Global{Ctrl: wifi.Ctrl{Path: p.global, LocalDir: runDir}},
		ap:       &wifi.Hostapd{Dir: filepath.Join(runDir, "hostapd")},
		dhcp:     &wifi.DHCPServer{Dir: filepath.Join(runDir, "dhcp")},
	}
}

// OpenAP implements setupnet.Radio.
func (r *wifiRadio) OpenAP(ctx context.Context, ap setupnet.AP) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	seen, err := r.scan(sctx)
	cancel()
	if err != nil {
		r.log.Warn("scan before the setup network opens", "err", err)
	}
	r.seen, r.ssid = seen, ap.SSID
	if err := os.WriteFile(r.marker, []byte("setup network\n"), 0o644); err != nil {
		return fmt.Errorf("wifi radio: %w", err)
	}
	r.signalDHCPClient(syscall.SIGUSR2) // release: the lease is the home network's
	if err := r.global.Remove(ctx, r.iface); err != nil {
		r.undo(ctx)
		return fmt.Errorf("wifi radio: release the client side: %w", err)
	}
	r.apOpen = true
	if err := r.addrs.Set(ctx, r.iface, r.addr); err != nil {
		r.undo(ctx)
		return err
	}
	cfg := wifi.APConfig{Interface: r.iface, SSID: ap.SSID, Passphrase: ap.Passphrase, Country: r.country,
		CtrlDir: filepath.Join(r.ap.Dir, "ctrl")}
	actx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = r.ap.Start(actx, cfg)
	cancel()
	if err != nil {
		r.undo(ctx)
		return err
	}
	if err := r.dhcp.Start(ctx, wifi.DHCPConfig{Interface: r.iface, Server: r.addr}); err != nil {
		r.undo(ctx)
		return err
	}
	return nil
}

// CloseAP implements setupnet.Radio.
func (r *wifiRadio) CloseAP(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.apOpen {
		return nil
	}
	return r.undo(ctx)
}

// undo gives the radio back to wpa_supplicant and udhcpc.
func (r *wifiRadio) undo(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	errs := []error{r.dhcp.Stop(), r.ap.Stop()}
	if r.apOpen {
		errs = append(errs, r.addrs.Flush(ctx, r.iface))
	}
	if err := os.Remove(r.marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := r.global.Add(ctx, r.iface, r.conf); err != nil {
		errs = append(errs, fmt.Errorf("wifi radio: give the interface back to wpa_supplicant: %w", err))
	}
	r.apOpen = false
	r.signalDHCPClient(syscall.SIGUSR1) // ask for a lease again
	return errors.Join(errs...)
}

// signalDHCPClient signals the interface's udhcpc, if one runs.
func (r *wifiRadio) signalDHCPClient(sig syscall.Signal) {
	b, err := os.ReadFile(r.dhcpcPID)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	if err := syscall.Kill(pid, sig); err != nil {
		r.log.Debug("signal udhcpc", "pid", pid, "err", err)
	}
}

// Join implements setupnet.Radio.
func (r *wifiRadio) Join(ctx context.Context, n setupnet.Network) (string, error) {
	id, err := r.sup.Join(ctx, n.SSID, n.Passphrase)
	if err != nil {
		return id, &setupnet.JoinError{Reason: joinReason(err), Err: err}
	}
	r.signalDHCPClient(syscall.SIGUSR1) // associated: ask for an address now
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

// Scan implements setupnet.Scanner: while the setup network is open,
// the networks seen just before it opened; else a new scan.
func (r *wifiRadio) Scan(ctx context.Context) ([]setupnet.Seen, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.apOpen {
		return append([]setupnet.Seen(nil), r.seen...), nil
	}
	return r.scan(ctx)
}

func (r *wifiRadio) scan(ctx context.Context) ([]setupnet.Seen, error) {
	nets, err := r.sup.Scan(ctx)
	out := make([]setupnet.Seen, 0, len(nets))
	for _, n := range nets {
		out = append(out, setupnet.Seen{SSID: n.SSID, Signal: n.Signal, Security: string(n.Security)})
	}
	return out, err
}

// hasSaved reports whether wpa_supplicant has a saved network.
func (r *wifiRadio) hasSaved(ctx context.Context) bool {
	nets, err := r.sup.Networks(ctx)
	return err == nil && len(nets) > 0
}

// apSSID is the setup network's name, once it has opened.
func (r *wifiRadio) apSSID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ssid
}
