package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/openlolo/openlolo/image/card"
)

// wifiTest is the setup Wi-Fi scenario (make test-wifi). The card boots
// with openlolo.hwsim=3: rcS loads mac80211_hwsim with three radios,
// wlan0 (the box's), wlan1 and wlan2. Over the debug shell the test moves
// wlan1 into a network namespace of its own, the "home" network (hostapd,
// WPA2, and busybox udhcpd), and wlan2 into another, the "phone"
// (wpa_supplicant, udhcpc, busybox wget and nslookup as the scripted HTTP
// client). The three radios hear each other over hwsim's shared medium;
// the namespaces keep each side's addresses its own, so every packet
// between them goes over the simulated air.
//
// The box's wired link (QEMU's user network) is the test's control
// channel (the debug shell, the HTTPS port forward): openlolo.wired=none
// tells serve to leave it out of the "is there a link" decision, so to the
// setup policy the box has no wired link.
type wifiTest struct {
	*test
	ssid, password string // the setup network, from the card
	owner          string // the passphrase the phone claims with
	homeNS, phone  string // the namespaces' holder pids
	boxHomeIP      string
}

const (
	homeSSID = "home"
	homePass = "home-password-1"
)

func (w *wifiTest) run(ctx context.Context) {
	c, err := card.Open(w.img)
	if !w.r.check("card: the image opens", err) {
		return
	}
	w.files, err = readBootFiles(ctx, c, w.dir)
	if !w.r.check("card: kernel, initramfs and cmdline.txt are on the boot partition", err) {
		return
	}
	w.disk = filepath.Join(w.dir, "sd.img")
	if !w.r.check("card: copied to a 1 GiB virtual SD card", sparseCopy(ctx, w.img, w.disk, diskSize)) {
		return
	}
	w.owner = "correct horse battery staple"
	m, ok := w.boot(ctx, "wifi boot 1")
	if !ok {
		return
	}
	sh := w.shell(m)
	defer func() {
		if w.r.failed > 0 {
			out, _, _ := sh.run(context.WithoutCancel(ctx), "tail -n 60 /data/log/messages; ps; ip addr; iw dev")
			fmt.Printf("--- the box's log ends:\n%s\n---\n", out)
		}
	}()
	start := time.Now()
	if !w.r.check("wifi: the setup network opens (no saved Wi-Fi, no wired link)", w.setupOpen(ctx, m, sh)) {
		return
	}
	w.r.figure("setup network open after serve started", "%.1f s", time.Since(start).Seconds())
	if !w.r.check("wifi: the home access point (hostapd on radio 2, its own namespace) and the phone (radio 3) are set up", w.namespaces(ctx, sh)) {
		return
	}
	if !w.r.check("wifi: the phone joins the setup network and gets an address from the box", w.phoneJoins(ctx, sh, w.setupConf(), "192.168.4.")) {
		return
	}
	if !w.r.check("wifi: the captive probe (connectivitycheck.gstatic.com/generate_204) resolves to the box and is sent to the box page", w.captive(ctx, sh)) {
		return
	}
	if !w.r.check("wifi: the phone claims the box on the setup network without the setup code", w.claim(ctx, sh)) {
		return
	}
	if !w.r.check("wifi: a wrong home password reopens the setup network with the reason", w.wrongPassword(ctx, m, sh)) {
		return
	}
	if !w.r.check("wifi: the box joins home with the right password and answers HTTPS there", w.joinHome(ctx, m, sh)) {
		return
	}
	sh.run(ctx, detached("reboot"))
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = m.wait(wctx)
	cancel()
	if !w.r.check("wifi: clean reboot", err) {
		return
	}
	m, ok = w.boot(ctx, "wifi boot 2")
	if !ok {
		return
	}
	defer m.pull()
	w.r.check("wifi: after a reboot the box is back on home (the saved network) and the setup network stays closed", w.afterReboot(ctx, m, w.shell(m)))
}

