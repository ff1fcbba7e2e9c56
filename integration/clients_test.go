//go:build clients

package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// clientsDir holds the pinned npm clients (package.json, package-lock.json;
// make test-clients runs npm ci there).
const clientsDir = "clients"

// TestRealClients runs each real, independently written client against
// `openlolo serve` on the simulated phone, with the owner approving on the
// real box pages, and prints a client × step table. make test-clients runs
// it (build tag clients).
func TestRealClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (scripts/deps.sh installs it)")
	}
	if _, err := os.Stat(filepath.Join(clientsDir, "node_modules", "mcp-remote", "package.json")); err != nil {
		t.Fatalf("the npm clients are not installed: run make test-clients (npm ci in integration/clients): %v", err)
	}
	b := serveBox(t)
	res := newResults()
	t.Cleanup(func() { res.print(os.Stdout) })
	nc := &nodeClients{node: node, box: b, res: res}

	// Sequential: each takes and releases control of the one phone.
	t.Run("ts-sdk", func(t *testing.T) { nc.sdk(t, "ts-sdk (DCR+PKCE)", "none") })
	t.Run("ts-sdk-example", func(t *testing.T) { nc.sdk(t, "ts-sdk example reg", "client_secret_post") })
	t.Run("mcp-remote", func(t *testing.T) { nc.mcpRemote(t, "mcp-remote", false) })
	t.Run("mcp-remote-device", func(t *testing.T) { nc.mcpRemote(t, "mcp-remote --device-code", true) })
	t.Run("inspector", func(t *testing.T) { nc.inspector(t, "inspector-cli bearer") })
	t.Run("x-oauth2-device", func(t *testing.T) { goDevice(t, b, res, "x/oauth2 device") })
	t.Run("go-sdk", func(t *testing.T) { goSDK(t, b, res, "go-sdk (DCR+PKCE)") })
}

type nodeClients struct {
	node string
	box  *servedBox
	res  *results
}

// env is the environment of a Node client: trust the box's certificate
// through NODE_EXTRA_CA_CERTS, as the Connect page says.
func (n *nodeClients) env(extra ...string) []string {
	return append(append(os.Environ(), "NODE_EXTRA_CA_CERTS="+n.box.PEM), extra...)
}

// sdk runs sdk-client.mjs: the TypeScript SDK's OAuth provider, with the
// registration the desktop agents send or the SDK example's.
func (n *nodeClients) sdk(t *testing.T, name, registration string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.node, "sdk-client.mjs", n.box.URL, registration)
	cmd.Dir = clientsDir
	cmd.Env = n.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "AUTHORIZE "); ok {
			if err := n.box.consent(u); err != nil {
				n.res.record(t, name, "connect", false, "the owner's consent: "+err.Error())
				cmd.Process.Kill()
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "STEP "); ok {
			f := strings.SplitN(rest, " ", 3)
			if len(f) == 3 {
				n.res.record(t, name, f[0], f[1] == "PASS", f[2])
			}
		}
	}
	err = cmd.Wait()
	n.res.failRest(t, name, fmt.Sprintf("the client stopped before this step (%v): %s", err, tail(stderr.String(), 600)))
}

