package wifi

import (
	"net/netip"
	"os"
	"strings"
	"testing"
)

// The testdata files are in the daemons' and the kernel's formats
// (wpa_supplicant 2.10 ctrl_iface.c SCAN_RESULTS and STATUS, Linux
// /proc/net/route and /proc/net/arp), written for these tests, not
// captured from the box's radio.

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseScanResults(t *testing.T) {
	got, err := ParseScanResults(read(t, "scan_results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Network{
		{BSSID: "a4:2b:b0:11:22:33", SSID: "home", Freq: 2437, Signal: -48, Security: SecurityWPA2},
		{BSSID: "00:1d:aa:01:02:03", SSID: "sae-only", Freq: 2462, Signal: -55, Security: SecurityWPA3},
		{BSSID: "3c:84:6a:de:ad:01", SSID: "corp", Freq: 2437, Signal: -66, Security: SecurityEnt},
		{BSSID: "f0:9f:c2:aa:bb:cc", SSID: `Café "Lolo"`, Freq: 2412, Signal: -70, Security: SecurityMix},
		{BSSID: "3c:84:6a:de:ad:00", SSID: "open-cafe", Freq: 2437, Signal: -80, Security: SecurityOpen},
		{BSSID: "3c:84:6a:de:ad:02", SSID: "", Freq: 2437, Signal: -58, Security: SecurityWPA2},
		{BSSID: "3c:84:6a:de:ad:03", SSID: "", Freq: 2437, Signal: -75, Security: SecurityWPA2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d networks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("network %d = %+v\nwant         %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "no header\n", "bssid / frequency / signal level / flags / ssid\nxx\t24x7\t-1\t[ESS]\tx\n",
		"bssid / frequency / signal level / flags / ssid\na\t2412\t-1\t[ESS]\tbad\\q\n"} {
		if _, err := ParseScanResults(bad); err == nil {
			t.Errorf("ParseScanResults(%q) succeeded", bad)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`plain`: "plain", `a\\b`: `a\b`, `\"q\"`: `"q"`, `\x41\x00z`: "A\x00z", `t\tn\n`: "t\tn\n"} {
		if got, err := Unescape(in); err != nil || got != want {
			t.Errorf("Unescape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`end\`, `\x4`, `\xzz`, `\q`} {
		if got, err := Unescape(bad); err == nil {
			t.Errorf("Unescape(%q) = %q, want an error", bad, got)
		}
	}
}

func TestParseStatus(t *testing.T) {
	st, err := ParseStatus(read(t, "status.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := Status{State: "COMPLETED", SSID: "home", BSSID: "a4:2b:b0:11:22:33", ID: "1", Freq: 2437, KeyMgmt: "WPA2-PSK",
		IPAddress: netip.MustParseAddr("192.168.1.23")}
	if st != want {
		t.Fatalf("status %+v\nwant   %+v", st, want)
	}
	if st, err := ParseStatus("wpa_state=SCANNING\naddress=b8:27:eb:01:02:03\n"); err != nil || st.State != "SCANNING" || st.SSID != "" {
		t.Fatalf("scanning: %+v, %v", st, err)
	}
	for _, bad := range []string{"", "address=x\n", "wpa_state=COMPLETED\ngarbage\n", "wpa_state=COMPLETED\nip_address=1.2.3\n"} {
		if _, err := ParseStatus(bad); err == nil {
			t.Errorf("ParseStatus(%q) succeeded", bad)
		}
	}
}

func TestParseEvent(t *testing.T) {
	for msg, want := range map[string]EventKind{
		"CTRL-EVENT-CONNECTED - Connection to a4:2b:b0:11:22:33 completed [id=1 id_str=]":               EventConnected,
		`CTRL-EVENT-SSID-TEMP-DISABLED id=1 ssid="home" auth_failures=1 duration=10 reason=WRONG_KEY`:   EventWrongKey,
		`CTRL-EVENT-SSID-TEMP-DISABLED id=1 ssid="home" auth_failures=2 duration=20 reason=CONN_FAILED`: EventAuthFailed,
		"CTRL-EVENT-ASSOC-REJECT bssid=a4:2b:b0:11:22:33 status_code=17":                                EventAuthFailed,
		"CTRL-EVENT-NETWORK-NOT-FOUND": EventNotFound,
		"CTRL-EVENT-SCAN-RESULTS ":     EventOther,
		"CTRL-EVENT-DISCONNECTED bssid=a4:2b:b0:11:22:33 reason=3 locally_generated=1": EventOther,
	} {
		if got := ParseEvent(msg); got != want {
			t.Errorf("ParseEvent(%q) = %d, want %d", msg, got, want)
		}
	}
}

func TestDefaultGateway(t *testing.T) {
	route := read(t, "route.txt")
	for iface, want := range map[string]string{"wlan0": "192.168.1.1", "eth0": "192.168.1.254"} {
		gw, err := DefaultGateway(strings.NewReader(route), iface)
		if err != nil || gw != netip.MustParseAddr(want) {
			t.Errorf("DefaultGateway(%s) = %v, %v; want %s", iface, gw, err, want)
		}
	}
	if gw, err := DefaultGateway(strings.NewReader(route), "usb0"); err == nil {
		t.Errorf("usb0 has gateway %v", gw)
	}
}

func TestNeighborAnswers(t *testing.T) {
	arp := read(t, "arp.txt")
	for _, tc := range []struct {
		iface, ip string
		want      bool
	}{{"wlan0", "192.168.1.1", true}, {"wlan0", "192.168.1.7", false}, {"eth0", "192.168.1.254", false}, {"wlan0", "192.168.1.254", false}} {
		got, err := NeighborAnswers(strings.NewReader(arp), tc.iface, netip.MustParseAddr(tc.ip))
		if err != nil || got != tc.want {
			t.Errorf("NeighborAnswers(%s, %s) = %v, %v; want %v", tc.iface, tc.ip, got, err, tc.want)
		}
	}
}

func TestParseNetworks(t *testing.T) {
	reply := "network id / ssid / bssid / flags\n0\thome\tany\t[CURRENT]\n1\tcaf\\xc3\\xa9 \\\"x\\\"\tany\t[DISABLED]\nx\tbad\tany\t\n"
	got := ParseNetworks(reply)
	want := []Saved{{ID: "0", SSID: "home", Current: true}, {ID: "1", SSID: "café \"x\"", Disabled: true}}
	if len(got) != len(want) {
		t.Fatalf("ParseNetworks = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ParseNetworks[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