// boot starts the card with three hwsim radios and waits for serve.
func (w *wifiTest) boot(ctx context.Context, label string) (*machine, bool) {
	m, err := boot(ctx, machineSpec{disk: w.disk, files: w.files, echo: w.echo,
		cmdline: []string{"openlolo.hwsim=3", "openlolo.wired=none"}})
	if !w.r.check(label+": QEMU -M virt starts with three mac80211_hwsim radios", err) {
		return nil, false
	}
	// a loaded machine emulates slowly: the boot alone took 4 minutes here
	wctx, cancel := context.WithTimeout(ctx, 8*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "Fingerprint:"); err != nil {
		m.pull()
		w.r.check(label+": openlolo serve starts", fmt.Errorf("%w; console ends:\n%s", err, tail(m.con.text(), 30)))
		return nil, false
	}
	if !w.r.check(label+": openlolo serve starts with --wifi wlan0", consoleHas(m.con, "--wifi wlan0")) {
		m.pull()
		return nil, false
	}
	return m, true
}

// poll runs cmd until its output has want or the time is up.
func poll(ctx context.Context, sh shell, cmd, want string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		out, _, err := sh.run(ctx, cmd)
		if err == nil && strings.Contains(out, want) {
			return out, nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return out, err
			}
			return out, fmt.Errorf("%s: after %v, %q lacks %q", cmd, limit, tail(out, 8), want)
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// must runs cmd and wants status 0.
func must(ctx context.Context, sh shell, cmd string) (string, error) {
	out, st, err := sh.run(ctx, cmd)
	if err == nil && st != 0 {
		err = fmt.Errorf("%s: status %d: %s", cmd, st, tail(out, 10))
	}
	return out, err
}

var (
	cardName = regexp.MustCompile(`name:\s+(\S+)`)
	cardPass = regexp.MustCompile(`password:\s+(\S+)`)
)

func (w *wifiTest) setupOpen(ctx context.Context, m *machine, sh shell) error {
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, `msg="setupnet: setup network open"`); err != nil {
		return fmt.Errorf("the console never says the setup network opened: %w; it ends:\n%s", err, tail(m.con.text(), 25))
	}
	card, err := must(ctx, sh, "cat /boot/openlolo/setup-card.txt")
	if err != nil {
		return err
	}
	n, p := cardName.FindStringSubmatch(card), cardPass.FindStringSubmatch(card)
	if n == nil || p == nil {
		return fmt.Errorf("setup-card.txt has no name or password: %q", card)
	}
	w.ssid, w.password = n[1], p[1]
	if !strings.HasPrefix(w.ssid, "openlolo-setup-") {
		return fmt.Errorf("the setup network is %q, want openlolo-setup-xxxx", w.ssid)
	}
	if !strings.Contains(m.con.text(), w.password) {
		return errors.New("the setup password is not on the console")
	}
	if _, err := poll(ctx, sh, "iw dev wlan0 info", "type AP", 30*time.Second); err != nil {
		return err
	}
	_, err = poll(ctx, sh, "ip -4 addr show wlan0", "192.168.4.1/24", 30*time.Second)
	return err
}

