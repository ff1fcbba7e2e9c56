package main

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/update"
	boxtls "github.com/openlolo/openlolo/tls"
)

// TestUpdateCommand runs serve with updates on a card of temporary files
// and installs bundles with openlolo update as the owner: a wrongly
// signed bundle and a wrong passphrase are refused, a good bundle (bigger
// than the box's 1 MiB form limit) is written to slot B.
func TestUpdateCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pub, err := update.GenerateKey(filepath.Join(dir, "keys"), nil)
	if err != nil {
		t.Fatal(err)
	}
	key, err := update.ReadPrivateKey(filepath.Join(dir, "keys", "update.key"))
	if err != nil || !key.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatal(err)
	}
	files := map[string]string{
		"disk": strings.Repeat("\x00", 512), "rootA": strings.Repeat("A", 4<<20), "rootB": strings.Repeat("\x00", 4<<20),
		"boot/config.txt": "arm_64bit=1\n", "release": "NAME=openlolo\nVERSION=v1\nBOARD=rpi\nBUILT=1000\n",
		"pass": testPassphrase + "\n",
	}
	files["boot.env"] = "ROOT_SLOT=A\nDISK=" + filepath.Join(dir, "disk") + "\nROOTA_DEV=" + filepath.Join(dir, "rootA") + "\nROOTB_DEV=" + filepath.Join(dir, "rootB") + "\n"
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := startServe(t, "--state", filepath.Join(dir, "state"), "--lan", "127.0.0.1:0", "--phone", "sim", "--sim-size", "300x600",
		"--update-key", filepath.Join(dir, "keys", "update.pub"), "--release", filepath.Join(dir, "release"),
		"--boot-env", filepath.Join(dir, "boot.env"), "--boot", filepath.Join(dir, "boot"))
	lanURL, fp, code := s.value(t, 0, "LAN URL"), s.value(t, 1, "Fingerprint"), s.value(t, 3, "Setup code")
	claimBox(t, lanURL, fp, code)

	root := bytes.Repeat([]byte("root v2 "), 300000) // 2.4 MB
	bundle := func(name string, k ed25519.PrivateKey) string {
		var buf bytes.Buffer
		_, err := update.Write(&buf, k, update.Manifest{Version: "v2", Board: "rpi", Built: 2000}, []update.Source{
			{Name: update.RootName, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(root)), nil }},
			{Name: "boot/cmdline.txt", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("root=PARTUUID=0-02")), nil }},
		})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	_, other, _ := ed25519.GenerateKey(nil)
	env := "OPENLOLO_STORE=" + filepath.Join(dir, "boxes.json")
	runUpdate := func(args ...string) (int, string, string) {
		var out, errb lockedBuffer
		c := &Context{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Env: []string{env},
			Args: append([]string{"update", lanURL}, args...)}
		return Main(t.Context(), c), out.String(), errb.String()
	}
	if code, _, stderr := runUpdate(bundle("other.update", other), "--fingerprint", fp, "--passphrase-file", filepath.Join(dir, "pass"), "--wait", "0"); code != exitRefused || !strings.Contains(stderr, "UPDATE_BAD_SIGNATURE") {
		t.Errorf("wrongly signed: exit %d, %s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "wrong"), []byte("not the passphrase\n"), 0o600)
	if code, _, stderr := runUpdate(bundle("v2.update", key), "--fingerprint", fp, "--passphrase-file", filepath.Join(dir, "wrong"), "--wait", "0"); code != exitConnect || !strings.Contains(stderr, "wrong passphrase") {
		t.Errorf("wrong passphrase: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runUpdate(bundle("v2.update", key), "--passphrase-file", filepath.Join(dir, "pass")); code != exitUsage || !strings.Contains(stderr, "--fingerprint") {
		t.Errorf("unpaired box without --fingerprint: exit %d, %s", code, stderr)
	}
	exit, stdout, stderr := runUpdate(bundle("v2.update", key), "--fingerprint", fp, "--passphrase-file", filepath.Join(dir, "pass"), "--wait", "0")
	if exit != 0 || !strings.Contains(stdout, "wrote version v2") {
		t.Fatalf("good bundle: exit %d, %s %s", exit, stdout, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "rootB")); !bytes.HasPrefix(got, root) {
		t.Error("slot B does not hold the bundle's root image")
	}
	if one, err := os.ReadFile(filepath.Join(dir, "boot", "openlolo", "tryboot")); err != nil || string(one) != "B\n" {
		t.Errorf("the one-shot trial file = %q, %v", one, err)
	}
}

const testPassphrase = "correct horse battery staple"

// claimBox claims a box at base with the setup code, as the claim form does.
func claimBox(t *testing.T, base, fp, code string) {
	t.Helper()
	cfg, err := boxtls.ClientConfig(fp)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg}}
	res, err := c.Get(base + "claim")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no claim form: %s", page)
	}
	form := url.Values{"csrf": {string(m[1])}, "code": {code}, "passphrase": {testPassphrase}, "confirm": {testPassphrase}}
	req, _ := http.NewRequest(http.MethodPost, base+"claim", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", strings.TrimSuffix(base, "/"))
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("claim: %s", res.Status)
	}
}
