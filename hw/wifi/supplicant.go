package wifi

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// Join failures, matched with errors.Is.
var (
	ErrWrongKey   = errors.New("wifi: the network refused the key")
	ErrNotFound   = errors.New("wifi: the network is not in range")
	ErrAuthFailed = errors.New("wifi: the network refused the connection")
)

// Supplicant is wpa_supplicant on one interface, through its control
// socket. wpa_supplicant must run with update_config=1 for Save.
type Supplicant struct {
	Ctrl Ctrl
}

// Scan asks for a scan and returns the results (strongest first, one
// per SSID, hidden networks last).
func (s *Supplicant) Scan(ctx context.Context) ([]Network, error) {
	ev, err := s.Ctrl.Attach(ctx)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	if reply, err := s.Ctrl.Request(ctx, "SCAN"); err != nil && !strings.HasPrefix(reply, "FAIL-BUSY") {
		return nil, err
	}
	for {
		msg, err := ev.Next(ctx)
		if err != nil {
			return nil, fmt.Errorf("wifi: scan: %w", err)
		}
		if strings.HasPrefix(msg, "CTRL-EVENT-SCAN-RESULTS") {
			break
		}
		if strings.HasPrefix(msg, "CTRL-EVENT-SCAN-FAILED") {
			return nil, fmt.Errorf("wifi: scan: %s", msg)
		}
	}
	reply, err := s.Ctrl.Request(ctx, "SCAN_RESULTS")
	if err != nil {
		return nil, err
	}
	return ParseScanResults(reply)
}

// Status returns wpa_supplicant's STATUS.
func (s *Supplicant) Status(ctx context.Context) (Status, error) {
	reply, err := s.Ctrl.Request(ctx, "STATUS")
	if err != nil {
		return Status{}, err
	}
	return ParseStatus(reply)
}

// Join adds the network (an empty passphrase is an open network; with one,
// WPA2 or WPA3-personal, whichever the network offers), selects it alone
// and waits for the association. It returns the network's id (also on a
// failed join, so the caller can Forget it) and ErrWrongKey, ErrNotFound
// or ErrAuthFailed when the network says so; notFoundAfter scans without
// it are ErrNotFound.
func (s *Supplicant) Join(ctx context.Context, ssid, passphrase string) (id string, err error) {
	if len(ssid) < 1 || len(ssid) > 32 {
		return "", fmt.Errorf("wifi: join: SSID is %d bytes, want 1..32", len(ssid))
	}
	if err := checkLine("passphrase", passphrase); err != nil {
		return "", err
	}
	ev, err := s.Ctrl.Attach(ctx)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	reply, err := s.Ctrl.Request(ctx, "ADD_NETWORK")
	if err != nil {
		return "", err
	}
	id = strings.TrimSpace(reply)
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("wifi: add network: reply %q is not an id", reply)
	}
	sets := []string{"ssid " + hex.EncodeToString([]byte(ssid)), "scan_ssid 1"}
	if passphrase == "" {
		sets = append(sets, "key_mgmt NONE")
	} else {
		// wpa_supplicant reads a quoted string up to the last quote, so a
		// quote inside the passphrase needs no escape.
		sets = append(sets, "key_mgmt WPA-PSK SAE", "ieee80211w 1", `psk "`+passphrase+`"`)
	}
	for _, set := range sets {
		if _, err := s.Ctrl.Request(ctx, "SET_NETWORK "+id+" "+set); err != nil {
			return id, fmt.Errorf("wifi: set network %s: %w", strings.Fields(set)[0], err)
		}
	}
	if _, err := s.Ctrl.Request(ctx, "SELECT_NETWORK "+id); err != nil {
		return id, err
	}
	notFound := 0
	for {
		msg, err := ev.Next(ctx)
		if err != nil {
			if notFound > 0 {
				return id, ErrNotFound
			}
			return id, fmt.Errorf("wifi: join: %w", err)
		}
		switch ParseEvent(msg) {
		case EventConnected:
			return id, nil
		case EventWrongKey:
			return id, ErrWrongKey
		case EventAuthFailed:
			return id, fmt.Errorf("%w: %s", ErrAuthFailed, msg)
		case EventNotFound:
			if notFound++; notFound >= notFoundAfter {
				return id, ErrNotFound
			}
		}
	}
}

// notFoundAfter is how many scans without the network make it not found.
const notFoundAfter = 3

// Keep saves id and lets the radio use every saved network again.
func (s *Supplicant) Keep(ctx context.Context, id string) error {
	if _, err := s.Ctrl.Request(ctx, "ENABLE_NETWORK all"); err != nil {
		return err
	}
	_, err := s.Ctrl.Request(ctx, "SAVE_CONFIG")
	return err
}