// namespaces moves radios 2 and 3 into namespaces of their own and starts
// the home network in the first.
func (w *wifiTest) namespaces(ctx context.Context, sh shell) error {
	// a process in a new network namespace holds it; the subshell execs
	// unshare, which execs sleep, so $! is the holder (setsid would fork
	// under the debug shell's job control) and it ignores the telnet
	// session's hangup
	holder := func(name string) (string, error) {
		out, err := must(ctx, sh, "mkdir -p /tmp/"+name+"; "+
			"(trap '' HUP; exec unshare -n sleep 100000) < /dev/null > /dev/null 2>&1 & echo $! > /tmp/"+name+"/ns.pid; sleep 1; cat /tmp/"+name+"/ns.pid")
		return strings.TrimSpace(out), err
	}
	var err error
	if w.homeNS, err = holder("home"); err != nil {
		return err
	}
	if w.phone, err = holder("phone"); err != nil {
		return err
	}
	for _, mv := range []struct{ dev, pid string }{{"wlan1", w.homeNS}, {"wlan2", w.phone}} {
		if _, err := must(ctx, sh, "iw phy $(cat /sys/class/net/"+mv.dev+"/phy80211/name) set netns "+mv.pid); err != nil {
			return err
		}
	}
	home := "nsenter -t " + w.homeNS + " -n "
	hostapd := fmt.Sprintf("interface=wlan1\\ndriver=nl80211\\nssid=%s\\nhw_mode=g\\nchannel=1\\nwpa=2\\nwpa_key_mgmt=WPA-PSK\\nrsn_pairwise=CCMP\\nwpa_passphrase=%s\\n", homeSSID, homePass)
	udhcpd := "interface wlan1\\nstart 192.168.50.100\\nend 192.168.50.120\\nlease_file /tmp/home/leases\\npidfile /tmp/home/udhcpd.pid\\noption subnet 255.255.255.0\\noption router 192.168.50.1\\noption lease 600\\n"
	for _, cmd := range []string{
		home + "ip link set lo up",
		home + "ip addr add 192.168.50.1/24 dev wlan1",
		home + "ip link set wlan1 up",
		"printf '" + hostapd + "' > /tmp/home/hostapd.conf",
		home + "hostapd -B -P /tmp/home/hostapd.pid /tmp/home/hostapd.conf",
		"printf '" + udhcpd + "' > /tmp/home/udhcpd.conf && touch /tmp/home/leases",
		home + "udhcpd /tmp/home/udhcpd.conf",
		"nsenter -t " + w.phone + " -n ip link set lo up",
		"nsenter -t " + w.phone + " -n ip link set wlan2 up",
		// the phone's DHCP client script: its own address and route, the
		// lease's DNS server noted for the captive probe
		`printf '#!/bin/sh\ncase "$1" in\nbound|renew) ip -4 addr flush dev $interface; ip -4 addr add $ip/${mask:-24} dev $interface; ip route replace default via $router dev $interface; echo "ip=$ip router=$router dns=$dns" > /tmp/phone/lease;;\ndeconfig) ip -4 addr flush dev $interface; ip link set $interface up;;\nesac\n' > /tmp/phone/udhcpc.sh && chmod 755 /tmp/phone/udhcpc.sh`,
	} {
		if _, err := must(ctx, sh, cmd); err != nil {
			return err
		}
	}
	_, err = poll(ctx, sh, home+"iw dev wlan1 info", "type AP", 15*time.Second)
	return err
}

func (w *wifiTest) setupConf() string {
	return fmt.Sprintf("ctrl_interface=/tmp/phone/ctrl\nnetwork={\n ssid=\"%s\"\n psk=\"%s\"\n key_mgmt=WPA-PSK\n}\n", w.ssid, w.password)
}

// phoneJoins (re)starts the phone's wpa_supplicant with conf, waits for
// the association and an address in want's network.
func (w *wifiTest) phoneJoins(ctx context.Context, sh shell, conf, want string) error {
	ph := "nsenter -t " + w.phone + " -n "
	if _, err := must(ctx, sh, "[ -f /tmp/phone/wpa.pid ] && kill $(cat /tmp/phone/wpa.pid); sleep 1; rm -f /tmp/phone/lease; "+
		"printf '"+strings.ReplaceAll(conf, "\n", "\\n")+"' > /tmp/phone/wpa.conf && "+
		ph+"wpa_supplicant -B -i wlan2 -c /tmp/phone/wpa.conf -P /tmp/phone/wpa.pid"); err != nil {
		return err
	}
	if _, err := poll(ctx, sh, ph+"iw dev wlan2 link", "Connected to", 60*time.Second); err != nil {
		return fmt.Errorf("the phone does not associate: %w", err)
	}
	return w.phoneLease(ctx, sh, want)
}

func (w *wifiTest) phoneLease(ctx context.Context, sh shell, want string) error {
	ph := "nsenter -t " + w.phone + " -n "
	out, err := must(ctx, sh, "rm -f /tmp/phone/lease; "+ph+"udhcpc -i wlan2 -n -q -t 8 -T 2 -s /tmp/phone/udhcpc.sh > /dev/null 2>&1; cat /tmp/phone/lease")
	if err != nil {
		return fmt.Errorf("the phone gets no address: %w", err)
	}
	if !strings.Contains(out, "ip="+want) {
		return fmt.Errorf("the phone's lease %q is not in %sx", out, want)
	}
	return nil
}

func (w *wifiTest) phoneRun(ctx context.Context, sh shell, cmd string) (string, error) {
	return must(ctx, sh, "nsenter -t "+w.phone+" -n "+cmd)
}

