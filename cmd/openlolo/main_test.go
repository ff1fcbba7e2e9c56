package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for a command writing while a test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// run runs openlolo with args in-process and returns its exit status and
// output.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb lockedBuffer
	code = Main(context.Background(), &Context{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Args:   args,
		Env:    []string{"HOME=" + t.TempDir()},
	})
	return code, out.String(), errb.String()
}

func TestMainDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, 2, "", "usage: openlolo"},
		{[]string{"help"}, 0, "serve", ""},
		{[]string{"--help"}, 0, "fingerprint", ""},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"version"}, 0, "openlolo dev", ""},
		{[]string{"version", "--bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"serve", "-h"}, 0, "", "--state"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, "", tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("openlolo %q = %d, stdout %q, stderr %q; want %d, stdout with %q, stderr with %q",
				tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}

func TestContextGetenv(t *testing.T) {
	t.Parallel()
	c := &Context{Env: []string{"A=1", "B=x=y", "C="}}
	for k, want := range map[string]string{"A": "1", "B": "x=y", "C": "", "D": ""} {
		if got := c.Getenv(k); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", k, got, want)
		}
	}
}

func TestCommandTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range commands() {
		if c.name == "" || c.run == nil || c.summary == "" {
			t.Errorf("command %+v is incomplete", c.name)
		}
		if seen[c.name] {
			t.Errorf("command %q listed twice", c.name)
		}
		seen[c.name] = true
	}
}

func TestVersionCheckSQLite(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, "", "version", "--check-sqlite")
	if code != 0 || !strings.Contains(stdout, "sqlite ok") {
		t.Errorf("version --check-sqlite = %d %q %q, want 0 and sqlite ok", code, stdout, stderr)
	}
}
