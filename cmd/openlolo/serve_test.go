package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
	"github.com/openlolo/openlolo/waittest"
)

// served is a serve (or fleet serve) command running in-process.
type served struct {
	lines  []string
	stderr *lockedBuffer
	stop   func() int // cancels the context (like SIGTERM) and returns the exit status
	reqs   waittest.Requests
}

func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	return startMain(t, nil, 4, append([]string{"serve"}, args...)...)
}

// startMain runs openlolo with args and env in-process until it has
// printed n lines; the test's end stops it.
func startMain(t *testing.T, env []string, n int, args ...string) *served {
	t.Helper()
	pr, pw := io.Pipe()
	stderr := &lockedBuffer{}
	s := &served{stderr: stderr}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		code := Main(ctx, &Context{Stdin: strings.NewReader(""), Stdout: pw, Stderr: stderr, Args: args, Env: env, ConnState: s.reqs.ConnState})
		pw.Close()
		done <- code
	}()
	linec := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(pr)
		for len(lines) < n && sc.Scan() {
			lines = append(lines, sc.Text())
		}
		linec <- lines
		io.Copy(io.Discard, pr)
	}()
	select {
	case s.lines = <-linec:
	case code := <-done:
		cancel()
		t.Fatalf("%s exited %d before printing; stderr:\n%s", args[0], code, stderr)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("%s printed nothing in 30 s; stderr:\n%s", args[0], stderr)
	}
	if len(s.lines) < n {
		cancel()
		t.Fatalf("%s printed only %q; stderr:\n%s", args[0], s.lines, stderr)
	}
	code, stopped := 0, false
	s.stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			code = <-done
		}
		return code
	}
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *served) value(t *testing.T, i int, label string) string {
	t.Helper()
	v, ok := strings.CutPrefix(s.lines[i], label+":")
	if !ok {
		t.Fatalf("line %d is %q, want %q first; all lines: %q", i, s.lines[i], label, s.lines)
	}
	return strings.TrimSpace(v)
}

func healthz(base, pin string) (*http.Response, error) {
	cfg, err := boxtls.ClientConfig(pin)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 15 * time.Second}
	return c.Get(base + "healthz")
}

func TestServeCommand(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	s := startServe(t, "--state", state, "--lan", "127.0.0.1:0", "--phone", "sim", "--sim-size", "300x600", "--name", "openlolo-cafe")

	// The lines, in this order: URL, fingerprint, pin, setup code.
	lanURL := s.value(t, 0, "LAN URL")
	fp := s.value(t, 1, "Fingerprint")
	pin := s.value(t, 2, "SPKI pin")
	code := s.value(t, 3, "Setup code")
	u, err := url.Parse(lanURL)
	if err != nil || u.Scheme != "https" || u.Hostname() != "127.0.0.1" || u.Port() == "0" || u.Port() == "" {
		t.Fatalf("LAN URL %q is not https://127.0.0.1:<bound port>/", lanURL)
	}
	if _, err := boxtls.ParsePin(fp); err != nil || len(fp) != 64 {
		t.Errorf("fingerprint %q: %v", fp, err)
	}
	if !strings.HasPrefix(pin, "sha256//") {
		t.Errorf("SPKI pin %q does not start with sha256//", pin)
	}
	if len(code) != 8 {
		t.Errorf("setup code %q is not 8 characters", code)
	}
	local, err := boxtls.Read(state)
	if err != nil {
		t.Fatal(err)
	}
	if local.Fingerprint() != fp || local.SPKIPin() != pin {
		t.Errorf("printed %s / %s, the state dir holds %s / %s", fp, pin, local.Fingerprint(), local.SPKIPin())
	}

	for _, p := range []string{fp, pin} {
		resp, err := healthz(lanURL, p)
		if err != nil {
			t.Fatalf("GET /healthz pinned to %s: %v", p, err)
		}
		var h struct{ Status, Version string }
		json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if h.Status != "ok" || h.Version != version {
			t.Errorf("/healthz = %+v, want ok %s", h, version)
		}
	}
	other, _ := boxtls.Load(boxtls.Options{Dir: t.TempDir(), Name: "other"})
	_, err = healthz(lanURL, other.SPKIPin())
	var pe *boxtls.PinMismatchError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), other.SPKIPin()) {
		t.Errorf("GET with another pin = %v, want a pin mismatch naming %s and %s", err, fp, other.SPKIPin())
	}

	// SIGTERM-like shutdown with a request in flight: it finishes.
	conn, err := tls.Dial("tcp", u.Host, boxtlsConfig(t, fp))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: "+u.Host+"\r\nContent-Length: 4\r\n\r\nab")
	if !s.reqs.Read(10*time.Second, conn.LocalAddr()) {
		t.Fatal("serve did not read the request's headers in 10 s")
	}
	exit := make(chan int, 1)
	go func() { exit <- s.stop() }()
	select {
	case c := <-exit:
		t.Fatalf("serve exited %d with a request in flight", c)
	case <-time.After(300 * time.Millisecond):
	}
	io.WriteString(conn, "cd")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request lost at shutdown: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("in-flight request = %d, want 200", resp.StatusCode)
	}
	select {
	case c := <-exit:
		if c != 0 {
			t.Errorf("serve exit status %d after shutdown, want 0; stderr:\n%s", c, s.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit after the in-flight request finished")
	}
	for _, want := range []string{"box is up", "shutting down", "stopped"} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, s.stderr)
		}
	}

	// A restart keeps the certificate and the unclaimed setup code;
	// --rotate-cert changes the certificate.
	again := startServe(t, "--state", state, "--lan", "127.0.0.1:0", "--sim-size", "300x600", "--name", "openlolo-cafe")
	if again.value(t, 1, "Fingerprint") != fp || again.value(t, 3, "Setup code") != code {
		t.Errorf("restart printed %q, want fingerprint %s and setup code %s", again.lines, fp, code)
	}
	again.stop()
	rotated := startServe(t, "--state", state, "--lan", "127.0.0.1:0", "--sim-size", "300x600", "--name", "openlolo-cafe", "--rotate-cert")
	if rotated.value(t, 1, "Fingerprint") == fp {
		t.Errorf("--rotate-cert kept fingerprint %s", fp)
	}
}

