package appliance_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
	boxtls "github.com/openlolo/openlolo/tls"
	"github.com/openlolo/openlolo/waittest"
)

func simPhone(t *testing.T) *sim.Phone {
	t.Helper()
	p, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// running is a box started by start.
type running struct {
	box   *appliance.Box
	lines []string // the start-up lines, in order
	stop  func() error
}

// start makes a box with cfg (filling StateDir, Phone and LANAddr when
// empty), runs it, and waits for its start-up lines.
func start(t *testing.T, cfg appliance.Config) *running {
	t.Helper()
	if cfg.StateDir == "" {
		cfg.StateDir = filepath.Join(t.TempDir(), "state")
	}
	if cfg.Phone == nil {
		cfg.Phone = simPhone(t)
	}
	if cfg.LANAddr == "" {
		cfg.LANAddr = "127.0.0.1:0"
	}
	if cfg.Name == "" {
		cfg.Name = "openlolo-test"
	}
	pr, pw := io.Pipe()
	cfg.Out = pw
	ctx, cancel := context.WithCancel(context.Background())
	b, err := appliance.New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("New: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		err := b.Run(ctx)
		pw.Close()
		done <- err
	}()
	linec := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if len(lines) == 4 {
				break
			}
		}
		linec <- lines
		io.Copy(io.Discard, pr)
	}()
	var lines []string
	select {
	case lines = <-linec:
	case err := <-done:
		cancel()
		t.Fatalf("Run ended before printing: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("no start-up lines after 30 s")
	}
	stopped := false
	var runErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			runErr = <-done
		}
		return runErr
	}
	t.Cleanup(func() { stop() })
	return &running{box: b, lines: lines, stop: stop}
}