func (w *wifiTest) captive(ctx context.Context, sh shell) error {
	lease, err := must(ctx, sh, "cat /tmp/phone/lease")
	if err != nil {
		return err
	}
	if !strings.Contains(lease, "dns=192.168.4.1") || !strings.Contains(lease, "router=192.168.4.1") {
		return fmt.Errorf("the lease %q does not name the box as DNS server and router", lease)
	}
	// busybox nslookup asks for A and AAAA; the box answers AAAA with
	// nothing, which nslookup reports (and exits 1 for): read the A answer
	out, _, err := sh.run(ctx, "nsenter -t "+w.phone+" -n nslookup connectivitycheck.gstatic.com 192.168.4.1")
	if err != nil {
		return err
	}
	if i := strings.Index(out, "Name:"); i < 0 || !regexp.MustCompile(`Address:\s*192\.168\.4\.1\b`).MatchString(out[i:]) {
		return fmt.Errorf("connectivitycheck.gstatic.com resolves to %q, want the box", out)
	}
	// the probe as Android sends it, to the address DNS gave (busybox
	// wget would keep a given Host on the redirect), then the redirect
	out, err = w.phoneRun(ctx, sh, `sh -c "printf 'GET /generate_204 HTTP/1.1\r\nHost: connectivitycheck.gstatic.com\r\nConnection: close\r\n\r\n' | nc 192.168.4.1 80"`)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "HTTP/1.1 302") || !strings.Contains(out, "Location: http://192.168.4.1/") {
		return fmt.Errorf("the probe was not redirected to the box page: %s", tail(out, 15))
	}
	out, err = w.phoneRun(ctx, sh, "wget -q -O - http://192.168.4.1/")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "openlolo setup") || !strings.Contains(out, `id="claim"`) {
		return fmt.Errorf("the redirect does not end on the setup page with its claim form: %s", tail(out, 15))
	}
	return nil
}

// post sends a form from the phone to the setup page and returns the body.
func (w *wifiTest) post(ctx context.Context, sh shell, path, form string) (string, error) {
	return w.phoneRun(ctx, sh, "wget -q -O - --post-data '"+form+"' http://192.168.4.1"+path)
}

func (w *wifiTest) claim(ctx context.Context, sh shell) error {
	pass := strings.ReplaceAll(w.owner, " ", "+")
	out, err := w.post(ctx, sh, "/claim", "passphrase="+pass+"&confirm="+pass)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "The box is yours") {
		return fmt.Errorf("the claim answered: %s", tail(out, 10))
	}
	out, err = w.phoneRun(ctx, sh, "wget -q -O - http://192.168.4.1/")
	if err != nil {
		return err
	}
	if strings.Contains(out, `id="claim"`) {
		return errors.New("the setup page still offers the claim")
	}
	if _, st, _ := sh.run(ctx, "test -e /boot/openlolo/setup-code.txt"); st == 0 {
		return errors.New("setup-code.txt is still on the boot partition after the claim")
	}
	return nil
}

func (w *wifiTest) join(ctx context.Context, sh shell, pass string) error {
	owner := strings.ReplaceAll(w.owner, " ", "+")
	out, err := w.post(ctx, sh, "/join", "ssid=-&hidden="+homeSSID+"&passphrase="+pass+"&owner="+owner)
	if err != nil {
		return err
	}
	if !strings.Contains(out, `id="handoff"`) || !strings.Contains(out, ".local") {
		return fmt.Errorf("the join answered without the handoff: %s", tail(out, 10))
	}
	return nil
}

func (w *wifiTest) wrongPassword(ctx context.Context, m *machine, sh shell) error {
	if err := w.join(ctx, sh, "not-the-password"); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "join failed; reopening the setup network"); err != nil {
		return fmt.Errorf("no failed join on the console: %w; it ends:\n%s", err, tail(m.con.text(), 20))
	}
	if _, err := poll(ctx, sh, "iw dev wlan0 info", "type AP", 60*time.Second); err != nil {
		return fmt.Errorf("the setup network did not reopen: %w", err)
	}
	// the phone's wpa_supplicant finds the setup network again by itself
	if _, err := poll(ctx, sh, "nsenter -t "+w.phone+" -n iw dev wlan2 link", "Connected to", 90*time.Second); err != nil {
		return fmt.Errorf("the phone does not rejoin the setup network: %w", err)
	}
	if err := w.phoneLease(ctx, sh, "192.168.4."); err != nil {
		return err
	}
	out, err := w.phoneRun(ctx, sh, "wget -q -O - http://192.168.4.1/")
	if err != nil {
		return err
	}
	if !strings.Contains(out, `id="reason"`) || !strings.Contains(out, "refused the password") {
		return fmt.Errorf("the setup page does not say why: %s", tail(out, 12))
	}
	if !strings.Contains(out, `value="`+homeSSID+`"`) {
		return fmt.Errorf("the reopened setup page does not list %q (scanned before the AP opened): %s", homeSSID, tail(out, 12))
	}
	return nil
}

