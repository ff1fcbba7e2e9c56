package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/sdk"
)

func TestPinHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    *sdk.Discovered
		pin  string
		want string
	}{
		{"typed address", nil, "sha256//a=", ""},
		{"no pin advertised", &sdk.Discovered{}, "sha256//a=", ""},
		{"same pin", &sdk.Discovered{Pin: "sha256//a="}, "sha256//a=", "It matches"},
		{"other pin", &sdk.Discovered{Pin: "sha256//b="}, "sha256//a=", "WARNING: the box advertised another pin"},
	}
	for _, tt := range tests {
		got := pinHint(tt.d, tt.pin)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: pinHint = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPrintDiscovered(t *testing.T) {
	t.Parallel()
	found := []sdk.Discovered{
		{Name: "openlolo-aaaa", URL: "https://openlolo-aaaa.local", AddrURL: "https://10.0.0.2", Version: "1.0", Pin: "sha256//new="},
		{Name: "openlolo-bbbb", URL: "https://openlolo-bbbb.local:8443", AddrURL: "https://10.0.0.3:8443", Pin: "sha256//b=",
			Paired: &sdk.Box{URL: "https://openlolo-bbbb.local:8443", Pin: "sha256//old="}, PinChanged: true},
	}
	var b bytes.Buffer
	if err := printDiscovered(&b, found); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want a header and 2 boxes:\n%s", len(lines), b.String())
	}
	for _, want := range []string{"1", "openlolo-aaaa", "https://10.0.0.2", "sha256//new=", "no"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("line %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "PIN CHANGED: stored sha256//old=") {
		t.Errorf("line %q does not warn about the changed pin", lines[2])
	}
}

func TestReachableURLFallsBackToAddress(t *testing.T) {
	t.Parallel()
	d := sdk.Discovered{Host: "openlolo-zzzz.invalid", URL: "https://openlolo-zzzz.invalid", AddrURL: "https://10.0.0.9", Addrs: []net.IP{net.IPv4(10, 0, 0, 9)}}
	if got := reachableURL(t.Context(), d); got != d.AddrURL {
		t.Fatalf("reachableURL = %q, want the address URL %q for a name that does not resolve", got, d.AddrURL)
	}
	d = sdk.Discovered{Host: "localhost", URL: "https://localhost:8443", AddrURL: "https://127.0.0.1:8443"}
	if got := reachableURL(t.Context(), d); got != d.URL {
		t.Fatalf("reachableURL = %q, want the name URL %q for a name that resolves", got, d.URL)
	}
}