// mcpRemote runs mcp-remote (the stdio bridge desktop apps launch) with
// the go-sdk client on its stdio, first signing in through the browser
// flow or the device flow, then, in a second run, refreshing: its stored
// access token no longer works, and it must refresh without asking the
// owner again.
func (n *nodeClients) mcpRemote(t *testing.T, name string, device bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfgDir := t.TempDir()
	port := strconv.Itoa(freePort(t))
	mcpURL, env := n.box.URL+"/mcp", n.env()
	if !device {
		// The browser flow runs what the Connect page gives Claude Desktop:
		// its URL, its pinned mcp-remote version (the one installed here),
		// its NODE_EXTRA_CA_CERTS pointing at the downloaded certificate.
		var err error
		mcpURL, env, err = n.desktopSnippet()
		if err != nil {
			n.res.failRest(t, name, "the Connect page's Claude Desktop setup: "+err.Error())
			return
		}
	}
	run := func(allowSignIn bool) (*mcp.ClientSession, *signIn, error) {
		args := []string{filepath.Join(clientsDir, "node_modules", "mcp-remote", "dist", "proxy.js"), mcpURL, port}
		if device {
			args = append(args, "--device-code")
		}
		cmd := exec.CommandContext(ctx, n.node, args...)
		cmd.Env = append(slices.Clone(env), "MCP_REMOTE_CONFIG_DIR="+cfgDir)
		s := &signIn{ctx: ctx, box: n.box, allow: allowSignIn, done: make(chan struct{})}
		cmd.Stderr = s
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk over mcp-remote", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return nil, s, fmt.Errorf("connect through mcp-remote: %w; %s", err, s.summary())
		}
		return cs, s, nil
	}
	cs, s, err := run(true)
	if err != nil {
		n.res.failRest(t, name, err.Error())
		return
	}
	flow := "the Connect page's Claude Desktop setup; browser flow, consent on the box page"
	if device {
		flow = "device flow, approved on the Access page"
	}
	if s.err() != nil || !s.approved() {
		flow = s.summary()
	}
	n.res.record(t, name, "connect", s.err() == nil && s.approved(), flow)
	mcpSteps(t, ctx, n.res, name, cs)
	cs.Close()

	tokFile, before, err := corruptAccessToken(cfgDir)
	if err != nil {
		n.res.record(t, name, "refresh", false, err.Error())
		return
	}
	cs, s, err = run(false)
	if err != nil {
		n.res.record(t, name, "refresh", false, err.Error())
		return
	}
	defer cs.Close()
	_, _, err = callTool(ctx, cs, "openlolo_status", map[string]any{})
	after, _ := readTokens(tokFile)
	switch {
	case err != nil:
		n.res.record(t, name, "refresh", false, "status with the refreshed token: "+err.Error())
	case s.prompted():
		n.res.record(t, name, "refresh", false, "it asked the owner again instead of refreshing: "+s.summary())
	case after.RefreshToken == "" || after.RefreshToken == before.RefreshToken:
		n.res.record(t, name, "refresh", false, "the call passed but the stored refresh token did not rotate")
	default:
		n.res.record(t, name, "refresh", true, "stored access token refused (401), refresh_token grant, rotated, no owner prompt")
	}
}

var (
	clientSectionRE = regexp.MustCompile(`(?s)<section class="card client" id="client-([a-z-]+)">(.*?)</section>`)
	codeBlockRE     = regexp.MustCompile(`(?s)<pre><code>(.*?)</code></pre>`)
)

// desktopSnippet reads the Connect page's remote setup for Claude Desktop
// (mcp-remote through npx) and returns its URL and the environment it
// gives mcp-remote, with the certificate path the page leaves to the owner
// set to where the harness saved the download. It fails unless the page
// pins the mcp-remote version installed here, and gives Claude Code the
// same run.
func (n *nodeClients) desktopSnippet() (string, []string, error) {
	_, body, err := fetch(n.box.Owner, http.MethodGet, n.box.URL+"/connect", nil)
	if err != nil {
		return "", nil, err
	}
	var snippet, claudeCode string
	for _, m := range clientSectionRE.FindAllStringSubmatch(body, -1) {
		for _, c := range codeBlockRE.FindAllStringSubmatch(m[2], -1) {
			text := html.UnescapeString(c[1])
			switch {
			case !strings.Contains(text, "mcp-remote"):
			case m[1] == "claude-desktop":
				snippet = text
			case m[1] == "claude-code":
				claudeCode = text
			}
		}
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(snippet), &cfg); err != nil {
		return "", nil, fmt.Errorf("no mcp-remote setup that parses (%v): %q", err, snippet)
	}
	srv := cfg.MCPServers["openlolo"]
	var pkg struct{ Version string }
	b, _ := os.ReadFile(filepath.Join(clientsDir, "node_modules", "mcp-remote", "package.json"))
	json.Unmarshal(b, &pkg)
	if srv.Command != "npx" || len(srv.Args) != 3 || srv.Args[1] != "mcp-remote@"+pkg.Version || srv.Args[2] != n.box.URL+"/mcp" {
		return "", nil, fmt.Errorf("the setup %q is not npx -y mcp-remote@%s %s/mcp", srv.Args, pkg.Version, n.box.URL)
	}
	pemPath, ok := srv.Env["NODE_EXTRA_CA_CERTS"]
	if !ok || !strings.HasSuffix(pemPath, ".pem") {
		return "", nil, fmt.Errorf("the setup gives mcp-remote no NODE_EXTRA_CA_CERTS: %v", srv.Env)
	}
	// Claude Code's remote setup is this same mcp-remote run (Claude Code
	// is a native binary this suite cannot run, and its own HTTP
	// transport ignores NODE_EXTRA_CA_CERTS): the page must give it the
	// command tested here.
	if want := "claude mcp add -e NODE_EXTRA_CA_CERTS=" + pemPath + " openlolo -- npx " + strings.Join(srv.Args, " "); claudeCode != want {
		return "", nil, fmt.Errorf("the Claude Code setup is %q, want the tested mcp-remote run %q", claudeCode, want)
	}
	env := os.Environ()
	for k, v := range srv.Env {
		if k == "NODE_EXTRA_CA_CERTS" {
			v = n.box.PEM
		}
		env = append(env, k+"="+v)
	}
	return srv.Args[2], env, nil
}

