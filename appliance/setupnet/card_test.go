package setupnet_test

import (
	"bytes"
	"flag"
	"image/png"
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

func TestCardWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "openlolo")
	c := setupnet.Card{SSID: "openlolo-setup-3f2a", Password: "k7dm-2xqa-9fhe-wp3t", PageURL: "http://192.168.4.1/"}
	if err := c.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, setupnet.CardText))
	if err != nil || string(text) != c.Text() {
		t.Fatalf("card text: %v\n%s", err, text)
	}
	var pngs [][]byte
	for _, name := range []string{setupnet.CardWiFiQR, setupnet.CardPageQR} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != img.Bounds().Dy() || img.Bounds().Dx() < 256 {
			t.Fatalf("%s: %v, bounds %v", name, err, img.Bounds())
		}
		pngs = append(pngs, b)
	}
	if bytes.Equal(pngs[0], pngs[1]) {
		t.Fatal("the Wi-Fi and page QR codes are the same image")
	}
	// Written again with a new password, the files follow.
	c.Password = "22222222"
	if err := c.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(filepath.Join(dir, setupnet.CardText)); !bytes.Contains(text, []byte("password: 22222222")) {
		t.Fatalf("card not rewritten:\n%s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, setupnet.CardWiFiQR)); bytes.Equal(b, pngs[0]) {
		t.Fatal("Wi-Fi QR code not rewritten")
	}
	// A folder that cannot be made is an error.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	if err := c.WriteFiles(filepath.Join(blocker, "openlolo")); err == nil {
		t.Fatal("WriteFiles into a file succeeded")
	}
}