// Forget removes id and lets the radio use every other saved network
// again.
func (s *Supplicant) Forget(ctx context.Context, id string) error {
	if _, err := s.Ctrl.Request(ctx, "REMOVE_NETWORK "+id); err != nil {
		return err
	}
	_, err := s.Ctrl.Request(ctx, "ENABLE_NETWORK all")
	return err
}

// Link is an interface's address and default gateway from the kernel.
type Link struct {
	Addr           netip.Prefix
	Gateway        netip.Addr
	GatewayAnswers bool
}

// LinkOf reads iface's IPv4 address, its default gateway, and whether
// the gateway answers (after a datagram to its discard port, the ARP
// table has a complete entry for it).
func LinkOf(ctx context.Context, iface string) (Link, error) {
	var l Link
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return l, fmt.Errorf("wifi: link: %w", err)
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return l, fmt.Errorf("wifi: link: %w", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if p, err := netip.ParsePrefix(n.String()); err == nil && p.Addr().Is4() {
				l.Addr = p
				break
			}
		}
	}
	if !l.Addr.IsValid() {
		return l, nil
	}
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return l, fmt.Errorf("wifi: link: %w", err)
	}
	l.Gateway, err = DefaultGateway(f, iface)
	f.Close()
	if err != nil {
		return l, nil // an address, no gateway
	}
	d := net.Dialer{}
	if c, err := d.DialContext(ctx, "udp4", netip.AddrPortFrom(l.Gateway, 9).String()); err == nil {
		_, _ = c.Write([]byte{0})
		c.Close()
	}
	for range 10 {
		f, err := os.Open("/proc/net/arp")
		if err != nil {
			return l, fmt.Errorf("wifi: link: %w", err)
		}
		ok, err := NeighborAnswers(f, iface, l.Gateway)
		f.Close()
		if err != nil {
			return l, err
		}
		if ok {
			l.GatewayAnswers = true
			return l, nil
		}
		select {
		case <-ctx.Done():
			return l, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return l, nil
}

// Global is wpa_supplicant's global control socket (wpa_supplicant -g
// PATH), through which it lets go of an interface while hostapd has it
// and takes it back after: two daemons driving one radio at once fight
// over its mode.
type Global struct {
	Ctrl Ctrl
}

// Remove makes wpa_supplicant let go of iface. An interface it does not
// hold is not an error.
func (g *Global) Remove(ctx context.Context, iface string) error {
	reply, err := g.Ctrl.Request(ctx, "INTERFACE_REMOVE "+iface)
	if err != nil && strings.HasPrefix(reply, "FAIL") && !g.holds(ctx, iface) {
		return nil
	}
	return err
}

// Add makes wpa_supplicant take iface with its configuration file conf
// (whose ctrl_interface names the interface's socket folder).
func (g *Global) Add(ctx context.Context, iface, conf string) error {
	if g.holds(ctx, iface) {
		return nil
	}
	if strings.ContainsAny(iface+conf, "\t\n") {
		return fmt.Errorf("wifi: interface add: tab or newline in %q or %q", iface, conf)
	}
	_, err := g.Ctrl.Request(ctx, "INTERFACE_ADD "+iface+"\t"+conf+"\tnl80211")
	return err
}

func (g *Global) holds(ctx context.Context, iface string) bool {
	reply, err := g.Ctrl.Request(ctx, "INTERFACES")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(reply, "\n") {
		if strings.TrimSpace(l) == iface {
			return true
		}
	}
	return false
}

// Networks lists the saved networks (LIST_NETWORKS).
func (s *Supplicant) Networks(ctx context.Context) ([]Saved, error) {
	reply, err := s.Ctrl.Request(ctx, "LIST_NETWORKS")
	if err != nil {
		return nil, err
	}
	return ParseNetworks(reply), nil
}

// Remove forgets a saved network for good (REMOVE_NETWORK, SAVE_CONFIG).
func (s *Supplicant) Remove(ctx context.Context, id string) error {
	if _, err := strconv.Atoi(id); err != nil {
		return fmt.Errorf("wifi: remove network: %q is not an id", id)
	}
	if _, err := s.Ctrl.Request(ctx, "REMOVE_NETWORK "+id); err != nil {
		return err
	}
	_, err := s.Ctrl.Request(ctx, "SAVE_CONFIG")
	return err
}

// Signal returns the current link's signal (SIGNAL_POLL RSSI, dBm); ok
// is false when not associated.
func (s *Supplicant) Signal(ctx context.Context) (dBm int, ok bool) {
	reply, err := s.Ctrl.Request(ctx, "SIGNAL_POLL")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(reply, "\n") {
		if v, found := strings.CutPrefix(strings.TrimSpace(l), "RSSI="); found {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}