// signIn watches mcp-remote's stderr for the sign-in it asks of the
// person: the authorization URL (browser flow) or the verification link
// and code (device flow), and does it as the owner.
var pidPrefix = regexp.MustCompile(`^\[\d+\] ?`)

type signIn struct {
	ctx   context.Context
	box   *servedBox
	allow bool // false: a prompt is a failure (a refresh must not ask)

	mu      sync.Mutex
	buf     []byte
	lines   []string
	next    string // what the next line holds: "auth" or "device"
	asked   bool
	ok      bool
	failure error
	done    chan struct{}
}

func (s *signIn) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		// mcp-remote starts each log line with "[pid] ".
		line := strings.TrimSpace(pidPrefix.ReplaceAllString(string(s.buf[:i]), ""))
		s.buf = s.buf[i+1:]
		s.lines = append(s.lines, line)
		switch {
		case line == "Please authorize this client by visiting:":
			s.next = "auth"
		case line == "To authorize this client, visit:":
			s.next = "device"
		case s.next != "" && line != "":
			what := s.next
			s.next = ""
			s.asked = true
			if !s.allow {
				continue
			}
			go s.act(what, line)
		}
	}
}

func (s *signIn) act(what, u string) {
	var err error
	if what == "auth" {
		err = s.box.consent(u)
	} else {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		err = s.box.approveDeviceWhenShown(ctx, "", u)
		cancel()
	}
	s.mu.Lock()
	s.ok, s.failure = err == nil, err
	s.mu.Unlock()
}

func (s *signIn) err() error     { s.mu.Lock(); defer s.mu.Unlock(); return s.failure }
func (s *signIn) approved() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.ok }
func (s *signIn) prompted() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.asked }
func (s *signIn) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	if s.failure != nil {
		b.WriteString("the owner's approval: " + s.failure.Error() + "; ")
	}
	if s.ok {
		b.WriteString("approved on the box page; ")
	}
	var keep []string
	for _, l := range s.lines {
		if l != "" {
			keep = append(keep, l)
		}
	}
	b.WriteString("mcp-remote said: " + tail(strings.Join(keep, " | "), 1500))
	return b.String()
}

type storedTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

