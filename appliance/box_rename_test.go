package appliance_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	boxtls "github.com/openlolo/openlolo/tls"
)

// served is the certificate a real TLS handshake with the running box
// sees now.
func served(t *testing.T, r *running) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", r.box.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// TestBoxRenameAndRotateWithoutRestart: after a rename the running LAN
// entry presents a new certificate naming the new name and answers to
// it; after a rotation another one; a bad name changes nothing; the new
// name and certificate survive a restart, and --name still wins.
func TestBoxRenameAndRotateWithoutRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	r := start(t, appliance.Config{StateDir: dir})
	first := served(t, r)
	if !slices.Contains(first.DNSNames, "openlolo-test.local") {
		t.Fatalf("first certificate names %v", first.DNSNames)
	}

	if err := r.box.Rename(ctx, "Kitchen Box"); err == nil || !strings.Contains(err.Error(), "not a DNS label") {
		t.Fatalf("Rename with a bad name: %v, want the DNS label rule", err)
	}
	if got := served(t, r); boxtls.FingerprintHex(got) != boxtls.FingerprintHex(first) || r.box.Name() != "openlolo-test" {
		t.Fatalf("a refused rename changed the box: %s, %v", r.box.Name(), got.DNSNames)
	}

	if err := r.box.Rename(ctx, "openlolo-kitchen"); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	renamed := served(t, r)
	if boxtls.FingerprintHex(renamed) == boxtls.FingerprintHex(first) {
		t.Error("the rename kept the certificate")
	}
	if !slices.Contains(renamed.DNSNames, "openlolo-kitchen.local") || slices.Contains(renamed.DNSNames, "openlolo-test.local") {
		t.Errorf("renamed certificate names %v, want openlolo-kitchen.local and not the old name", renamed.DNSNames)
	}
	if got := r.box.Info(); got.Name != "openlolo-kitchen" || got.Fingerprint != boxtls.FingerprintHex(renamed) {
		t.Errorf("Info after the rename: %s %s", got.Name, got.Fingerprint)
	}
	// The entry answers to the new name, pinned to the new certificate.
	req, _ := http.NewRequest(http.MethodGet, "https://"+r.box.Addr().String()+"/healthz", nil)
	req.Host = "openlolo-kitchen.local"
	res, err := pinnedClient(t, boxtls.FingerprintHex(renamed)).Do(req)
	if err != nil {
		t.Fatalf("GET /healthz as openlolo-kitchen.local: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz as openlolo-kitchen.local: %d %q", res.StatusCode, body)
	}

	if err := r.box.RotateCert(ctx); err != nil {
		t.Fatalf("RotateCert: %v", err)
	}
	rotated := served(t, r)
	if boxtls.FingerprintHex(rotated) == boxtls.FingerprintHex(renamed) {
		t.Error("the rotation kept the certificate")
	}
	if !slices.Contains(rotated.DNSNames, "openlolo-kitchen.local") {
		t.Errorf("rotated certificate names %v", rotated.DNSNames)
	}
	r.stop()

	// Restarted without --name: the owner's name and the last certificate.
	b, err := appliance.New(ctx, appliance.Config{StateDir: dir, Phone: simPhone(t), LANAddr: "127.0.0.1:0", CPUInfo: filepath.Join(dir, "no-cpuinfo")})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "openlolo-kitchen" || b.Cert().Fingerprint() != boxtls.FingerprintHex(rotated) {
		t.Errorf("after a restart: %s %s, want openlolo-kitchen and the rotated certificate", b.Name(), b.Cert().Fingerprint())
	}
	b.Close()
	// --name is the stronger statement.
	b, err = appliance.New(ctx, appliance.Config{StateDir: dir, Name: "openlolo-cli", Phone: simPhone(t), LANAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "openlolo-cli" {
		t.Errorf("with --name: %s, want openlolo-cli", b.Name())
	}
	b.Close()
}

// TestBoxRenameFromSettingsPage: the owner's forms reach the real box: a
// bad name gets CheckName's rule and changes nothing; a rename and a
// rotation answer with the fingerprint a new handshake then sees.
func TestBoxRenameFromSettingsPage(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{})
	c, base := browser(t, r)
	ownertest.Claim(t, c, base, r.field(t, "Setup code"), "correct horse battery staple")
	tok := ownertest.CSRF(t, c, base)
	before := boxtls.FingerprintColon(served(t, r))

	res, body := ownertest.PostForm(t, c, base, "/settings/rename", url.Values{"csrf": {tok}, "name": {"-kitchen"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "is not a DNS label") || r.box.Name() != "openlolo-test" {
		t.Fatalf("bad name: %d %q, box %s", res.StatusCode, ownertest.Text(body), r.box.Name())
	}
	if got := boxtls.FingerprintColon(served(t, r)); got != before {
		t.Fatalf("a refused rename changed the certificate")
	}

	res, body = ownertest.PostForm(t, c, base, "/settings/rename", url.Values{"csrf": {tok}, "name": {"openlolo-hall"}})
	now := boxtls.FingerprintColon(served(t, r))
	if res.StatusCode != http.StatusOK || now == before || !strings.Contains(body, now) || !strings.Contains(body, "https://openlolo-hall.local/") {
		t.Fatalf("rename: %d %q, want the new fingerprint %s", res.StatusCode, ownertest.Text(body), now)
	}

	res, body = ownertest.PostForm(t, c, base, "/settings/rotate-cert", url.Values{"csrf": {tok}, "confirm": {"rotate"}})
	rotated := boxtls.FingerprintColon(served(t, r))
	if res.StatusCode != http.StatusOK || rotated == now || !strings.Contains(body, rotated) {
		t.Fatalf("rotate: %d %q, want the new fingerprint %s", res.StatusCode, ownertest.Text(body), rotated)
	}
}
