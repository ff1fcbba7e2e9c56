package owner

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// CertificatePath is where the box serves its LAN certificate as PEM, the
// file a Node client names in NODE_EXTRA_CA_CERTS. It is public: the same
// certificate goes to anyone in every TLS handshake, and a person compares
// its fingerprint with the one on the Connect page or the console before
// trusting it.
const CertificatePath = "/connect/certificate.pem"

// connectPage is the Connect page.
type connectPage struct {
	basePage
	URL      string // the box's address as this browser reached it
	CertPath string // CertificatePath, the download link; "" on an entry with a public certificate
	Pair     string // the pairing command the stdio bridge needs first
	Clients  []clientSetup
}

// clientSetup is one agent's copy-paste setup on the Connect page.
type clientSetup struct {
	ID     string // the section's id, e.g. "claude-code"
	Name   string
	Blocks []setupBlock
}

// setupBlock is one way to set a client up: what it is, where it goes,
// the text to paste, and how the client then trusts the box.
type setupBlock struct {
	Title string
	Where string // the file or the shell
	Text  string
	Trust string
}

func (p *Pages) connectPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	info := p.info()
	cp := &connectPage{
		basePage: basePage{Title: "Connect", Nav: "connect", CSRF: s.csrf, LoggedIn: true},
		URL:      "https://" + r.Host,
		Pair:     "openlolo pair https://" + r.Host + " --pin " + spkiPin(info.SPKIPin),
	}
	pemFile := "/path/to/" + info.Name + ".pem"
	if len(info.CertPEM) > 0 {
		cp.CertPath = CertificatePath
	} else {
		pemFile = ""
	}
	remote := ""
	if p.cfg.Tailnet != nil {
		if v := p.cfg.Tailnet.TailnetStatus(); v.State == "running" && v.DNSName != "" && !strings.EqualFold(v.DNSName, r.Host) {
			remote = "https://" + v.DNSName
		}
	}
	cp.Clients = clientSetups(cp.URL, pemFile, remote)
	p.render(w, r, http.StatusOK, "connect", cp)
}

// Trust sentences shared by the setups.
const (
	trustBridge = "The bridge talks to the box through the pin openlolo pair stored, so the client needs no certificate at all. Run openlolo pair once first (above) and approve it on the Access page."
	trustOAuth  = "The client signs in through the box page (you approve it there). "
	// trustPublic: an entry whose certificate is publicly trusted.
	trustPublic = "This entry's certificate is publicly trusted: nothing to set up."
)

// mcpRemote is the mcp-remote release the setups pin: the one make
// test-clients installs and runs from this page's Claude Desktop setup.
const mcpRemote = "mcp-remote@0.15.1"

// clientSetups are the setups for base (https://host) of the entry the
// owner is on. pemFile is where the owner saved the downloaded
// certificate; "" on an entry whose certificate is publicly trusted (the
// tailnet entry), where no trust setup is needed. remote is the remote
// entry's https://<name>.<tailnet>.ts.net while it runs, else "".
func clientSetups(base, pemFile, remote string) []clientSetup {
	mcpURL := base + "/mcp"
	nodeTrust, sysTrust := trustPublic, trustPublic
	var nodeEnv map[string]string
	if pemFile != "" {
		nodeTrust = "Download the certificate below and give its path in NODE_EXTRA_CA_CERTS (compare its fingerprint with the one shown here first); Node then trusts this box without turning verification off. This is the setup make test-clients runs."
		sysTrust = "This client checks certificates against the system's trust store: add the certificate below to it (compare its fingerprint first). The box's tests do not cover this; the bridge and mcp-remote (as for Claude Desktop) are tested, and on the remote entry (tailnet) nothing needs adding."
		nodeEnv = map[string]string{"NODE_EXTRA_CA_CERTS": pemFile}
	}
	bridge := func(file string) setupBlock {
		return setupBlock{Title: "Through the local bridge (recommended on the LAN)", Where: file,
			Text: jsonConfig("mcpServers", map[string]any{"command": "openlolo", "args": []string{"mcp", base}}), Trust: trustBridge}
	}
	remoteBlock := func(file string) setupBlock {
		srv := map[string]any{"command": "npx", "args": []string{"-y", mcpRemote, mcpURL}}
		if nodeEnv != nil {
			srv["env"] = nodeEnv
		}
		return setupBlock{Title: "Remote MCP through mcp-remote", Where: file, Text: jsonConfig("mcpServers", srv), Trust: trustOAuth + nodeTrust}
	}
	codexRemote := "[mcp_servers.openlolo]\nurl = " + strconv.Quote(mcpURL) + "\n\n# then sign in: codex mcp login openlolo"
	return []clientSetup{
		{ID: "claude-code", Name: "Claude Code", Blocks: []setupBlock{
			{Title: "Through the local bridge (recommended on the LAN)", Where: "shell",
				Text: "claude mcp add openlolo -- openlolo mcp " + base, Trust: trustBridge},
			claudeCodeRemote(mcpURL, pemFile, remote),
		}},
		{ID: "claude-desktop", Name: "Claude Desktop", Blocks: []setupBlock{
			bridge("claude_desktop_config.json (Settings, Developer, Edit Config)"),
			remoteBlock("claude_desktop_config.json"),
		}},
		{ID: "cursor", Name: "Cursor", Blocks: []setupBlock{
			bridge("~/.cursor/mcp.json (or .cursor/mcp.json in a project)"),
			{Title: "Remote HTTP transport", Where: "~/.cursor/mcp.json",
				Text: jsonConfig("mcpServers", map[string]any{"url": mcpURL}), Trust: trustOAuth + sysTrust},
		}},
		{ID: "vscode", Name: "VS Code", Blocks: []setupBlock{
			{Title: "Through the local bridge (recommended on the LAN)", Where: ".vscode/mcp.json (or MCP: Open User Configuration)",
				Text: jsonConfig("servers", map[string]any{"type": "stdio", "command": "openlolo", "args": []string{"mcp", base}}), Trust: trustBridge},
			{Title: "Remote HTTP transport", Where: ".vscode/mcp.json",
				Text: jsonConfig("servers", map[string]any{"type": "http", "url": mcpURL}), Trust: trustOAuth + sysTrust},
		}},
		{ID: "codex", Name: "Codex", Blocks: []setupBlock{
			{Title: "Through the local bridge (recommended on the LAN)", Where: "~/.codex/config.toml",
				Text: "[mcp_servers.openlolo]\ncommand = \"openlolo\"\nargs = [\"mcp\", " + strconv.Quote(base) + "]", Trust: trustBridge},
			{Title: "Remote HTTP transport", Where: "~/.codex/config.toml", Text: codexRemote, Trust: trustOAuth + sysTrust},
		}},
		{ID: "windsurf", Name: "Windsurf", Blocks: []setupBlock{
			bridge("~/.codeium/windsurf/mcp_config.json"),
			{Title: "Remote HTTP transport", Where: "~/.codeium/windsurf/mcp_config.json",
				Text: jsonConfig("mcpServers", map[string]any{"serverUrl": mcpURL}), Trust: trustOAuth + sysTrust},
		}},
	}
}