func readTokens(path string) (storedTokens, error) {
	var st storedTokens
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

// corruptAccessToken finds mcp-remote's token file and replaces its access
// token with one the box never issued (as after its 15 minutes), keeping
// the refresh token.
func corruptAccessToken(dir string) (string, storedTokens, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*_tokens.json"))
	if len(files) != 1 {
		return "", storedTokens{}, fmt.Errorf("mcp-remote stored %d token files in its config folder, want 1", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return "", storedTokens{}, err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return "", storedTokens{}, fmt.Errorf("mcp-remote's token file: %w", err)
	}
	st, _ := readTokens(files[0])
	if st.RefreshToken == "" {
		return "", st, errors.New("mcp-remote stored no refresh token")
	}
	raw["access_token"] = "expired-" + st.AccessToken[:min(8, len(st.AccessToken))]
	b, _ = json.Marshal(raw)
	return files[0], st, os.WriteFile(files[0], b, 0o600)
}

// inspector runs the Inspector's CLI (the package `inspector --cli`
// runs) with a bearer header, the token coming from the box's device flow
// in docs/wire.md's form.
func (n *nodeClients) inspector(t *testing.T, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tok, err := seedDeviceToken(ctx, n.box, "inspector cli")
	if err != nil {
		n.res.failRest(t, name, err.Error())
		return
	}
	n.res.record(t, name, "connect", true, "bearer from the device flow (client "+tok.ClientID+"), sent with --header")
	cli := func(access string, args ...string) (map[string]any, error) {
		args = append([]string{"index.js", n.box.URL + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + access}, args...)
		cmd := exec.CommandContext(ctx, n.node, args...)
		// The CLI looks for its package.json with a path relative to the
		// working directory but imports it relative to itself: it finds
		// it only when run from its own build folder (inspector-cli 1.0.3).
		cmd.Dir = filepath.Join(clientsDir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
		cmd.Env = n.env()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("inspector %v: %v: %s %s", args[len(args)-4:], err, tail(stderr.String(), 300), tail(string(out), 300))
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, fmt.Errorf("inspector printed %q: %v", tail(string(out), 200), err)
		}
		return v, nil
	}
	call := func(access, tool string, targs ...string) (map[string]any, error) {
		a := []string{"--method", "tools/call", "--tool-name", tool}
		for _, ta := range targs {
			a = append(a, "--tool-arg", ta)
		}
		v, err := cli(access, a...)
		if err != nil {
			return nil, err
		}
		sc, _ := v["structuredContent"].(map[string]any)
		if v["isError"] == true || sc == nil {
			return v, fmt.Errorf("%s answered %.300v", tool, v)
		}
		return v, nil
	}

	v, err := cli(tok.AccessToken, "--method", "tools/list")
	if err == nil {
		err = hasTools(toolNames(v))
	}
	n.res.record(t, name, "tools", err == nil, errText(err, "tools/list"))

	var frameID string
	var epoch any
	v, err = call(tok.AccessToken, "openlolo_screenshot", "max_size=512")
	if err == nil {
		sc := v["structuredContent"].(map[string]any)
		frameID, _ = sc["frame_id"].(string)
		epoch = sc["geometry_epoch"]
		if !hasImage(v) || frameID == "" || epoch == nil {
			err = fmt.Errorf("no image block or frame: %.300v", sc)
		}
	}
	n.res.record(t, name, "screenshot", err == nil, errText(err, "image block, frame "+frameID))

	err = errors.New("no frame to tap on (screenshot failed)")
	if frameID != "" {
		v, err = call(tok.AccessToken, "openlolo_tap", "frame_id="+frameID, fmt.Sprintf("geometry_epoch=%v", epoch), "x=0.5", "y=0.5")
		if err == nil {
			err = tapped(v["structuredContent"].(map[string]any))
		}
		if err == nil {
			_, err = call(tok.AccessToken, "openlolo_control", "command=release")
		}
	}
	n.res.record(t, name, "tap", err == nil, errText(err, "tapped with frame_id and geometry_epoch, control released"))

	// Resources: the list, the template, the screen (a JPEG blob) and
	// Maps's profile (JSON).
	detail := ""
	v, err = cli(tok.AccessToken, "--method", "resources/list")
	if err == nil {
		var uris []string
		rs, _ := v["resources"].([]any)
		for _, r := range rs {
			if m, ok := r.(map[string]any); ok {
				u, _ := m["uri"].(string)
				uris = append(uris, u)
			}
		}
		if !slices.Contains(uris, "openlolo://screen") || !slices.Contains(uris, "openlolo://apps/com.apple.Maps") {
			err = fmt.Errorf("resources/list has no screen or Maps profile: %v", uris)
		}
		detail = fmt.Sprintf("%d resources", len(uris))
	}
	if err == nil {
		v, err = cli(tok.AccessToken, "--method", "resources/templates/list")
		if ts, _ := v["resourceTemplates"].([]any); err == nil && len(ts) != 1 {
			err = fmt.Errorf("resources/templates/list: %.200v", v)
		}
	}
	if err == nil {
		v, err = cli(tok.AccessToken, "--method", "resources/read", "--uri", "openlolo://screen")
		cs, _ := v["contents"].([]any)
		if err == nil {
			c, _ := firstOf(cs).(map[string]any)
			blob, _ := c["blob"].(string)
			if c["mimeType"] != "image/jpeg" || !strings.HasPrefix(blob, "/9j/") { // base64 of FF D8 FF
				err = fmt.Errorf("openlolo://screen: %.200v", c)
			}
			detail += fmt.Sprintf(", screen %d base64 bytes", len(blob))
		}
	}
	if err == nil {
		v, err = cli(tok.AccessToken, "--method", "resources/read", "--uri", "openlolo://apps/com.apple.Maps")
		cs, _ := v["contents"].([]any)
		c, _ := firstOf(cs).(map[string]any)
		if text, _ := c["text"].(string); err == nil && !strings.Contains(text, `"bundle_id": "com.apple.Maps"`) {
			err = fmt.Errorf("openlolo://apps/com.apple.Maps: %.200v", c)
		}
	}
	n.res.record(t, name, "resources", err == nil, errText(err, detail+", Maps profile"))

	v, err = cli(tok.AccessToken, "--method", "prompts/list")
	if ps, _ := v["prompts"].([]any); err == nil && len(ps) != 1 {
		err = fmt.Errorf("prompts/list: %.200v", v)
	}
	if err == nil {
		v, err = cli(tok.AccessToken, "--method", "prompts/get", "--prompt-name", "operate_phone", "--prompt-args", "goal=open Notes")
		if ms, _ := v["messages"].([]any); err == nil && (len(ms) != 1 || !strings.Contains(fmt.Sprint(ms), "open Notes")) {
			err = fmt.Errorf("prompts/get operate_phone: %.200v", v)
		}
	}
	n.res.record(t, name, "prompts", err == nil, errText(err, "operate_phone with its goal"))

	fresh, err := refreshGrant(ctx, n.box, tok)
	if err == nil {
		_, err = call(fresh.AccessToken, "openlolo_status")
	}
	n.res.record(t, name, "refresh", err == nil, errText(err, "refresh_token grant rotated; the Inspector called with the new bearer"))
}

// goDevice is golang.org/x/oauth2's device flow as its documentation shows
// it: a fixed client_id, DeviceAuth and DeviceAccessToken, nothing
// box-specific; then the go-sdk client with the token source.
func goDevice(t *testing.T, b *servedBox, res *results, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx = context.WithValue(ctx, oauth2.HTTPClient, b.Pinned)
	var asm struct {
		DeviceAuthorizationEndpoint string `json:"device_authorization_endpoint"`
		TokenEndpoint               string `json:"token_endpoint"`
	}
	_, body, err := fetch(b.Pinned, http.MethodGet, b.URL+"/.well-known/oauth-authorization-server", nil)
	if err == nil {
		err = json.Unmarshal([]byte(body), &asm)
	}
	if err != nil || asm.DeviceAuthorizationEndpoint == "" {
		res.failRest(t, name, fmt.Sprintf("authorization server metadata: %v %.200s", err, body))
		return
	}
	cfg := &oauth2.Config{
		ClientID: "openlolo-harness-cli",
		Endpoint: oauth2.Endpoint{DeviceAuthURL: asm.DeviceAuthorizationEndpoint, TokenURL: asm.TokenEndpoint},
		Scopes:   []string{"phone:read", "phone:control"},
	}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		res.failRest(t, name, "DeviceAuth: "+err.Error())
		return
	}
	actx, acancel := context.WithTimeout(ctx, 30*time.Second)
	err = b.approveDeviceWhenShown(actx, da.UserCode, "")
	acancel()
	if err != nil {
		res.failRest(t, name, "the owner's approval: "+err.Error())
		return
	}
	tok, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		res.failRest(t, name, "DeviceAccessToken: "+err.Error())
		return
	}
	res.record(t, name, "connect", true, "fixed client_id, user code "+da.UserCode+" approved on Access")
	src := &expirableSource{ctx: ctx, cfg: cfg}
	src.set(tok)
	hc := &http.Client{Transport: &oauth2.Transport{Source: src, Base: b.Pinned.Transport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "x/oauth2 device check", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		res.failRest(t, name, "go-sdk connect with the device token: "+err.Error())
		return
	}
	defer cs.Close()
	mcpSteps(t, ctx, res, name, cs)
	refreshStep(t, ctx, res, name, cs, src)
}

// goSDK is the go-sdk client with its own OAuth handler: protected-resource
// and authorization-server discovery, dynamic registration, PKCE, the code
// through the owner's consent on the box page and a loopback callback.
func goSDK(t *testing.T, b *servedBox, res *results, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	codes := make(chan url.Values, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		w.Write([]byte("Signed in; you can close this window."))
	}))
	defer cb.Close()
	var src *expirableSource
	redirect := cb.URL + "/callback"
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "go-sdk check", RedirectURIs: []string{redirect},
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := b.consent(args.URL); err != nil {
				return nil, fmt.Errorf("the owner's consent: %w", err)
			}
			select {
			case q := <-codes:
				if q.Get("code") == "" {
					return nil, fmt.Errorf("redirected back without a code: %s", q.Encode())
				}
				return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		RequestRefreshToken:   true,
		AcceptUnadvertisedIss: true,
		Client:                b.Pinned,
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			src = &expirableSource{ctx: ctx, cfg: cfg}
			src.set(tok)
			return src, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk oauth check", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.URL + "/mcp", HTTPClient: b.Pinned, OAuthHandler: h}, nil)
	if err != nil {
		res.failRest(t, name, "connect: "+err.Error())
		return
	}
	defer cs.Close()
	res.record(t, name, "connect", src != nil, "discovery, DCR, PKCE, consent on the box page, code exchange")
	mcpSteps(t, ctx, res, name, cs)
	if src == nil {
		res.record(t, name, "refresh", false, "the handler never made a token source")
		return
	}
	refreshStep(t, ctx, res, name, cs, src)
}

