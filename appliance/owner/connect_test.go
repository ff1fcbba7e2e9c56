package owner_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

var (
	sectionRE = regexp.MustCompile(`(?s)<section class="card client" id="client-([a-z-]+)">(.*?)</section>`)
	codeRE    = regexp.MustCompile(`(?s)<pre><code>(.*?)</code></pre>`)
)

// connectBlocks returns each client section's pasteable texts, unescaped
// (what a person copies from the page).
func connectBlocks(t *testing.T, body string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range sectionRE.FindAllStringSubmatch(body, -1) {
		for _, c := range codeRE.FindAllStringSubmatch(m[2], -1) {
			out[m[1]] = append(out[m[1]], html.UnescapeString(c[1]))
		}
	}
	return out
}

// The Connect page gives each agent a bridge setup and a remote one, for
// this box's address, in the client's own format (JSON that parses, TOML
// with the box's URL), and says how the client trusts the box.
func TestConnectPageClientSetups(t *testing.T) {
	pem := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	b, c := claimedBox(t, boxOpts{certPEM: pem})
	body := mustGet(t, c, b.url, "/connect")
	blocks := connectBlocks(t, body)
	mcpURL := b.url + "/mcp"
	pemPath := "/path/to/openlolo-test.pem"
	want := map[string][]string{
		// Claude Code's HTTP transport cannot trust a self-signed box (it
		// ignores NODE_EXTRA_CA_CERTS): on this entry its remote setup is
		// mcp-remote, which runs under Node (TestConnectClaudeCodeRemote).
		"claude-code":    {"claude mcp add openlolo -- openlolo mcp " + b.url, "claude mcp add -e NODE_EXTRA_CA_CERTS=" + pemPath + " openlolo -- npx -y mcp-remote@0.15.1 " + mcpURL},
		"claude-desktop": {`"command": "openlolo"`, `"mcp-remote@0.15.1"`, `"NODE_EXTRA_CA_CERTS": "` + pemPath + `"`},
		"cursor":         {`"url": "` + mcpURL + `"`},
		"vscode":         {`"servers"`, `"type": "http"`, `"type": "stdio"`},
		"codex":          {"[mcp_servers.openlolo]", `args = ["mcp", "` + b.url + `"]`, `url = "` + mcpURL + `"`, "codex mcp login openlolo"},
		"windsurf":       {`"serverUrl": "` + mcpURL + `"`},
	}
	for id, wants := range want {
		got := blocks[id]
		if len(got) != 2 {
			t.Errorf("%s: %d blocks, want a bridge and a remote one: %q", id, len(got), got)
			continue
		}
		all := strings.Join(got, "\n")
		for _, w := range wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s lacks %q in:\n%s", id, w, all)
			}
		}
		for _, text := range got {
			if strings.HasPrefix(text, "{") {
				var v map[string]map[string]map[string]any
				if err := json.Unmarshal([]byte(text), &v); err != nil {
					t.Errorf("%s: the JSON does not parse (%v):\n%s", id, err, text)
				}
			}
		}
	}
	if len(blocks) != len(want) {
		t.Errorf("the page has setups for %d clients, want %d", len(blocks), len(want))
	}
	text := html.UnescapeString(body)
	for _, w := range []string{`href="` + owner.CertificatePath + `"`, "the pin openlolo pair stored", "trust store", "NODE_EXTRA_CA_CERTS", "/llms.txt"} {
		if !strings.Contains(text, w) {
			t.Errorf("Connect page lacks %q", w)
		}
	}

	// The download needs no session: a client that never logged in gets it.
	res, got := ownertest.Get(t, ownertest.NewClient(t, b.srv), b.url, owner.CertificatePath)
	if res.StatusCode != http.StatusOK || got != string(pem) || res.Header.Get("Content-Type") != "application/x-pem-file" ||
		!strings.Contains(res.Header.Get("Content-Disposition"), `filename="openlolo-test.pem"`) {
		t.Errorf("GET %s: %d %v %q", owner.CertificatePath, res.StatusCode, res.Header, got)
	}
}

// An entry without a certificate of its own (the tailnet's is publicly
// trusted) offers no download, and its setups ask for no trust step.
func TestConnectPageWithoutCertificate(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	body := html.UnescapeString(mustGet(t, c, b.url, "/connect"))
	if strings.Contains(body, owner.CertificatePath) || strings.Contains(body, "NODE_EXTRA_CA_CERTS=") {
		t.Errorf("the page offers a certificate it does not have: %s", ownertest.Text(body))
	}
	if !strings.Contains(body, "publicly trusted") {
		t.Errorf("the page does not say the certificate needs no setup: %s", ownertest.Text(body))
	}
	res, _ := ownertest.Get(t, c, b.url, owner.CertificatePath)
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("GET %s without a certificate: %d, want 404", owner.CertificatePath, res.StatusCode)
	}
}

// Claude Code's remote setup failed as written: its native binary ignores
// NODE_EXTRA_CA_CERTS and SSL_CERT_FILE, so on the self-signed LAN entry
// the page gives it mcp-remote (Node) and names the remote entry for its
// own HTTP transport; on an entry with a publicly trusted certificate the
// HTTP transport needs nothing. No setup turns verification off.
func TestConnectClaudeCodeRemote(t *testing.T) {
	pem := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	tn := &fakeTailnet{}
	tn.view.Enabled, tn.view.State, tn.view.DNSName = true, "running", "openlolo-test.tail-scale.ts.net"
	b, c := claimedBox(t, boxOpts{certPEM: pem, tailnet: tn})
	body := html.UnescapeString(mustGet(t, c, b.url, "/connect"))
	sec := sectionRE.FindAllStringSubmatch(body, -1)
	if len(sec) == 0 || sec[0][1] != "claude-code" {
		t.Fatalf("no Claude Code section first: %s", ownertest.Text(body))
	}
	for _, want := range []string{"ignores NODE_EXTRA_CA_CERTS and SSL_CERT_FILE", "claude mcp add --transport http openlolo https://openlolo-test.tail-scale.ts.net/mcp", "make install"} {
		if !strings.Contains(body, want) {
			t.Errorf("Connect lacks %q", want)
		}
	}
	for _, bad := range []string{"NODE_EXTRA_CA_CERTS=/path/to/openlolo-test.pem claude", "NODE_TLS_REJECT_UNAUTHORIZED", "--insecure", "rejectUnauthorized"} {
		if strings.Contains(body, bad) {
			t.Errorf("Connect advises %q", bad)
		}
	}

	b, c = claimedBox(t, boxOpts{}) // the publicly trusted entry
	blocks := connectBlocks(t, mustGet(t, c, b.url, "/connect"))
	if got := strings.Join(blocks["claude-code"], "\n"); !strings.Contains(got, "claude mcp add --transport http openlolo "+b.url+"/mcp") || strings.Contains(got, "mcp-remote") {
		t.Errorf("Claude Code on a publicly trusted entry:\n%s", got)
	}
}
