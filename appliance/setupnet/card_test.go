package setupnet_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestSSID(t *testing.T) {
	for id, want := range map[string]string{
		"10000000c3f23F2A": "openlolo-setup-3f2a",
		"ab":               "openlolo-setup-00ab",
		"box-7f:e1":        "openlolo-setup-7fe1",
	} {
		if got := setupnet.SSID(id); got != want {
			t.Errorf("SSID(%q) = %q, want %q", id, got, want)
		}
		if err := setupnet.CheckSSID(setupnet.SSID(id)); err != nil {
			t.Error(err)
		}
	}
}

func TestNewPassword(t *testing.T) {
	shape := regexp.MustCompile(`^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){3}$`)
	seen := map[string]bool{}
	for range 100 {
		p := setupnet.NewPassword()
		if !shape.MatchString(p) {
			t.Fatalf("password %q has the wrong shape", p)
		}
		if err := setupnet.CheckPassphrase(p); err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("password %q drawn twice", p)
		}
		seen[p] = true
	}
}

func TestLoadPassword(t *testing.T) {
	dir := t.TempDir()
	p, err := setupnet.LoadPassword(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, setupnet.PasswordFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("password file: %v, mode %v, want 0600", err, fi.Mode())
	}
	again, err := setupnet.LoadPassword(dir)
	if err != nil || again != p {
		t.Fatalf("second load = %q, %v; want the kept %q", again, err, p)
	}
	// A damaged file is an error, not a silently new password.
	if err := os.WriteFile(filepath.Join(dir, setupnet.PasswordFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := setupnet.LoadPassword(dir); err == nil {
		t.Fatalf("damaged password file loaded as %q", got)
	}
}

func TestWiFiQREscaping(t *testing.T) {
	c := setupnet.Card{SSID: `my;net,"x":\y`, Password: `p;a:s,s\w"d`}
	want := `WIFI:T:WPA;S:my\;net\,\"x\"\:\\y;P:p\;a\:s\,s\\w\"d;;`
	if got := c.WiFiQR(); got != want {
		t.Fatalf("WiFiQR = %s\nwant     %s", got, want)
	}
}

func TestCardTextGolden(t *testing.T) {
	c := setupnet.Card{SSID: "openlolo-setup-3f2a", Password: "k7dm-2xqa-9fhe-wp3t", PageURL: "http://192.168.4.1/"}
	golden(t, "setup-card.txt", []byte(c.Text()))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s differs (run with -update after checking):\n%s", path, got)
	}
}
