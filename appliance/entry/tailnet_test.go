package entry

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestFunnelAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want bool
	}{
		{"/mcp", true},
		{"/token", true},
		{"/.well-known/oauth-authorization-server", true},
		{"/.well-known/oauth-protected-resource/mcp", true},
		{"/oauth/register", true},
		{"/oauth/device_authorization", true},
		{"/oauth/revoke", true},
		{"/oauth/authorize", false},
		{"/", false},
		{"/status", false},
		{"/access", false},
		{"/login", false},
		{"/settings", false},
		{"/static/style.css", false},
		{"/healthz", false},
		{"/mcp/extra", false},
		{"/tokens", false},
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("reached")) })
	h := FunnelOnly(ok)
	for _, tt := range tests {
		if got := FunnelAllowed(tt.path); got != tt.want {
			t.Errorf("FunnelAllowed(%q) = %v, want %v", tt.path, got, tt.want)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", tt.path, nil))
		if reached := w.Body.String() == "reached"; reached != tt.want {
			t.Errorf("FunnelOnly %s: %d %q, reached=%v want %v", tt.path, w.Code, w.Body, reached, tt.want)
		}
		if !tt.want && w.Code != http.StatusNotFound {
			t.Errorf("FunnelOnly %s: status %d, want 404", tt.path, w.Code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/oauth/authorize?client_id=x", nil))
	if !strings.Contains(w.Body.String(), "device on your tailnet") {
		t.Errorf("/oauth/authorize over funnel: %q, want a sentence sending the owner to the tailnet", w.Body)
	}
}

func TestWhoisCacheExpires(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	c := whoisCache{now: func() time.Time { return now }}
	if _, ok := c.get("100.64.0.2"); ok {
		t.Fatal("empty cache answered")
	}
	c.put("100.64.0.2", Visitor{Login: "alice@example.com"})
	if v, ok := c.get("100.64.0.2"); !ok || v.Login != "alice@example.com" {
		t.Fatalf("get = %+v %v, want alice", v, ok)
	}
	now = now.Add(whoisTTL - time.Second)
	if _, ok := c.get("100.64.0.2"); !ok {
		t.Fatal("answer dropped before a minute")
	}
	now = now.Add(time.Second)
	if _, ok := c.get("100.64.0.2"); ok {
		t.Fatal("answer reused after a minute")
	}
	c.put("100.64.0.3", Visitor{Login: "bob@example.com"})
	c.clear()
	if _, ok := c.get("100.64.0.3"); ok {
		t.Fatal("answer kept after clear (logout)")
	}
}

func TestNewTailnetErrors(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	tests := []struct {
		name string
		cfg  TailnetConfig
		want string
	}{
		{"bad name", TailnetConfig{Name: "a b", Dir: "/x", Handler: h}, "not a DNS label"},
		{"no dir", TailnetConfig{Name: "box", Handler: h}, "no state directory"},
		{"no handler", TailnetConfig{Name: "box", Dir: "/x"}, "no handler"},
	}
	for _, tt := range tests {
		if _, err := NewTailnet(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewTailnet = %v, want %q", tt.name, err, tt.want)
		}
	}
	tn, err := NewTailnet(TailnetConfig{Name: "box", Dir: t.TempDir(), Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	if st := tn.Status(); st.State != TailnetStopped || tn.Issuer() != "" {
		t.Errorf("before Run: %+v issuer %q, want stopped and no issuer", st, tn.Issuer())
	}
	if err := tn.Logout(t.Context()); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Logout before Run = %v, want 'not running'", err)
	}
	if err := tn.Login(t.Context(), "hello"); err == nil || !strings.Contains(err.Error(), "tskey-") {
		t.Errorf("Login with a non-key = %v, want the tskey- hint", err)
	}
}