// claudeCodeRemote is Claude Code's remote setup. Claude Code is a
// native program: it takes neither NODE_EXTRA_CA_CERTS nor SSL_CERT_FILE,
// so its own HTTP transport cannot trust a self-signed box. On such an
// entry (pemFile set) the setup runs mcp-remote under Node, which takes
// the downloaded certificate, and names the remote entry (publicly
// trusted) for the HTTP transport; on the remote entry itself the HTTP
// transport needs nothing.
func claudeCodeRemote(mcpURL, pemFile, remote string) setupBlock {
	if pemFile == "" {
		return setupBlock{Title: "Remote HTTP transport", Where: "shell",
			Text: "claude mcp add --transport http openlolo " + mcpURL, Trust: trustOAuth + trustPublic}
	}
	trust := trustOAuth + "mcp-remote runs under Node, which trusts the certificate below through NODE_EXTRA_CA_CERTS (compare its fingerprint first; make test-clients runs this setup). Claude Code's own HTTP transport (claude mcp add --transport http) does not work on this entry: Claude Code ignores NODE_EXTRA_CA_CERTS and SSL_CERT_FILE, so it refuses this box's self-signed certificate. "
	if remote != "" {
		trust += "It works on the remote entry, whose certificate is publicly trusted: claude mcp add --transport http openlolo " + remote + "/mcp"
	} else {
		trust += "It works on the remote entry (tailnet, Settings), whose certificate is publicly trusted."
	}
	return setupBlock{Title: "Remote MCP through mcp-remote", Where: "shell",
		Text: "claude mcp add -e NODE_EXTRA_CA_CERTS=" + pemFile + " openlolo -- npx -y " + mcpRemote + " " + mcpURL, Trust: trust}
}

// jsonConfig is {"<key>": {"openlolo": server}}, indented as the clients'
// own documentation shows it.
func jsonConfig(key string, server map[string]any) string {
	b, err := json.MarshalIndent(map[string]any{key: map[string]any{"openlolo": server}}, "", "  ")
	if err != nil {
		panic(err) // maps of strings and string slices always encode
	}
	return strings.ReplaceAll(string(b), `\u0026`, "&")
}

// certificate serves the LAN certificate (never the key) as a download.
func (p *Pages) certificate(w http.ResponseWriter, r *http.Request) {
	i := p.info()
	if len(i.CertPEM) == 0 {
		http.Error(w, "This entry has no certificate of its own to download; its certificate is publicly trusted.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Content-Disposition", `attachment; filename=`+strconv.Quote(i.Name+".pem"))
	w.Header().Set("Content-Length", strconv.Itoa(len(i.CertPEM)))
	w.Write(i.CertPEM)
}