// expirableSource is an x/oauth2 token source whose current token can be
// made to look expired, as it is after its 15 minutes: the next call then
// goes through x/oauth2's own refresh.
type expirableSource struct {
	ctx context.Context
	cfg *oauth2.Config

	mu  sync.Mutex
	src oauth2.TokenSource
	cur *oauth2.Token
}

func (s *expirableSource) set(tok *oauth2.Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur, s.src = tok, s.cfg.TokenSource(s.ctx, tok)
}

func (s *expirableSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, err := s.src.Token()
	if err == nil {
		s.cur = tok
	}
	return tok, err
}

// expire makes the current token expired and returns it.
func (s *expirableSource) expire() *oauth2.Token {
	s.mu.Lock()
	old := *s.cur
	s.mu.Unlock()
	stale := old
	stale.Expiry = time.Now().Add(-time.Minute)
	s.set(&stale)
	return &old
}

func (s *expirableSource) current() *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func refreshStep(t *testing.T, ctx context.Context, res *results, name string, cs *mcp.ClientSession, src *expirableSource) {
	old := src.expire()
	_, _, err := callTool(ctx, cs, "openlolo_status", map[string]any{})
	now := src.current()
	switch {
	case err != nil:
		res.record(t, name, "refresh", false, "status after the token expired: "+err.Error())
	case now.AccessToken == old.AccessToken || now.RefreshToken == "" || now.RefreshToken == old.RefreshToken:
		res.record(t, name, "refresh", false, "the call passed but x/oauth2 got no rotated tokens")
	default:
		res.record(t, name, "refresh", true, "x/oauth2 refreshed the expired token (rotated) and the call passed")
	}
}

