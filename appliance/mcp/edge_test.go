package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/oauth"
)

// registeredToken runs the browser flow by hand for a client registered
// through /oauth/register (what the TypeScript SDK does) and returns its
// access token with scope.
func (b *simBox) registeredToken(t *testing.T, scope string) string {
	t.Helper()
	hc := b.srv.Client()
	resp, err := hc.Post(b.srv.URL+"/oauth/register", "application/json",
		strings.NewReader(`{"client_name":"ts client","redirect_uris":["http://localhost/cb"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	verifier := strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "scope": {scope},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	r := httptest.NewRequest("GET", "/oauth/authorize?"+q.Encode(), nil)
	r.Host = strings.TrimPrefix(b.srv.URL, "https://")
	req, err := b.oa.ParseAuthorize(r)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := b.oa.ApproveAuthorize(context.Background(), req, oauth.Life24h)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	resp, err = hc.PostForm(b.srv.URL+"/token", url.Values{"grant_type": {"authorization_code"},
		"code": {u.Query().Get("code")}, "code_verifier": {verifier}, "client_id": {reg.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if tok.AccessToken == "" {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	return tok.AccessToken
}

// post sends one JSON-RPC message to /mcp with the given headers.
func (b *simBox) post(t *testing.T, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", b.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

const tapCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_tap","arguments":{"frame_id":"x","geometry_epoch":"1","x":0.5,"y":0.5}}}`
const statusCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}`

// TestScopeStepUp: a browser-flow client missing a tool's scope gets 403
// with the MCP authorization spec's scope challenge, which the TypeScript
// SDK's step-up waits for; a device-flow script gets the tool answer
// SCOPE_REQUIRED as before.
func TestScopeStepUp(t *testing.T) {
	b := newSimBox(t)
	reader := b.registeredToken(t, "phone:read")
	resp, raw := b.post(t, tapCall, map[string]string{"Authorization": "Bearer " + reader})
	www := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(www, `Bearer error="insufficient_scope"`) ||
		!strings.Contains(www, `scope="phone:read phone:control"`) ||
		!strings.Contains(www, `resource_metadata="`+b.srv.URL+`/.well-known/oauth-protected-resource"`) {
		t.Errorf("tap with a read grant = %d %s, WWW-Authenticate %q", resp.StatusCode, raw, www)
	}
	if resp, raw := b.post(t, statusCall, map[string]string{"Authorization": "Bearer " + reader}); resp.StatusCode != http.StatusOK {
		t.Errorf("status with a read grant = %d %s", resp.StatusCode, raw)
	}
	// A browser-flow client without phone:read reading a resource gets the
	// same challenge, for phone:read.
	writer := b.registeredToken(t, "phone:control")
	resp, raw = b.post(t, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"openlolo://screen"}}`, map[string]string{"Authorization": "Bearer " + writer})
	if www := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusForbidden || !strings.Contains(www, `error="insufficient_scope"`) || !strings.Contains(www, "phone:read") {
		t.Errorf("resources/read with a control grant = %d %s, WWW-Authenticate %q", resp.StatusCode, raw, www)
	}
	script := b.token(t, "script", "phone:read")
	resp, raw = b.post(t, tapCall, map[string]string{"Authorization": "Bearer " + script})
	if resp.StatusCode != http.StatusOK || !strings.Contains(raw, "SCOPE_REQUIRED") {
		t.Errorf("tap with a device-flow read grant = %d %s, want a SCOPE_REQUIRED answer", resp.StatusCode, raw)
	}
}

func TestMCPHTTPEdges(t *testing.T) {
	b := newSimBox(t)
	tok := "Bearer " + b.token(t, "edges", "phone:read phone:control")
	t.Run("Accept application/json alone", func(t *testing.T) {
		resp, raw := b.post(t, statusCall, map[string]string{"Authorization": tok, "Accept": "application/json"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(raw, `"structuredContent"`) {
			t.Errorf("= %d %s", resp.StatusCode, raw)
		}
	})
	t.Run("no Accept", func(t *testing.T) {
		if resp, raw := b.post(t, statusCall, map[string]string{"Authorization": tok, "Accept": ""}); resp.StatusCode != http.StatusOK {
			t.Errorf("= %d %s", resp.StatusCode, raw)
		}
	})
	t.Run("Accept text/html only", func(t *testing.T) {
		if resp, _ := b.post(t, statusCall, map[string]string{"Authorization": tok, "Accept": "text/html"}); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("= %d, want 400", resp.StatusCode)
		}
	})
	t.Run("unsupported protocol version", func(t *testing.T) {
		resp, raw := b.post(t, statusCall, map[string]string{"Authorization": tok, "Mcp-Protocol-Version": "2099-01-01"})
		var e struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    struct {
					Supported []string `json:"supported"`
				} `json:"data"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(raw), &e)
		if resp.StatusCode != http.StatusBadRequest || e.Error.Code != -32022 ||
			!strings.Contains(e.Error.Message, "2025-11-25") || len(e.Error.Data.Supported) < 4 {
			t.Errorf("= %d %s", resp.StatusCode, raw)
		}
	})
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run("protocol version "+v, func(t *testing.T) {
			if resp, raw := b.post(t, statusCall, map[string]string{"Authorization": tok, "Mcp-Protocol-Version": v}); resp.StatusCode != http.StatusOK {
				t.Errorf("= %d %s", resp.StatusCode, raw)
			}
		})
	}
	t.Run("CORS preflight without credentials", func(t *testing.T) {
		req, _ := http.NewRequest("OPTIONS", b.srv.URL+"/mcp", nil)
		req.Header.Set("Origin", "https://inspector.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		resp, err := b.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") {
			t.Errorf("preflight = %d %v", resp.StatusCode, h)
		}
	})
	t.Run("CORS on answers", func(t *testing.T) {
		resp, _ := b.post(t, statusCall, map[string]string{"Authorization": tok})
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("answer headers %v", resp.Header)
		}
		resp, _ = b.post(t, statusCall, nil)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("401 = %d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("401 without credentials names no error", func(t *testing.T) {
		resp, _ := b.post(t, statusCall, nil)
		www := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(www, "error=") ||
			!strings.Contains(www, `scope="phone:read phone:control"`) || !strings.Contains(www, "resource_metadata=") {
			t.Errorf("= %d, WWW-Authenticate %q", resp.StatusCode, www)
		}
	})
}
