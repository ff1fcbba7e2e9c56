package owner_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// TestDiagnosticsNoSecrets: the download names the box and its clients
// and carries no passphrase, token, session cookie or CSRF token.
func TestDiagnosticsNoSecrets(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, a := approvedClient(t, b, c, "diag script", ownertest.Life30d)
	csrf := ownertest.CSRF(t, c, b.url)
	res, body := ownertest.Get(t, c, b.url, "/settings/diagnostics")
	var got map[string]any
	if res.StatusCode != 200 || json.Unmarshal([]byte(body), &got) != nil || !strings.Contains(body, "v0.0.0-test") || !strings.Contains(body, "diag script") {
		t.Fatalf("diagnostics: %d %s", res.StatusCode, body)
	}
	secrets := []string{testPass, a.AccessToken, a.RefreshToken, csrf, d.DeviceCode, base64.StdEncoding.EncodeToString([]byte(testPass))}
	for _, u := range c.Jar.Cookies(res.Request.URL) {
		secrets = append(secrets, u.Value)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(body, s) {
			t.Errorf("diagnostics carry a secret %q", s)
		}
	}
	if res, _ := ownertest.Get(t, ownertest.NewClient(t, b.srv), b.url, "/settings/diagnostics"); res.Request.URL.Path != "/login" {
		t.Errorf("diagnostics without a session ended at %s, want /login", res.Request.URL)
	}
}