// mcpSteps runs tools/list, a screenshot and a tap with its frame over an
// MCP session (go-sdk), then releases control for the next client.
func mcpSteps(t *testing.T, ctx context.Context, res *results, name string, cs *mcp.ClientSession) {
	var names []string
	lt, err := cs.ListTools(ctx, nil)
	if err == nil {
		for _, tl := range lt.Tools {
			names = append(names, tl.Name)
		}
		err = hasTools(names)
	}
	res.record(t, name, "tools", err == nil, errText(err, fmt.Sprintf("%d tools", len(names))))

	r, sc, err := callTool(ctx, cs, "openlolo_screenshot", map[string]any{"max_size": 512})
	var img *mcp.ImageContent
	if err == nil {
		for _, c := range r.Content {
			if i, ok := c.(*mcp.ImageContent); ok {
				img = i
			}
		}
		if img == nil || sc["frame_id"] == nil || sc["geometry_epoch"] == nil {
			err = fmt.Errorf("no image block or frame: %.300v", sc)
		}
	}
	detail := ""
	if img != nil {
		detail = fmt.Sprintf("%s %d bytes, frame %v", img.MIMEType, len(img.Data), sc["frame_id"])
	}
	res.record(t, name, "screenshot", err == nil, errText(err, detail))

	err = errors.New("no frame to tap on (screenshot failed)")
	if img != nil {
		_, tsc, terr := callTool(ctx, cs, "openlolo_tap", map[string]any{"frame_id": sc["frame_id"], "geometry_epoch": sc["geometry_epoch"], "x": 0.5, "y": 0.5})
		err = terr
		if err == nil {
			err = tapped(tsc)
		}
		if err == nil {
			_, _, err = callTool(ctx, cs, "openlolo_control", map[string]any{"command": "release"})
		}
	}
	res.record(t, name, "tap", err == nil, errText(err, "tapped with frame_id and geometry_epoch, control released"))
	detail, err = resourceSteps(ctx, cs)
	res.record(t, name, "resources", err == nil, errText(err, detail))
	detail, err = promptSteps(ctx, cs)
	res.record(t, name, "prompts", err == nil, errText(err, detail))
}

