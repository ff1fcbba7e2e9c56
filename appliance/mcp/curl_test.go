package mcp_test

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"os/exec"
	"strings"
	"testing"
)

// TestCurlScript runs testdata/curl-status.sh (docs/wire.md's curl call)
// against the endpoint over HTTPS, pinned to the server's public key.
func TestCurlScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (Debian package curl)")
	}
	b := newBox(t, boxOpts{})
	b.addCaller("curl", readScope)
	cert, err := x509.ParseCertificate(b.srv.TLS.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	pin := "sha256//" + base64.StdEncoding.EncodeToString(sum[:])
	cases := []struct {
		name, pin, token string
		ok               bool
	}{
		{"pinned", pin, "curl", true},
		{"wrong pin", "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32)), "curl", false},
		{"bad token", pin, "nobody", false},
	}
	for _, c := range cases {
		out, err := exec.Command("sh", "testdata/curl-status.sh", b.srv.URL, c.pin, c.token).CombinedOutput()
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, output %s", c.name, err, out)
		}
		if c.ok && !strings.Contains(string(out), `"openlolo-test"`) {
			t.Errorf("%s: output lacks the box name: %s", c.name, out)
		}
	}
}
