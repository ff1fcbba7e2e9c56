package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const testRedirect = "http://127.0.0.1:33418/callback"

// register registers a public client and returns its client_id.
func (h *harness) register(redirects ...string) string {
	h.t.Helper()
	body := `{"client_name":"Test MCP","redirect_uris":["` + strings.Join(redirects, `","`) + `"],"token_endpoint_auth_method":"none"}`
	a := h.postJSON("/oauth/register", body)
	if a.status != http.StatusCreated || a.str("client_id") == "" {
		h.t.Fatalf("register = %d %s", a.status, a.raw)
	}
	return a.str("client_id")
}

// authorizeURL builds an authorization request as x/oauth2 does.
func (h *harness) oauth2Config(clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID,
		Endpoint: oauth2.Endpoint{
			AuthURL:       h.ts.URL + "/oauth/authorize",
			TokenURL:      h.ts.URL + "/token",
			DeviceAuthURL: h.ts.URL + "/oauth/device_authorization",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
		RedirectURL: testRedirect,
		Scopes:      []string{ScopePhoneRead, ScopePhoneControl},
	}
}

func (h *harness) parseAuthorize(rawURL string) (*AuthorizeRequest, error) {
	r := httptest.NewRequest("GET", rawURL, nil)
	r.Host = strings.TrimPrefix(h.ts.URL, "https://")
	return h.srv.ParseAuthorize(r)
}

func (h *harness) oauthCtx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.ts.Client())
}

