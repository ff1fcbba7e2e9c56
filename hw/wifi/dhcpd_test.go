package wifi

import (
	"net/netip"
	"os"
	"strings"
	"testing"
)

func TestDHCPConfigGolden(t *testing.T) {
	conf, err := DHCPConfig{Interface: "wlan0", Server: netip.MustParsePrefix("192.168.4.1/24"), Dir: "/run/openlolo/dhcp"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	path := "testdata/udhcpd.conf"
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
		t.Fatalf("udhcpd config differs from %s (-update after checking):\n%s", path, conf)
	}
	for _, line := range []string{"start 192.168.4.10", "end 192.168.4.25", "option router 192.168.4.1", "option dns 192.168.4.1", "option subnet 255.255.255.0"} {
		if !strings.Contains(string(conf), "\n"+line+"\n") {
			t.Errorf("config lacks %q", line)
		}
	}
}

func TestDHCPConfigRefusals(t *testing.T) {
	for _, c := range []DHCPConfig{
		{Interface: "", Server: netip.MustParsePrefix("192.168.4.1/24")},
		{Interface: "wlan0 x", Server: netip.MustParsePrefix("192.168.4.1/24")},
		{Interface: "wlan0"},
		{Interface: "wlan0", Server: netip.MustParsePrefix("fd00::1/64")},
		{Interface: "wlan0", Server: netip.MustParsePrefix("192.168.4.1/30")},
		{Interface: "wlan0", Server: netip.MustParsePrefix("192.168.4.1/28"), Leases: 6},
		{Interface: "wlan0", Server: netip.MustParsePrefix("192.168.4.1/24"), Dir: "/a b"},
	} {
		if _, err := c.Config(); err == nil {
			t.Errorf("DHCPConfig%+v.Config() = nil error, want a refusal", c)
		}
	}
	if _, err := (DHCPConfig{Interface: "wlan0", Server: netip.MustParsePrefix("192.168.4.1/28"), Leases: 5}).Config(); err != nil {
		t.Errorf("5 leases in a /28 from .10: %v", err)
	}
}
