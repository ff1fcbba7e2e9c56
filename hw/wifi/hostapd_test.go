package wifi

import (
	"context"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestHostapdConfigGolden(t *testing.T) {
	conf, err := APConfig{Interface: "wlan0", SSID: "openlolo-setup-3f2a", Passphrase: "k7dm-2xqa-9fhe-wp3t", Country: "DE"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	path := "testdata/hostapd.conf"
	if *update {
		if err := os.WriteFile(path, conf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(conf) != string(want) {
		t.Fatalf("hostapd config differs from %s (-update after checking):\n%s", path, conf)
	}
	// The facts the Pi needs, whatever else changes.
	for _, line := range []string{"wpa=2", "wpa_key_mgmt=WPA-PSK", "rsn_pairwise=CCMP", "ieee80211w=0", "ssid2=6f70656e6c6f6c6f2d73657475702d33663261"} {
		if !strings.Contains(string(conf), "\n"+line+"\n") {
			t.Errorf("config lacks %s", line)
		}
	}
}

func TestHostapdConfigRefusals(t *testing.T) {
	ok := APConfig{Interface: "wlan0", SSID: "openlolo-setup-3f2a", Passphrase: "k7dm-2xqa-9fhe-wp3t"}
	for name, mod := range map[string]func(*APConfig){
		"no interface":      func(c *APConfig) { c.Interface = "" },
		"interface path":    func(c *APConfig) { c.Interface = "../x" },
		"empty ssid":        func(c *APConfig) { c.SSID = "" },
		"long ssid":         func(c *APConfig) { c.SSID = strings.Repeat("a", 33) },
		"short passphrase":  func(c *APConfig) { c.Passphrase = "short" },
		"newline in pass":   func(c *APConfig) { c.Passphrase = "password\nwpa=0" },
		"channel 14":        func(c *APConfig) { c.Channel = 14 },
		"lowercase country": func(c *APConfig) { c.Country = "de" },
	} {
		c := ok
		mod(&c)
		if _, err := c.Config(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// An SSID with any bytes is written as hex, not as a line to break.
	c := ok
	c.SSID = "a\nwpa=0"
	conf, err := c.Config()
	if err != nil || strings.Contains(string(conf), "\nwpa=0\n") || !strings.Contains(string(conf), "\nssid2=610a7770613d30\n") {
		t.Fatalf("ssid with a newline: %v\n%s", err, conf)
	}
}

// The test binary stands in for hostapd when OPENLOLO_FAKE_HOSTAPD is
// set: it reads the configuration it is given, answers PING on the
// control socket the configuration names, and runs until signalled.
func TestMain(m *testing.M) {
	if os.Getenv("OPENLOLO_FAKE_HOSTAPD") == "1" {
		fakeHostapd()
		return
	}
	os.Exit(m.Run())
}

func fakeHostapd() {
	conf, err := os.ReadFile(os.Args[len(os.Args)-1])
	if err != nil {
		os.Stderr.WriteString("fake hostapd: " + err.Error())
		os.Exit(1)
	}
	var iface, dir string
	for _, line := range strings.Split(string(conf), "\n") {
		if v, ok := strings.CutPrefix(line, "interface="); ok {
			iface = v
		}
		if v, ok := strings.CutPrefix(line, "ctrl_interface="); ok {
			dir = v
		}
	}
	if iface == "fail0" {
		os.Stderr.WriteString("nl80211: Could not configure driver mode\n")
		os.Exit(1)
	}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, iface), Net: "unixgram"})
	if err != nil {
		os.Exit(1)
	}
	buf := make([]byte, 256)
	for {
		n, from, err := conn.ReadFromUnix(buf)
		if err != nil {
			os.Exit(1)
		}
		if string(buf[:n]) == "PING" {
			conn.WriteToUnix([]byte("PONG\n"), from)
		}
	}
}

func TestHostapdStartStop(t *testing.T) {
	t.Setenv("OPENLOLO_FAKE_HOSTAPD", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "hostapd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cfg := APConfig{Interface: "wlan0", SSID: "openlolo-setup-3f2a", Passphrase: "k7dm-2xqa-9fhe-wp3t", CtrlDir: dir}
	h := &Hostapd{Path: exe, Dir: dir}
	if err := h.Start(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "hostapd.conf")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v, want mode 0600 (it holds the passphrase)", err, fi)
	}
	if err := h.Start(ctx, cfg); err == nil {
		t.Fatal("second Start succeeded")
	}
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
	cfg.Interface = "fail0"
	if err := h.Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), "Could not configure driver mode") {
		t.Fatalf("failing hostapd: %v, want its message", err)
	}
}