func (w *wifiTest) joinHome(ctx context.Context, m *machine, sh shell) error {
	if err := w.join(ctx, sh, homePass); err != nil {
		return err
	}
	out, err := poll(ctx, sh, "ip -4 addr show wlan0", "192.168.50.", 2*time.Minute)
	if err != nil {
		return fmt.Errorf("the box has no home address: %w", err)
	}
	ip := regexp.MustCompile(`inet (192\.168\.50\.\d+)`).FindStringSubmatch(out)
	if ip == nil {
		return fmt.Errorf("no home address in %q", out)
	}
	w.boxHomeIP = ip[1]
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "setupnet: joined"); err != nil {
		return fmt.Errorf("the box did not confirm the join: %w", err)
	}
	if out, _, _ := sh.run(ctx, "iw dev wlan0 info"); !strings.Contains(out, "type managed") {
		return fmt.Errorf("wlan0 is not back in station mode: %s", out)
	}
	// the phone follows the handoff: it joins home too and opens the box there
	if err := w.phoneJoins(ctx, sh, fmt.Sprintf("ctrl_interface=/tmp/phone/ctrl\nnetwork={\n ssid=\"%s\"\n psk=\"%s\"\n}\n", homeSSID, homePass), "192.168.50."); err != nil {
		return err
	}
	return w.https(ctx, m, sh)
}

// https checks from the phone, on the home network, that the box answers
// HTTPS there with its own certificate: openlolo fingerprint (Go's TLS;
// busybox's TLS client has no ECDSA, the box's key) against the console's
// fingerprint, and that its plain-HTTP entry sends the page to HTTPS.
func (w *wifiTest) https(ctx context.Context, m *machine, sh shell) error {
	fp := m.con.value("Fingerprint:")
	out, err := w.phoneRun(ctx, sh, "openlolo fingerprint https://"+w.boxHomeIP)
	if err != nil {
		return fmt.Errorf("HTTPS on the home network: %w", err)
	}
	if fp == "" || !strings.Contains(strings.ReplaceAll(strings.ToLower(out), ":", ""), strings.ToLower(fp)) {
		return fmt.Errorf("https://%s shows %q, the console printed fingerprint %s", w.boxHomeIP, out, fp)
	}
	out, err = w.phoneRun(ctx, sh, `sh -c "printf 'GET /status HTTP/1.1\r\nHost: `+w.boxHomeIP+`\r\nConnection: close\r\n\r\n' | nc `+w.boxHomeIP+` 80"`)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "Location: https://"+w.boxHomeIP) {
		return fmt.Errorf("http://%s/ does not send the page to HTTPS: %s", w.boxHomeIP, tail(out, 8))
	}
	return nil
}

func (w *wifiTest) afterReboot(ctx context.Context, m *machine, sh shell) error {
	if _, err := must(ctx, sh, "grep -c '^network={' /data/openlolo/wifi/wpa_supplicant.conf"); err != nil {
		return fmt.Errorf("no saved network on /data: %w", err)
	}
	// the home network and the phone come back as the box boots (the
	// router after a power cut): the box waits for its saved network
	if err := w.namespaces(ctx, sh); err != nil {
		return err
	}
	out, err := poll(ctx, sh, "ip -4 addr show wlan0", "192.168.50.", 2*time.Minute)
	if err != nil {
		return fmt.Errorf("the box is not back on home: %w", err)
	}
	ip := regexp.MustCompile(`inet (192\.168\.50\.\d+)`).FindStringSubmatch(out)
	if ip == nil {
		return fmt.Errorf("no home address in %q", out)
	}
	w.boxHomeIP = ip[1]
	if strings.Contains(m.con.text(), `msg="setupnet: setup network open"`) {
		return errors.New("the setup network opened although the saved network came back")
	}
	if err := w.phoneJoins(ctx, sh, fmt.Sprintf("ctrl_interface=/tmp/phone/ctrl\nnetwork={\n ssid=\"%s\"\n psk=\"%s\"\n}\n", homeSSID, homePass), "192.168.50."); err != nil {
		return err
	}
	return w.https(ctx, m, sh)
}