func TestAuthorizationCodeFlow(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	id := h.register(testRedirect)
	cfg := h.oauth2Config(id)
	verifier := oauth2.GenerateVerifier()
	req, err := h.parseAuthorize(cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	if req.ClientName != "Test MCP" || req.RedirectHost() != "127.0.0.1:33418" || len(req.Scopes) != 2 || req.Issuer != h.ts.URL {
		t.Errorf("AuthorizeRequest = %+v", req)
	}
	loc, err := h.srv.ApproveAuthorize(context.Background(), req, Life30d)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	q := u.Query()
	if !strings.HasPrefix(loc, testRedirect+"?") || q.Get("state") != "st4te" || q.Get("iss") != h.ts.URL || q.Get("code") == "" {
		t.Fatalf("redirect = %q, want code, state and iss", loc)
	}
	tok, err := cfg.Exchange(h.oauthCtx(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if w := h.whoami(tok.AccessToken); w.status != http.StatusOK {
		t.Fatalf("access token from the code flow answered %d %s", w.status, w.raw)
	}
	// Single use: a second exchange fails and revokes what the first got.
	_, err = cfg.Exchange(h.oauthCtx(), q.Get("code"), oauth2.VerifierOption(verifier))
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("second exchange err = %v, want invalid_grant", err)
	}
	if w := h.whoami(tok.AccessToken); w.status != http.StatusUnauthorized {
		t.Errorf("access token after code reuse answered %d, want 401", w.status)
	}
}

func TestAuthorizationCodeRefused(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	id := h.register(testRedirect, "https://app.example/cb")
	cfg := h.oauth2Config(id)
	verifier := oauth2.GenerateVerifier()
	code := func(t *testing.T) string {
		req, err := h.parseAuthorize(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
		if err != nil {
			t.Fatal(err)
		}
		loc, err := h.srv.ApproveAuthorize(context.Background(), req, Life24h)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(loc)
		return u.Query().Get("code")
	}
	exchange := func(code, redirect, verifier, client string) answer {
		return h.post("/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {redirect}, "code_verifier": {verifier}, "client_id": {client}})
	}
	t.Run("PKCE mismatch", func(t *testing.T) {
		wantError(t, exchange(code(t), testRedirect, oauth2.GenerateVerifier(), id), 400, "invalid_grant")
	})
	t.Run("malformed verifier", func(t *testing.T) {
		wantError(t, exchange(code(t), testRedirect, "short", id), 400, "invalid_request")
	})
	t.Run("redirect_uri mismatch", func(t *testing.T) {
		wantError(t, exchange(code(t), "https://app.example/cb", verifier, id), 400, "invalid_grant")
	})
	t.Run("other client", func(t *testing.T) {
		other := h.register(testRedirect)
		wantError(t, exchange(code(t), testRedirect, verifier, other), 400, "invalid_grant")
	})
	t.Run("expired after 5 minutes", func(t *testing.T) {
		c := code(t)
		h.clock.Advance(AuthCodeLife)
		wantError(t, exchange(c, testRedirect, verifier, id), 400, "invalid_grant")
	})
	t.Run("unknown code", func(t *testing.T) {
		wantError(t, exchange("nope", testRedirect, verifier, id), 400, "invalid_grant")
	})
	t.Run("good one still works", func(t *testing.T) {
		if a := exchange(code(t), testRedirect, verifier, id); a.status != 200 {
			t.Fatalf("exchange = %d %s", a.status, a.raw)
		}
	})
}

func TestParseAuthorizeRefused(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	id := h.register(testRedirect)
	challenge := func(v string) string {
		s := sha256.Sum256([]byte(v))
		return base64.RawURLEncoding.EncodeToString(s[:])
	}("a-verifier-that-is-long-enough-for-pkce-rules-000")
	base := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {testRedirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"s1"}}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for kk, vv := range base {
			q[kk] = vv
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	tests := []struct {
		name     string
		q        url.Values
		code     string
		redirect bool
	}{
		{"unknown client", with("client_id", "nope"), "invalid_client", false},
		{"no client", with("client_id", ""), "invalid_request", false},
		{"unregistered redirect_uri", with("redirect_uri", "http://127.0.0.1:1/evil"), "invalid_request", false},
		{"plain PKCE", with("code_challenge_method", "plain"), "invalid_request", true},
		{"no PKCE", with("code_challenge_method", ""), "invalid_request", true},
		{"bad challenge", with("code_challenge", "abc"), "invalid_request", true},
		{"token response type", with("response_type", "token"), "unsupported_response_type", true},
		{"owner:admin", with("scope", "owner:admin"), "invalid_scope", true},
		{"other resource", with("resource", "https://elsewhere.example/mcp"), "invalid_target", true},
	}
	// A client nobody approved gets no error redirect at all (RFC 9700
	// §4.11.2): the box shows the error itself.
	for _, tt := range tests {
		t.Run("unapproved "+tt.name, func(t *testing.T) {
			_, err := h.parseAuthorize("/oauth/authorize?" + tt.q.Encode())
			var ae *AuthorizeError
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Fatalf("ParseAuthorize err = %v, want %s", err, tt.code)
			}
			if loc, ok := ae.RedirectURL(); ok {
				t.Fatalf("RedirectURL() = %q for a client the owner never approved", loc)
			}
		})
	}
	// Once the owner approved the client, errors go back to it.
	req, err := h.parseAuthorize("/oauth/authorize?" + base.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.srv.ApproveAuthorize(context.Background(), req, Life24h); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.parseAuthorize("/oauth/authorize?" + tt.q.Encode())
			var ae *AuthorizeError
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Fatalf("ParseAuthorize err = %v, want %s", err, tt.code)
			}
			loc, ok := ae.RedirectURL()
			if ok != tt.redirect {
				t.Fatalf("RedirectURL() ok = %v, want %v", ok, tt.redirect)
			}
			if ok {
				u, _ := url.Parse(loc)
				if !strings.HasPrefix(loc, testRedirect+"?") || u.Query().Get("error") != tt.code ||
					u.Query().Get("state") != "s1" || u.Query().Get("iss") != h.ts.URL {
					t.Errorf("error redirect = %q", loc)
				}
			}
		})
	}
	t.Run("deny", func(t *testing.T) {
		req, err := h.parseAuthorize("/oauth/authorize?" + base.Encode())
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(h.srv.DenyAuthorize(req))
		if u.Query().Get("error") != "access_denied" || u.Query().Get("state") != "s1" || u.Query().Get("iss") != h.ts.URL {
			t.Errorf("DenyAuthorize = %q", u)
		}
		if _, err := h.srv.ApproveAuthorize(context.Background(), req, "week"); !errors.Is(err, ErrBadLife) {
			t.Errorf("ApproveAuthorize(week) err = %v, want ErrBadLife", err)
		}
	})
	t.Run("registration pruned", func(t *testing.T) {
		base := with("client_id", h.register(testRedirect)) // never approved
		req, err := h.parseAuthorize("/oauth/authorize?" + base.Encode())
		if err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(UnapprovedRegistrationLife + time.Second)
		h.register(testRedirect) // pruning happens on registration
		_, err = h.parseAuthorize("/oauth/authorize?" + base.Encode())
		var ae *AuthorizeError
		if !errors.As(err, &ae) || ae.Code != "invalid_client" {
			t.Fatalf("ParseAuthorize of a pruned client err = %v, want invalid_client", err)
		}
		if _, err := h.srv.ApproveAuthorize(context.Background(), req, Life24h); !errors.Is(err, ErrNoClient) {
			t.Errorf("ApproveAuthorize of a pruned client err = %v, want ErrNoClient", err)
		}
	})
}

