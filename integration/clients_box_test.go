//go:build clients

package integration

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	boxtls "github.com/openlolo/openlolo/tls"
)

// serveBox starts the binary on a fresh state folder, reads its start-up
// lines, claims the box with the setup code through the claim page, and
// downloads the certificate as a user would for NODE_EXTRA_CA_CERTS.
func serveBox(t *testing.T) *servedBox {
	t.Helper()
	b, setupCode := startServe(t)
	ownertest.Claim(t, b.Owner, b.URL, setupCode, passphrase)
	b.PEM = filepath.Join(t.TempDir(), "box.pem")
	if err := b.downloadPEM(b.PEM); err != nil {
		t.Fatal(err)
	}
	return b
}

// downloadPEM saves the certificate the Connect page links to, after
// checking it is the one serve printed the fingerprint of (what a person
// compares before trusting it).
func (b *servedBox) downloadPEM(path string) error {
	res, body, err := fetch(b.Owner, http.MethodGet, b.URL+"/connect", nil)
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`href="(/[^"]+\.pem)"`).FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		return fmt.Errorf("the Connect page (status %d) links no .pem certificate: %s", res.StatusCode, ownertest.Text(body))
	}
	res, body, err = fetch(b.Pinned, http.MethodGet, b.URL+html.UnescapeString(m[1]), nil)
	if err != nil {
		return err
	}
	blk, _ := pem.Decode([]byte(body))
	if res.StatusCode != http.StatusOK || blk == nil || blk.Type != "CERTIFICATE" {
		return fmt.Errorf("GET %s: status %d, no PEM certificate: %.200s", m[1], res.StatusCode, body)
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return fmt.Errorf("the downloaded certificate: %w", err)
	}
	if got := boxtls.FingerprintHex(cert); got != b.Fingerprint {
		return fmt.Errorf("the downloaded certificate has fingerprint %s, serve printed %s", got, b.Fingerprint)
	}
	return os.WriteFile(path, []byte(body), 0o644)
}

// consent is the owner's browser following an authorization URL: the box's
// consent page (logged in), Allow for 24 hours, then the redirect back to
// the client's callback, which the browser follows too.
func (b *servedBox) consent(authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("authorization URL %q: %w", authURL, err)
	}
	if !strings.EqualFold(u.Scheme+"://"+u.Host, b.URL) || u.Path != "/oauth/authorize" {
		return fmt.Errorf("authorization URL %q is not this box's /oauth/authorize", authURL)
	}
	res, body, err := fetch(b.Owner, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	tok := ownertest.FormToken(body)
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/oauth/authorize" || tok == "" {
		return fmt.Errorf("consent page: status %d at %s: %s", res.StatusCode, res.Request.URL.Redacted(), ownertest.Text(body))
	}
	res, body, err = fetch(b.Owner, http.MethodPost, authURL, url.Values{"csrf": {tok}, "life": {ownertest.Life24h}, "decision": {"approve"}})
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || res.Request.URL.Host == u.Host {
		return fmt.Errorf("after Allow: status %d at %s: %s", res.StatusCode, res.Request.URL.Redacted(), ownertest.Text(body))
	}
	return nil
}

var pendingRE = regexp.MustCompile(`data-user-code="([^"]+)" data-handle="([^"]+)"`)

// approveDevice approves, on the Access page, the pending request a client
// showed: by its user code, or by the verification link's handle (?r=).
// A link to the plain-HTTP port is followed on the HTTPS entry, as that
// port's redirect does.
func (b *servedBox) approveDevice(userCode, verification string) error {
	page := "/access"
	var handle string
	if verification != "" {
		vu, err := url.Parse(verification)
		if err != nil {
			return fmt.Errorf("verification URL %q: %w", verification, err)
		}
		handle = vu.Query().Get("r")
		page = vu.RequestURI()
	}
	res, body, err := fetch(b.Owner, http.MethodGet, b.URL+page, nil)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %s", page, res.StatusCode, ownertest.Text(body))
	}
	for _, m := range pendingRE.FindAllStringSubmatch(body, -1) {
		code, h := html.UnescapeString(m[1]), html.UnescapeString(m[2])
		if (userCode != "" && strings.EqualFold(code, userCode)) || (handle != "" && h == handle) {
			res, body, err := fetch(b.Owner, http.MethodPost, b.URL+"/access/approve",
				url.Values{"csrf": {ownertest.FormToken(body)}, "handle": {h}, "life": {ownertest.Life24h}})
			if err != nil {
				return err
			}
			if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
				return fmt.Errorf("approve: status %d at %s: %s", res.StatusCode, res.Request.URL.Path, ownertest.Text(body))
			}
			return nil
		}
	}
	return fmt.Errorf("no pending request with code %q or handle %q on the Access page: %s", userCode, handle, ownertest.Text(body))
}

// approveDeviceWhenShown approves as soon as the request shows on the
// Access page (a client may print its code before the box lists it).
func (b *servedBox) approveDeviceWhenShown(ctx context.Context, userCode, verification string) error {
	for {
		err := b.approveDevice(userCode, verification)
		if err == nil || ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}
