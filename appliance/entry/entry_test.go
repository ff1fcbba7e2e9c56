package entry_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/entry"
	boxtls "github.com/openlolo/openlolo/tls"
	"github.com/openlolo/openlolo/waittest"
)

func TestHostsAllowed(t *testing.T) {
	t.Parallel()
	h := entry.Hosts{Names: []string{"openlolo-abcd.local", "openlolo-abcd", "localhost"}}
	tests := []struct {
		host string
		want bool
	}{
		{"openlolo-abcd.local", true},
		{"openlolo-abcd.local:8443", true},
		{"OpenLolo-ABCD.Local.", true},
		{"openlolo-abcd", true},
		{"localhost:443", true},
		{"192.168.1.20", true},
		{"192.168.1.20:8443", true},
		{"[::1]:8443", true},
		{"[fe80::1]", true},
		{"evil.example", false},
		{"evil.example:443", false},
		{"openlolo-abcd.local.evil.example", false},
		{"abcd.local", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := h.Allowed(tt.host); got != tt.want {
			t.Errorf("Allowed(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if !(entry.Hosts{Any: true}).Allowed("evil.example") {
		t.Errorf("Hosts{Any: true} refused a name")
	}
	if (entry.Hosts{}).Allowed("openlolo-abcd.local") {
		t.Errorf("zero Hosts allowed a name")
	}
}

func TestHostCheckAndHeaders(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := entry.SecurityHeaders(entry.HostCheck(entry.Hosts{Names: []string{"box.local"}}, ok))
	tests := []struct {
		host string
		code int
		body string
	}{
		{"box.local", 200, "ok"},
		{"10.0.0.5:443", 200, "ok"},
		{"attacker.example", 421, "DNS rebinding"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.code || !strings.Contains(w.Body.String(), tt.body) {
			t.Errorf("Host %q: %d %q, want %d containing %q", tt.host, w.Code, w.Body, tt.code, tt.body)
		}
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("Host %q: X-Content-Type-Options = %q", tt.host, got)
		}
		if got := w.Header().Get("Referrer-Policy"); got != "same-origin" {
			t.Errorf("Host %q: Referrer-Policy = %q", tt.host, got)
		}
	}
	// A refusal names the right name to use.
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = "evil.example"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), "box.local") {
		t.Errorf("refusal %q does not say to use box.local", w.Body)
	}
}

func TestRedirect(t *testing.T) {
	t.Parallel()
	hosts := entry.Hosts{Names: []string{"box.local"}}
	tests := []struct {
		port, host, target string
		code               int
		location           string
	}{
		{"443", "box.local", "/", 302, "https://box.local/"},
		{"443", "box.local:80", "/status?x=1", 302, "https://box.local/"},
		{"8443", "box.local:8080", "/anything", 302, "https://box.local:8443/"},
		{"443", "box.local", "/access?r=h4ndle", 302, "https://box.local/access?r=h4ndle"},
		{"8443", "127.0.0.1:8080", "/access?r=abc%2Fdef", 302, "https://127.0.0.1:8443/access?r=abc%2Fdef"},
		{"443", "[::1]:80", "/access", 302, "https://[::1]/access"},
		{"8443", "[::1]:80", "/", 302, "https://[::1]:8443/"},
		{"443", "evil.example", "/access?r=x", 421, ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.target, nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		entry.Redirect(hosts, tt.port).ServeHTTP(w, r)
		if w.Code != tt.code || w.Header().Get("Location") != tt.location {
			t.Errorf("GET http://%s%s (https port %s) = %d Location %q, want %d %q",
				tt.host, tt.target, tt.port, w.Code, w.Header().Get("Location"), tt.code, tt.location)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = ""
	w := httptest.NewRecorder()
	entry.Redirect(entry.Hosts{Any: true}, "443").ServeHTTP(w, r)
	if w.Code != http.StatusBadRequest {
		t.Errorf("no Host: %d, want 400", w.Code)
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:8443": true, "[::1]:0": true, "localhost:1": true,
		":443": false, "0.0.0.0:443": false, "192.168.1.2:443": false, "nonsense": false,
	} {
		if got := entry.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestServerHTTPSAndShutdown(t *testing.T) {
	t.Parallel()
	cert, err := boxtls.Load(boxtls.Options{Dir: t.TempDir(), Name: "box", IPs: []net.IP{}})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	srv, err := entry.Listen(entry.Config{
		Addr: "127.0.0.1:0",
		TLS:  cert.ServerConfig(),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				close(started)
				<-release
			}
			io.WriteString(w, "done")
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	cfg, _ := boxtls.ClientConfig(cert.SPKIPin())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	url := "https://" + srv.Addr().String()
	slow := make(chan string, 1)
	go func() {
		resp, err := client.Get(url + "/slow")
		if err != nil {
			slow <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		slow <- string(b)
	}()
	<-started
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- srv.Shutdown(ctx)
	}()
	// New connections are refused once shutdown began.
	if !waittest.Until(5*time.Second, 10*time.Millisecond, func() bool {
		c, err := tls.Dial("tcp", srv.Addr().String(), cfg)
		if err != nil {
			return true
		}
		c.Close()
		return false
	}) {
		t.Fatalf("still accepting connections during shutdown")
	}
	close(release)
	if got := <-slow; got != "done" {
		t.Errorf("in-flight request during shutdown: %s, want done", got)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v after Shutdown, want nil", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestListenErrors(t *testing.T) {
	t.Parallel()
	if _, err := entry.Listen(entry.Config{Addr: "127.0.0.1:0"}); err == nil {
		t.Errorf("Listen without a handler succeeded")
	}
	s, err := entry.Listen(entry.Config{Addr: "127.0.0.1:0", Handler: http.NotFoundHandler()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := entry.Listen(entry.Config{Addr: s.Addr().String(), Handler: http.NotFoundHandler()}); err == nil || !strings.Contains(err.Error(), s.Addr().String()) {
		t.Errorf("Listen on a taken port = %v, want an error naming it", err)
	}
	// Close before Serve releases the port; Serve then returns at once.
	s2, _ := entry.Listen(entry.Config{Addr: "127.0.0.1:0", Handler: http.NotFoundHandler()})
	s2.Close()
	if err := s2.Serve(); err != nil {
		t.Errorf("Serve after Close = %v, want nil", err)
	}
}