func firstOf(xs []any) any {
	if len(xs) == 0 {
		return nil
	}
	return xs[0]
}

// resourceSteps lists the resources and templates, reads the screen (a
// JPEG blob with its frame in _meta) and Maps's profile (JSON).
func resourceSteps(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || caps.Prompts == nil {
		return "", fmt.Errorf("initialize advertises no resources or prompts: %+v", caps)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("resources/list: %w", err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "openlolo://screen") || !slices.Contains(uris, "openlolo://apps/com.apple.Maps") {
		return "", fmt.Errorf("resources/list has no screen or Maps profile: %v", uris)
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpl.ResourceTemplates) == 0 || tpl.ResourceTemplates[0].URITemplate != "openlolo://apps/{bundle_id}" {
		return "", fmt.Errorf("resources/templates/list: %+v, %v", tpl, err)
	}
	scr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "openlolo://screen"})
	if err != nil || len(scr.Contents) != 1 {
		return "", fmt.Errorf("read openlolo://screen: %+v, %v", scr, err)
	}
	c := scr.Contents[0]
	meta, _ := c.Meta["openlolo.mcp"].(map[string]any)
	frame, _ := meta["frame"].(map[string]any)
	if c.MIMEType != "image/jpeg" || !bytes.HasPrefix(c.Blob, []byte{0xFF, 0xD8}) || frame["frame_id"] == nil {
		return "", fmt.Errorf("openlolo://screen: %s, %d bytes, _meta %v", c.MIMEType, len(c.Blob), c.Meta)
	}
	app, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "openlolo://apps/com.apple.Maps"})
	if err != nil || len(app.Contents) != 1 {
		return "", fmt.Errorf("read openlolo://apps/com.apple.Maps: %+v, %v", app, err)
	}
	var p struct {
		BundleID string `json:"bundle_id"`
		Links    []any  `json:"links"`
	}
	if err := json.Unmarshal([]byte(app.Contents[0].Text), &p); err != nil || p.BundleID != "com.apple.Maps" || len(p.Links) == 0 {
		return "", fmt.Errorf("Maps profile %.200q: %v", app.Contents[0].Text, err)
	}
	return fmt.Sprintf("%d resources, screen %d bytes (frame %v), Maps profile with %d links", len(uris), len(c.Blob), frame["frame_id"], len(p.Links)), nil
}

// promptSteps lists the prompts and gets operate_phone with a goal.
func promptSteps(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) == 0 || list.Prompts[0].Name != "operate_phone" {
		return "", fmt.Errorf("prompts/list: %+v, %v", list, err)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "operate_phone", Arguments: map[string]string{"goal": "open Notes"}})
	if err != nil || len(got.Messages) == 0 {
		return "", fmt.Errorf("prompts/get operate_phone: %+v, %v", got, err)
	}
	text, _ := got.Messages[0].Content.(*mcp.TextContent)
	if text == nil || !strings.Contains(text.Text, "open Notes") || !strings.Contains(text.Text, "openlolo_find_text") {
		return "", fmt.Errorf("operate_phone's message: %+v", got.Messages[0].Content)
	}
	return fmt.Sprintf("operate_phone: %d characters with the goal", len(text.Text)), nil
}

