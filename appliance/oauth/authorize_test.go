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
		{"confidential client", `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "invalid_client_metadata"},
		{"no redirect", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"http not loopback", `{"redirect_uris":["http://a.example/cb"]}`, "invalid_redirect_uri"},
		{"custom scheme", `{"redirect_uris":["cursor://cb"]}`, "invalid_redirect_uri"},
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