func TestRegister(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tests := []struct {
		name string
		body string
		code string
	}{
		{"no redirect", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"http not loopback", `{"redirect_uris":["http://a.example/cb"]}`, "invalid_redirect_uri"},
		{"javascript scheme", `{"redirect_uris":["javascript://x/%0aalert(1)"]}`, "invalid_redirect_uri"},
		{"data scheme", `{"redirect_uris":["data:text/html,x"]}`, "invalid_redirect_uri"},
		{"file scheme", `{"redirect_uris":["file:///etc/passwd"]}`, "invalid_redirect_uri"},
		{"one bad among good", `{"redirect_uris":["cursor://a/cb","http://evil.example/cb"]}`, "invalid_redirect_uri"},
		{"device grant, no redirect, asks code", `{"grant_types":["authorization_code","urn:ietf:params:oauth:grant-type:device_code"]}`, "invalid_redirect_uri"},
		{"client credentials", `{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`, "invalid_client_metadata"},
		{"fragment", `{"redirect_uris":["https://a.example/cb#x"]}`, "invalid_redirect_uri"},
		{"relative", `{"redirect_uris":["/cb"]}`, "invalid_redirect_uri"},
		{"implicit grant", `{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		{"token response", `{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`, "invalid_client_metadata"},
		{"owner scope", `{"redirect_uris":["https://a.example/cb"],"scope":"owner:admin"}`, "invalid_client_metadata"},
		{"not json", `client_name=x`, "invalid_client_metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, h.postJSON("/oauth/register", tt.body), 400, tt.code) })
	}
	t.Run("form content type", func(t *testing.T) {
		wantError(t, h.post("/oauth/register", url.Values{"redirect_uris": {"https://a.example/cb"}}), 400, "invalid_request")
	})
	h2 := newHarness(t, harnessOpt{})
	a := h2.postJSON("/oauth/register", `{"redirect_uris":["https://claude.ai/api/mcp/auth_callback","http://[::1]:5555/cb","http://localhost/cb"]}`)
	if a.status != 201 || a.str("token_endpoint_auth_method") != "none" || a.str("client_name") != "claude.ai" ||
		a.num("client_id_issued_at") != int(h2.clock.Now().Unix()) || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("register = %d %s", a.status, a.raw)
	}
	for range RegistrationsLimit - 1 {
		h2.register(testRedirect)
	}
	wantError(t, h2.postJSON("/oauth/register", `{"redirect_uris":["`+testRedirect+`"]}`), http.StatusTooManyRequests, "slow_down")
	// The limit is the box's: the other entry is refused too.
	tail := newHarness(t, harnessOpt{entry: "tailnet", st: h2.st, clock: h2.clock})
	wantError(t, tail.postJSON("/oauth/register", `{"redirect_uris":["`+testRedirect+`"]}`), http.StatusTooManyRequests, "slow_down")
	h2.clock.Advance(time.Minute)
	h2.register(testRedirect)
}

func TestParseAuthorizePOST(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	id := h.register(testRedirect)
	cfg := h.oauth2Config(id)
	authURL := cfg.AuthCodeURL("s9", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
	u, _ := url.Parse(authURL)
	body := u.Query()
	body.Set("csrf", "tok")
	body.Set("life", "30d")
	for _, tt := range []struct {
		name, target, body string
	}{
		{"fields in the body", "/oauth/authorize", body.Encode()},
		{"fields in the query, body has the decision", "/oauth/authorize?" + u.RawQuery, "csrf=tok&life=30d"},
		{"same fields in both", "/oauth/authorize?" + u.RawQuery, body.Encode()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Host = strings.TrimPrefix(h.ts.URL, "https://")
			req, err := h.srv.ParseAuthorize(r)
			if err != nil || req.State != "s9" || req.ClientID != id {
				t.Fatalf("ParseAuthorize = %+v, %v", req, err)
			}
		})
	}
}

// TestRegisterRealClients registers what independently written clients
// send (their registration bodies, as each client's source builds them)
// and checks what the box answers.
func TestRegisterRealClients(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tests := []struct {
		name, body string
		check      func(t *testing.T, a answer)
	}{
		{"TS SDK example: client_secret_post becomes none (RFC 7591 §3.2.1)",
			`{"client_name":"Simple OAuth MCP Client","redirect_uris":["http://localhost:8090/callback"],
			"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"client_secret_post"}`,
			func(t *testing.T, a answer) {
				if a.str("token_endpoint_auth_method") != "none" || a.body["client_secret"] != nil {
					t.Errorf("answer %s: want token_endpoint_auth_method none and no secret", a.raw)
				}
			}},
		{"Cursor: three redirect URIs, one private-use",
			`{"client_name":"Cursor","redirect_uris":["cursor://anysphere.cursor-mcp/oauth/callback",
			"https://www.cursor.com/agents/mcp/oauth/callback","http://localhost:8787/callback"]}`,
			func(t *testing.T, a answer) {
				if uris, _ := a.body["redirect_uris"].([]any); len(uris) != 3 {
					t.Errorf("redirect_uris = %v, want all three", a.body["redirect_uris"])
				}
			}},
		{"vscode scheme", `{"redirect_uris":["vscode://vscode.github-authentication/did-authenticate"]}`,
			func(t *testing.T, a answer) {
				if a.str("client_name") != "vscode.github-authentication" {
					t.Errorf("client_name = %q", a.str("client_name"))
				}
			}},
		{"reverse-domain scheme (RFC 8252 §7.1)", `{"redirect_uris":["com.example.app:/oauth2redirect"]}`,
			func(t *testing.T, a answer) {
				if a.str("client_name") != "com.example.app" {
					t.Errorf("client_name = %q", a.str("client_name"))
				}
			}},
		{"mcp-remote --device-code", `{"client_name":"MCP CLI Proxy","grant_types":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"],"application_type":"native","token_endpoint_auth_method":"none"}`,
			func(t *testing.T, a answer) {
				if g, _ := a.body["grant_types"].([]any); len(g) != 2 || g[0] != DeviceCodeGrantType {
					t.Errorf("grant_types = %v", a.body["grant_types"])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.clock.Advance(10 * time.Second) // stay under the registration limit
			a := h.postJSON("/oauth/register", tt.body)
			if a.status != http.StatusCreated || a.str("client_id") == "" {
				t.Fatalf("register = %d %s", a.status, a.raw)
			}
			tt.check(t, a)
		})
	}
}

// TestRedirectURIRules: loopback redirects match on any port (RFC 8252
// §7.3), private-use schemes work (§7.1), and /token needs redirect_uri
// only when the authorization request carried one (RFC 6749 §4.1.3).
func TestRedirectURIRules(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	verifier := oauth2.GenerateVerifier()
	s256 := func() string { s := sha256.Sum256([]byte(verifier)); return base64.RawURLEncoding.EncodeToString(s[:]) }()
	authorize := func(t *testing.T, id string, redirect *string) (string, error) {
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "code_challenge": {s256},
			"code_challenge_method": {"S256"}, "state": {"s"}}
		if redirect != nil {
			q.Set("redirect_uri", *redirect)
		}
		req, err := h.parseAuthorize("/oauth/authorize?" + q.Encode())
		if err != nil {
			return "", err
		}
		return h.srv.ApproveAuthorize(context.Background(), req, Life24h)
	}
	exchange := func(loc string, id string, redirect *string) answer {
		u, _ := url.Parse(loc)
		f := url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
			"code_verifier": {verifier}, "client_id": {id}}
		if redirect != nil {
			f.Set("redirect_uri", *redirect)
		}
		return h.post("/token", f)
	}
	ptr := func(s string) *string { return &s }
	loop := h.register("http://127.0.0.1/callback")
	t.Run("loopback on another port", func(t *testing.T) {
		loc, err := authorize(t, loop, ptr("http://127.0.0.1:5555/callback"))
		if err != nil || !strings.HasPrefix(loc, "http://127.0.0.1:5555/callback?") {
			t.Fatalf("authorize = %q, %v", loc, err)
		}
		// The token request repeats the one sent, port and all.
		wantError(t, exchange(loc, loop, ptr("http://127.0.0.1/callback")), 400, "invalid_grant")
		loc, _ = authorize(t, loop, ptr("http://127.0.0.1:5555/callback"))
		if a := exchange(loc, loop, ptr("http://127.0.0.1:5555/callback")); a.status != 200 {
			t.Fatalf("exchange = %d %s", a.status, a.raw)
		}
	})
	for _, bad := range []string{"http://127.0.0.1:5555/other", "http://localhost:5555/callback",
		"http://127.0.0.1:5555/callback?x=1", "https://127.0.0.1:5555/callback"} {
		t.Run("refused "+bad, func(t *testing.T) {
			_, err := authorize(t, loop, ptr(bad))
			var ae *AuthorizeError
			if !errors.As(err, &ae) || ae.Code != "invalid_request" {
				t.Fatalf("authorize(%q) err = %v, want invalid_request", bad, err)
			}
		})
	}
	t.Run("https port is exact", func(t *testing.T) {
		id := h.register("https://app.example/cb")
		if _, err := authorize(t, id, ptr("https://app.example:8443/cb")); err == nil {
			t.Fatal("an https redirect on another port was accepted")
		}
	})
	t.Run("no redirect_uri at authorize nor token", func(t *testing.T) {
		loc, err := authorize(t, loop, nil)
		if err != nil || !strings.HasPrefix(loc, "http://127.0.0.1/callback?") {
			t.Fatalf("authorize = %q, %v", loc, err)
		}
		if a := exchange(loc, loop, nil); a.status != 200 {
			t.Fatalf("exchange without redirect_uri = %d %s", a.status, a.raw)
		}
		loc, _ = authorize(t, loop, nil)
		if a := exchange(loc, loop, ptr("http://127.0.0.1/callback")); a.status != 200 {
			t.Fatalf("exchange with the registered redirect_uri = %d %s", a.status, a.raw)
		}
	})
	t.Run("redirect_uri at authorize, none at token", func(t *testing.T) {
		loc, _ := authorize(t, loop, ptr("http://127.0.0.1/callback"))
		wantError(t, exchange(loc, loop, nil), 400, "invalid_request")
	})
	t.Run("private-use scheme", func(t *testing.T) {
		cursor := h.register("cursor://anysphere.cursor-mcp/oauth/callback", "http://localhost:8787/callback")
		loc, err := authorize(t, cursor, ptr("cursor://anysphere.cursor-mcp/oauth/callback"))
		if err != nil || !strings.HasPrefix(loc, "cursor://anysphere.cursor-mcp/oauth/callback?") {
			t.Fatalf("authorize = %q, %v", loc, err)
		}
		if a := exchange(loc, cursor, ptr("cursor://anysphere.cursor-mcp/oauth/callback")); a.status != 200 {
			t.Fatalf("exchange = %d %s", a.status, a.raw)
		}
		// Two registered: redirect_uri must say which.
		if _, err := authorize(t, cursor, nil); err == nil {
			t.Error("authorize without redirect_uri for a client with two was accepted")
		}
	})
}