// callTool calls a tool and returns its structured answer; a tool error
// (isError) is an error here.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any, error) {
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", tool, err)
	}
	sc, _ := r.StructuredContent.(map[string]any)
	if r.IsError || sc == nil {
		return r, sc, fmt.Errorf("%s answered %.300v", tool, r.StructuredContent)
	}
	return r, sc, nil
}

func hasTools(names []string) error {
	for _, want := range []string{"openlolo_status", "openlolo_screenshot", "openlolo_tap"} {
		if !slices.Contains(names, want) {
			return fmt.Errorf("tools/list has no %s: %v", want, names)
		}
	}
	return nil
}

func tapped(sc map[string]any) error {
	if sc["status"] != "ok" || sc["dispatched"] != true {
		return fmt.Errorf("tap answered %.300v", sc)
	}
	return nil
}

func toolNames(v map[string]any) []string {
	var names []string
	tools, _ := v["tools"].([]any)
	for _, tl := range tools {
		if m, ok := tl.(map[string]any); ok {
			n, _ := m["name"].(string)
			names = append(names, n)
		}
	}
	return names
}

func hasImage(v map[string]any) bool {
	content, _ := v["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "image" && m["data"] != "" {
			return true
		}
	}
	return false
}

func errText(err error, ok string) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

// boxToken is the token endpoint's answer, with the device answer's
// client_id.
type boxToken struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
	ClientID     string `json:"-"`
}

// seedDeviceToken is docs/wire.md's device flow by hand (client_name, then
// polling /token), approved by the owner on the Access page.
func seedDeviceToken(ctx context.Context, b *servedBox, clientName string) (*boxToken, error) {
	res, body, err := fetch(b.Pinned, http.MethodPost, b.URL+"/oauth/device_authorization",
		url.Values{"client_name": {clientName}, "scope": {"phone:read phone:control"}})
	if err != nil {
		return nil, err
	}
	var da struct {
		DeviceCode string `json:"device_code"`
		UserCode   string `json:"user_code"`
		ClientID   string `json:"client_id"`
		Interval   int    `json:"interval"`
	}
	if err := json.Unmarshal([]byte(body), &da); err != nil || res.StatusCode != http.StatusOK || da.DeviceCode == "" {
		return nil, fmt.Errorf("device authorization: status %d: %.300s", res.StatusCode, body)
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := b.approveDeviceWhenShown(actx, da.UserCode, ""); err != nil {
		return nil, fmt.Errorf("the owner's approval: %w", err)
	}
	for {
		tok, err := postToken(b, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
			"device_code": {da.DeviceCode}, "client_id": {da.ClientID}})
		if err != nil {
			return nil, err
		}
		if tok.AccessToken != "" {
			tok.ClientID = da.ClientID
			return tok, nil
		}
		if tok.Error != "authorization_pending" && tok.Error != "slow_down" {
			return nil, fmt.Errorf("device token: %s: %s", tok.Error, tok.Description)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(max(da.Interval, 1)) * time.Second):
		}
	}
}

func refreshGrant(ctx context.Context, b *servedBox, tok *boxToken) (*boxToken, error) {
	fresh, err := postToken(b, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {tok.ClientID}})
	if err != nil {
		return nil, err
	}
	if fresh.AccessToken == "" || fresh.RefreshToken == tok.RefreshToken {
		return nil, fmt.Errorf("refresh: %s: %s (rotated: %t)", fresh.Error, fresh.Description, fresh.RefreshToken != tok.RefreshToken)
	}
	fresh.ClientID = tok.ClientID
	return fresh, nil
}

func postToken(b *servedBox, form url.Values) (*boxToken, error) {
	_, body, err := fetch(b.Pinned, http.MethodPost, b.URL+"/token", form)
	if err != nil {
		return nil, err
	}
	var tok boxToken
	if err := json.Unmarshal([]byte(body), &tok); err != nil {
		return nil, fmt.Errorf("/token answered %.200q: %w", body, err)
	}
	return &tok, nil
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
