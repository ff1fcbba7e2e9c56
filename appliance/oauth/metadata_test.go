package oauth

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestMetadata(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	get := func(path string) answer {
		req, _ := http.NewRequest("GET", h.ts.URL+path, nil)
		return h.do(req)
	}
	a := get("/.well-known/oauth-authorization-server")
	var m authServerMetadata
	if err := json.Unmarshal([]byte(a.raw), &m); err != nil || a.status != 200 {
		t.Fatalf("metadata = %d %s (%v)", a.status, a.raw, err)
	}
	iss := h.ts.URL
	if m.Issuer != iss || m.TokenEndpoint != iss+"/token" || m.DeviceAuthorizationEndpoint != iss+"/oauth/device_authorization" ||
		m.AuthorizationEndpoint != iss+"/oauth/authorize" || m.RegistrationEndpoint != iss+"/oauth/register" ||
		m.RevocationEndpoint != iss+"/oauth/revoke" {
		t.Errorf("endpoints = %+v", m)
	}
	if !slices.Equal(m.GrantTypesSupported, []string{"authorization_code", "refresh_token", DeviceCodeGrantType}) ||
		!slices.Equal(m.CodeChallengeMethodsSupported, []string{"S256"}) ||
		!slices.Equal(m.TokenEndpointAuthMethodsSupported, []string{"none"}) ||
		!slices.Equal(m.ScopesSupported, []string{ScopePhoneRead, ScopePhoneControl}) || !m.AuthorizationResponseIssParameter {
		t.Errorf("metadata = %+v", m)
	}
	if a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", a.header.Get("Cache-Control"))
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		a := get(p)
		var r resourceMetadata
		if err := json.Unmarshal([]byte(a.raw), &r); err != nil || a.status != 200 {
			t.Fatalf("%s = %d %s", p, a.status, a.raw)
		}
		if r.Resource != iss+"/mcp" || !slices.Equal(r.AuthorizationServers, []string{iss}) {
			t.Errorf("%s = %+v", p, r)
		}
	}
}

func TestIssuerPerRequest(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	srv, err := New(Config{Store: h.st, Entry: "tailnet", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Issuer:          func(r *http.Request) string { return "https://pi." + r.Header.Get("X-Test-Tailnet") },
		VerificationURI: func(r *http.Request, handle string) string { return "http://openlolo-ab12.local/access?r=" + handle }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Routes(mux)
	for _, tn := range []string{"one.ts.net", "two.ts.net"} {
		req := httptest.NewRequest("GET", "/.well-known/oauth-authorization-server", nil)
		req.Header.Set("X-Test-Tailnet", tn)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		var m authServerMetadata
		json.Unmarshal(rec.Body.Bytes(), &m)
		if m.Issuer != "https://pi."+tn || m.TokenEndpoint != "https://pi."+tn+"/token" {
			t.Errorf("issuer for %s = %+v", tn, m)
		}
	}
	req := httptest.NewRequest("POST", "/oauth/device_authorization", nil)
	req.Body = io.NopCloser(strings.NewReader("client_name=curl&scope=phone%3Aread"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	var d deviceAuthorization
	json.Unmarshal(rec.Body.Bytes(), &d)
	if rec.Code != 200 || !strings.HasPrefix(d.VerificationURI, "http://openlolo-ab12.local/access?r=") || len(d.VerificationURI) < 50 {
		t.Errorf("device authorization = %d %s", rec.Code, rec.Body)
	}
}

func TestDefaultVerificationURI(t *testing.T) {
	tests := []struct{ host, want string }{
		{"openlolo-ab12.local", "http://openlolo-ab12.local/access?r=h1"},
		{"openlolo-ab12.local:443", "http://openlolo-ab12.local/access?r=h1"},
		{"192.168.1.5:8443", "http://192.168.1.5/access?r=h1"},
		{"[fe80::1]:443", "http://[fe80::1]/access?r=h1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tt.host
		if got := defaultVerificationURI(r, "h1"); got != tt.want {
			t.Errorf("defaultVerificationURI(host %q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// TestCORS: browser-based clients can register, get tokens and revoke
// from any origin; the preflight is answered without credentials.
func TestCORS(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	for _, path := range []string{"/token", "/oauth/register", "/oauth/device_authorization", "/oauth/revoke"} {
		t.Run(path, func(t *testing.T) {
			req := must(http.NewRequest("OPTIONS", h.ts.URL+path, nil))
			req.Header.Set("Origin", "https://inspector.example")
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type")
			a := h.do(req)
			if a.status != http.StatusNoContent || a.header.Get("Access-Control-Allow-Origin") != "*" ||
				!strings.Contains(a.header.Get("Access-Control-Allow-Headers"), "Content-Type") ||
				!strings.Contains(a.header.Get("Access-Control-Allow-Methods"), "POST") {
				t.Errorf("preflight = %d %v", a.status, a.header)
			}
		})
	}
	a := h.post("/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {"y"}})
	if a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("/token answer has no CORS header: %v", a.header)
	}
}