func boxtlsConfig(t *testing.T, pin string) *tls.Config {
	t.Helper()
	cfg, err := boxtls.ClientConfig(pin)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestServeFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "--state DIR is required"},
		{[]string{"--state", dir, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--state", dir, "--phone", "carrier-pigeon"}, 2, `--phone "carrier-pigeon" is not a backend`},
		{[]string{"--state", dir, "--phone", "gadget", "--platform", "blackberry"}, 1, "blackberry"},
		{[]string{"--state", dir, "--sim-size", "big"}, 2, "WIDTHxHEIGHT"},
		{[]string{"--state", dir, "--sim-size", "0x100"}, 2, "WIDTHxHEIGHT"},
		{[]string{"--state", dir, "--sim-size", "10x10", "--lan", "127.0.0.1:0"}, 1, "out of range"},
		{[]string{"--state", dir, "--phone", "gadget", "--sim-size", "300x600"}, 2, "--sim-size applies to --phone sim only"},
		{[]string{"--state", dir, "--lan", "127.0.0.1:0", "--name", "Bad_Name"}, 1, "DNS label"},
		{[]string{"--state", dir, "--lan", "256.0.0.1:0"}, 1, "listen"},
		{[]string{"--state", dir, "--lan", "127.0.0.1:0", "--funnel"}, 2, "--funnel needs --tailnet"},
		{[]string{"--state", dir, "--sims", "0"}, 2, "--sims 0: give 1 to 32"},
		{[]string{"--state", dir, "--sims", "33"}, 2, "--sims 33: give 1 to 32"},
		{[]string{"--state", dir, "--phone", "gadget", "--sims", "2"}, 2, "with --phone sim"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, "", append([]string{"serve"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("serve %q = %d, stderr %q; want %d with %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

// On a machine without configfs the gadget backend says what is missing
// and what to use instead.
func TestServeGadgetWithoutConfigFS(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/sys/kernel/config/usb_gadget"); err == nil {
		t.Skip("this machine has configfs usb_gadget; the gadget backend is tested by make test-kernel")
	}
	code, _, stderr := run(t, "", "serve", "--state", t.TempDir(), "--phone", "gadget", "--lan", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "--phone gadget") || !strings.Contains(stderr, "--phone sim") {
		t.Errorf("serve --phone gadget = %d %q, want 1 with an error naming --phone sim", code, stderr)
	}
}
