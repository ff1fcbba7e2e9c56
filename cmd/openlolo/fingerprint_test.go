package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	boxtls "github.com/openlolo/openlolo/tls"
)

func TestFingerprintCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, err := boxtls.Load(boxtls.Options{Dir: dir, Name: "openlolo-beef"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = cert.ServerConfig()
	srv.StartTLS()
	defer srv.Close()

	for _, args := range [][]string{
		{"--state", dir},
		{srv.URL},
		{strings.TrimPrefix(srv.URL, "https://")},
	} {
		code, stdout, stderr := run(t, "", append([]string{"fingerprint"}, args...)...)
		if code != 0 {
			t.Fatalf("fingerprint %q = %d, %s", args, code, stderr)
		}
		for _, want := range []string{
			"Fingerprint:  " + cert.Fingerprint(),
			"Colon form:   " + cert.FingerprintColon(),
			"SPKI pin:     " + cert.SPKIPin(),
			"openlolo-beef.local",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("fingerprint %q printed %q, want a line %q", args, stdout, want)
			}
		}
	}

	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "either --state DIR or one address"},
		{[]string{"--state", dir, srv.URL}, 2, "not both"},
		{[]string{"--state", t.TempDir()}, 1, "start the box once"},
		{[]string{"http://example.com"}, 2, "not an address"},
		{[]string{"https://127.0.0.1:1"}, 1, "fetch certificate"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, "", append([]string{"fingerprint"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("fingerprint %q = %d %q, want %d with %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func TestHostPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://openlolo-ab12.local":       "openlolo-ab12.local:443",
		"https://192.168.1.20:8443/":        "192.168.1.20:8443",
		"openlolo-ab12.local:8443":          "openlolo-ab12.local:8443",
		"https://[::1]:8443/mcp":            "[::1]:8443",
		"https://openlolo-ab12.local/x?y=z": "openlolo-ab12.local:443",
	} {
		got, err := hostPort(in)
		if err != nil || got != want {
			t.Errorf("hostPort(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"http://box", "ftp://box", "https://", "https://%zz"} {
		if got, err := hostPort(in); err == nil {
			t.Errorf("hostPort(%q) = %q, want an error", in, got)
		}
	}
}