// field returns the value of the start-up line with the given label.
func (r *running) field(t *testing.T, label string) string {
	t.Helper()
	for _, l := range r.lines {
		if v, ok := strings.CutPrefix(l, label+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %q line in %q", label, r.lines)
	return ""
}

func pinnedClient(t *testing.T, pin string) *http.Client {
	t.Helper()
	cfg, err := boxtls.ClientConfig(pin)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{
		Transport:     &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true},
		Timeout:       15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func TestBoxHealthzWithPin(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{Version: "1.2.3-test"})
	labels := []string{"LAN URL", "Fingerprint", "SPKI pin", "Setup code"}
	for i, l := range labels {
		if !strings.HasPrefix(r.lines[i], l+":") {
			t.Errorf("line %d = %q, want it to start with %q", i, r.lines[i], l)
		}
	}
	url := r.field(t, "LAN URL")
	if want := "https://" + r.box.Addr().String() + "/"; url != want {
		t.Errorf("LAN URL = %q, want %q", url, want)
	}
	if got, want := r.field(t, "Fingerprint"), r.box.Cert().Fingerprint(); got != want {
		t.Errorf("printed fingerprint %s, certificate has %s", got, want)
	}
	if code := r.field(t, "Setup code"); len(code) < 8 {
		t.Errorf("setup code %q is too short", code)
	}

	for _, pin := range []string{r.field(t, "Fingerprint"), r.field(t, "SPKI pin"), r.box.Cert().FingerprintColon()} {
		resp, err := pinnedClient(t, pin).Get(url + "healthz")
		if err != nil {
			t.Fatalf("GET /healthz pinned to %s: %v", pin, err)
		}
		var got struct{ Status, Version string }
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || got.Status != "ok" || got.Version != "1.2.3-test" {
			t.Errorf("GET /healthz = %d %+v (%v), want 200 ok 1.2.3-test", resp.StatusCode, got, err)
		}
		for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "Content-Type": "application/json"} {
			if resp.Header.Get(h) != want {
				t.Errorf("%s = %q, want %q", h, resp.Header.Get(h), want)
			}
		}
	}

	// Another box's pin fails the handshake, naming both fingerprints.
	other, err := boxtls.Load(boxtls.Options{Dir: t.TempDir(), Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pinnedClient(t, other.Fingerprint()).Get(url + "healthz")
	var pe *boxtls.PinMismatchError
	if !errors.As(err, &pe) {
		t.Fatalf("GET with a wrong pin = %v, want a *PinMismatchError", err)
	}
	for _, fp := range []string{other.Fingerprint(), r.box.Cert().Fingerprint()} {
		if !strings.Contains(err.Error(), fp) {
			t.Errorf("error %q does not name %s", err, fp)
		}
	}

	if err := r.stop(); err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", r.box.Addr().String(), time.Second); err == nil {
		t.Errorf("LAN port still open after Run returned")
	}
}

func TestBoxRestartKeepsCertificateAndRotates(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	first := start(t, appliance.Config{StateDir: dir})
	fp := first.field(t, "Fingerprint")
	code := first.field(t, "Setup code")
	first.stop()

	again := start(t, appliance.Config{StateDir: dir})
	if got := again.field(t, "Fingerprint"); got != fp {
		t.Errorf("restart changed the fingerprint: %s, then %s", fp, got)
	}
	if got := again.field(t, "Setup code"); got != code {
		t.Errorf("restart changed the unclaimed setup code: %s, then %s", code, got)
	}
	again.stop()

	rotated := start(t, appliance.Config{StateDir: dir, RotateCert: true})
	if got := rotated.field(t, "Fingerprint"); got == fp {
		t.Errorf("RotateCert kept fingerprint %s", fp)
	}
	resp, err := pinnedClient(t, rotated.field(t, "SPKI pin")).Get(rotated.field(t, "LAN URL") + "healthz")
	if err != nil {
		t.Fatalf("GET /healthz after rotation: %v", err)
	}
	resp.Body.Close()
	if _, err := pinnedClient(t, fp).Get(rotated.field(t, "LAN URL") + "healthz"); err == nil {
		t.Errorf("the old pin still works after rotation")
	}

	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %o, want 700", st.Mode().Perm())
	}
}

func TestBoxShutdownFinishesInFlightRequest(t *testing.T) {
	t.Parallel()
	var reqs waittest.Requests
	r := start(t, appliance.Config{ConnState: reqs.ConnState})
	cfg, _ := boxtls.ClientConfig(r.box.Cert().Fingerprint())
	conn, err := tls.Dial("tcp", r.box.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A request whose body arrives slowly, like a large upload: the
	// server has read its headers and runs it, so shutdown must wait until
	// the body is in and the answer is out.
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nab"); err != nil {
		t.Fatal(err)
	}
	// Shut down once the server has read the headers (before, Run returns
	// at once, as for a connection that had sent nothing).
	if !reqs.Read(10*time.Second, conn.LocalAddr()) {
		t.Fatal("the box did not read the request's headers in 10 s")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Run returned (%v) while a request was in flight", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := io.WriteString(conn, "cde"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("in-flight request = %d %s, want 200 ok", resp.StatusCode, body)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("Run did not return after the in-flight request finished")
	}
	// The store is closed: the database can be opened again at once.
	s, err := store.Open(context.Background(), r.box.StateDir())
	if err != nil {
		t.Fatalf("reopen store after shutdown: %v", err)
	}
	s.Close()
}

func TestBoxShutdownTimeoutCutsSlowRequests(t *testing.T) {
	t.Parallel()
	var reqs waittest.Requests
	r := start(t, appliance.Config{ShutdownTimeout: 200 * time.Millisecond, ConnState: reqs.ConnState})
	cfg, _ := boxtls.ClientConfig(r.box.Cert().Fingerprint())
	conn, err := tls.Dial("tcp", r.box.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nab")
	if !reqs.Read(10*time.Second, conn.LocalAddr()) {
		t.Fatal("the box did not read the request's headers in 10 s")
	}
	done := make(chan error, 1)
	go func() { done <- r.stop() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Run waited past its shutdown timeout for a request that never completes")
	}
}

func TestBoxHostCheck(t *testing.T) {
	t.Parallel()
	// Bound to every interface, the box answers only to its names and IPs.
	r := start(t, appliance.Config{LANAddr: "0.0.0.0:0", Name: "openlolo-ab12"})
	_, port, _ := net.SplitHostPort(r.box.Addr().String())
	if want := "https://openlolo-ab12.local:" + port + "/"; r.field(t, "LAN URL") != want {
		t.Errorf("LAN URL = %q, want %q", r.field(t, "LAN URL"), want)
	}
	client := pinnedClient(t, r.box.Cert().Fingerprint())
	tests := []struct {
		host string
		code int
	}{
		{"openlolo-ab12.local", 200},
		{"openlolo-ab12.local:" + port, 200},
		{"127.0.0.1:" + port, 200},
		{"localhost:" + port, 200},
		{"rebind.attacker.example", 421},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", "https://127.0.0.1:"+port+"/healthz", nil)
		req.Host = tt.host
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("Host %s: %v", tt.host, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("Host %s: %d %s, want %d", tt.host, resp.StatusCode, body, tt.code)
		}
		if tt.code == 421 && !strings.Contains(string(body), "DNS rebinding") {
			t.Errorf("Host %s: refusal %q does not say why", tt.host, body)
		}
	}
}

func TestBoxRedirectEntry(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{HTTPAddr: "127.0.0.1:0"})
	_, port, _ := net.SplitHostPort(r.box.Addr().String())
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct{ path, location string }{
		{"/", "https://127.0.0.1:" + port + "/"},
		{"/status", "https://127.0.0.1:" + port + "/"},
		{"/access?r=Hx9", "https://127.0.0.1:" + port + "/access?r=Hx9"},
	}
	for _, tt := range tests {
		resp, err := client.Get("http://" + r.box.HTTPAddr().String() + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != tt.location {
			t.Errorf("GET http %s = %d %q, want 302 %q", tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.location)
		}
	}
	if r.box.HTTPAddr() == nil {
		t.Fatal("HTTPAddr = nil with Config.HTTPAddr set")
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	phone := simPhone(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	tests := []struct {
		name string
		cfg  appliance.Config
		want string
	}{
		{"no state dir", appliance.Config{Phone: phone, LANAddr: "127.0.0.1:0"}, "--state"},
		{"no phone", appliance.Config{StateDir: t.TempDir(), LANAddr: "127.0.0.1:0"}, "phone"},
		{"bad name", appliance.Config{StateDir: t.TempDir(), Phone: phone, Name: "Not A Label", LANAddr: "127.0.0.1:0"}, "DNS label"},
		{"state is a file", appliance.Config{StateDir: file, Phone: phone, LANAddr: "127.0.0.1:0"}, "state directory"},
		{"port taken", appliance.Config{StateDir: t.TempDir(), Phone: phone, Name: "box", LANAddr: taken.Addr().String()}, taken.Addr().String()},
		{"http port taken", appliance.Config{StateDir: t.TempDir(), Phone: phone, Name: "box", LANAddr: "127.0.0.1:0", HTTPAddr: taken.Addr().String()}, taken.Addr().String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := appliance.New(context.Background(), tt.cfg)
			if err == nil {
				b.Close()
				t.Fatalf("New succeeded, want an error mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	// A failed New releases what it took: the store can be opened again
	// and the LAN port is free.
	dir := t.TempDir()
	_, err = appliance.New(context.Background(), appliance.Config{StateDir: dir, Phone: phone, Name: "box", LANAddr: "127.0.0.1:0", HTTPAddr: taken.Addr().String()})
	if err == nil {
		t.Fatal("New with a taken HTTP port succeeded")
	}
	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("store after failed New: %v", err)
	}
	s.Close()
}

func TestBoxCorruptStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := []byte("this is not a database, and it must stay as it is")
	os.WriteFile(filepath.Join(dir, store.FileName), garbage, 0o600)
	_, err := appliance.New(context.Background(), appliance.Config{StateDir: dir, Phone: simPhone(t), Name: "box", LANAddr: "127.0.0.1:0"})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("New on a garbage database = %v, want store.ErrCorrupt", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, store.FileName)); string(b) != string(garbage) {
		t.Errorf("the garbage database was modified")
	}
}

func TestBoxInfo(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{Version: "v9"})
	info := r.box.Info()
	c := r.box.Cert()
	want := fmt.Sprint("openlolo-test v9 ", c.Fingerprint(), " ", c.FingerprintColon(), " ", c.SPKIPin(), " sim")
	got := fmt.Sprint(info.Name, " ", info.Version, " ", info.Fingerprint, " ", info.FingerprintColon, " ", info.SPKIPin, " ", info.Backend)
	if got != want {
		t.Errorf("Info = %q, want %q", got, want)
	}
}

func TestBoxServicesMounted(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{HTTPAddr: "127.0.0.1:0"})
	base := r.field(t, "LAN URL")
	client := pinnedClient(t, r.box.Cert().Fingerprint())

	resp, err := client.Get(base + ".well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Issuer string `json:"issuer"`
	}
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if want := strings.TrimSuffix(base, "/"); resp.StatusCode != 200 || meta.Issuer != want {
		t.Errorf("metadata = %d issuer %q, want 200 %q", resp.StatusCode, meta.Issuer, want)
	}

	// A device request's link points at the plain-HTTP entry, which
	// redirects it to the same path on HTTPS.
	resp, err = client.PostForm(base+"oauth/device_authorization", map[string][]string{
		"client_name": {"box test"}, "scope": {"phone:read"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var dev struct {
		VerificationURI string `json:"verification_uri"`
	}
	json.NewDecoder(resp.Body).Decode(&dev)
	resp.Body.Close()
	_, httpPort, _ := net.SplitHostPort(r.box.HTTPAddr().String())
	if resp.StatusCode != 200 || !strings.HasPrefix(dev.VerificationURI, "http://127.0.0.1:"+httpPort+"/access?r=") {
		t.Fatalf("device authorization = %d %q, want a link on the HTTP entry %s", resp.StatusCode, dev.VerificationURI, httpPort)
	}
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = plain.Get(dev.VerificationURI)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := base + strings.TrimPrefix(dev.VerificationURI, "http://127.0.0.1:"+httpPort+"/"); resp.Header.Get("Location") != want {
		t.Errorf("the link redirects to %q, want %q", resp.Header.Get("Location"), want)
	}

	// The box page answers (an unclaimed box offers the claim).
	resp, err = client.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(strings.ToLower(string(body)), "claim") {
		t.Errorf("GET / = %d, want the claim page; body starts %.200q", resp.StatusCode, body)
	}
}

func TestBoxMCPNeedsBearer(t *testing.T) {
	t.Parallel()
	r := start(t, appliance.Config{})
	base := r.field(t, "LAN URL")
	client := pinnedClient(t, r.box.Cert().Fingerprint())
	req, _ := http.NewRequest("POST", base+"mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `resource_metadata="` + strings.TrimSuffix(base, "/") + `/.well-known/oauth-protected-resource"`
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), want) {
		t.Errorf("POST /mcp without a token = %d %q, want 401 with %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
}
