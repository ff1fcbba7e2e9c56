package appliance_test

import (
	"bytes"
	"encoding/pem"
	"io"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner"
)

// The Connect page's certificate download is the box's real LAN
// certificate (what NODE_EXTRA_CA_CERTS needs), with no key in it, and
// needs no session: the same bytes go out in every TLS handshake.
func TestBoxCertificateDownload(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{})
	base := strings.TrimSuffix(r.field(t, "LAN URL"), "/")
	res, err := pinnedClient(t, r.box.Cert().Fingerprint()).Get(base + owner.CertificatePath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-pem-file" {
		t.Fatalf("GET %s: %d %q", owner.CertificatePath, res.StatusCode, res.Header.Get("Content-Type"))
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="openlolo-test.pem"`) {
		t.Errorf("Content-Disposition = %q", cd)
	}
	blk, rest := pem.Decode(body)
	if blk == nil || blk.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("the download is not exactly one PEM certificate: %q", body)
	}
	if !bytes.Equal(blk.Bytes, r.box.Cert().Leaf.Raw) {
		t.Error("the downloaded certificate is not the box's LAN certificate")
	}
	if bytes.Contains(body, []byte("PRIVATE KEY")) {
		t.Error("the download contains a private key")
	}
}

// The discovery documents are mounted on the LAN entry and name its
// issuer.
func TestBoxDiscoveryDocuments(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{})
	base := strings.TrimSuffix(r.field(t, "LAN URL"), "/")
	c := pinnedClient(t, r.box.Cert().Fingerprint())
	for _, path := range []string{"/llms.txt", "/.well-known/mcp/server-card.json", "/.well-known/mcp/server-card"} {
		res, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Contains(body, []byte(base+"/mcp")) || !bytes.Contains(body, []byte("openlolo_screenshot")) {
			t.Errorf("GET %s: %d: %.300s", path, res.StatusCode, body)
		}
	}
}
