package tls_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

func load(t *testing.T, dir string, rotate bool) *boxtls.Cert {
	t.Helper()
	c, err := boxtls.Load(boxtls.Options{Dir: dir, Name: "openlolo-abcd", IPs: []net.IP{net.ParseIP("192.0.2.7")}, Rotate: rotate})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestLoadCreatesReusesRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := load(t, dir, false)
	if !first.Created {
		t.Errorf("first Load: Created = false, want true")
	}
	st, err := os.Stat(filepath.Join(dir, boxtls.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("key mode = %o, want 600", got)
	}
	again := load(t, dir, false)
	if again.Created {
		t.Errorf("second Load: Created = true, want false")
	}
	if again.Fingerprint() != first.Fingerprint() {
		t.Errorf("fingerprint changed on reload: %s, then %s", first.Fingerprint(), again.Fingerprint())
	}
	rotated := load(t, dir, true)
	if rotated.Fingerprint() == first.Fingerprint() || rotated.SPKIPin() == first.SPKIPin() {
		t.Errorf("rotate kept fingerprint %s / pin %s", first.Fingerprint(), first.SPKIPin())
	}
	if after := load(t, dir, false); after.Fingerprint() != rotated.Fingerprint() {
		t.Errorf("after rotation Load = %s, want the rotated %s", after.Fingerprint(), rotated.Fingerprint())
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("state dir holds %v, want only the key and the certificate", names)
	}
}

func TestCertificateContents(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	leaf := c.Leaf
	wantNames := []string{"openlolo-abcd.local", "openlolo-abcd", "localhost"}
	if strings.Join(leaf.DNSNames, ",") != strings.Join(wantNames, ",") {
		t.Errorf("DNSNames = %v, want %v", leaf.DNSNames, wantNames)
	}
	for _, ip := range []string{"127.0.0.1", "::1", "192.0.2.7"} {
		found := false
		for _, got := range leaf.IPAddresses {
			found = found || got.Equal(net.ParseIP(ip))
		}
		if !found {
			t.Errorf("IPAddresses %v lack %s", leaf.IPAddresses, ip)
		}
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d < boxtls.Validity {
		t.Errorf("validity %v, want at least %v", d, boxtls.Validity)
	}
	if leaf.SerialNumber.Sign() <= 0 || leaf.SerialNumber.BitLen() < 64 {
		t.Errorf("serial %v is not a large random number", leaf.SerialNumber)
	}
	if leaf.PublicKeyAlgorithm.String() != "ECDSA" {
		t.Errorf("key algorithm %v, want ECDSA", leaf.PublicKeyAlgorithm)
	}
	other := load(t, t.TempDir(), false)
	if other.Leaf.SerialNumber.Cmp(leaf.SerialNumber) == 0 {
		t.Errorf("two certificates share serial %v", leaf.SerialNumber)
	}
}

func TestLoadRefusesBrokenPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		breakIt func(t *testing.T, dir string)
		want    string
	}{
		{"cert missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, boxtls.CertFile))
		}, "only one of"},
		{"key missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, boxtls.KeyFile))
		}, "only one of"},
		{"garbage cert", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, boxtls.CertFile), []byte("not a pem"), 0o644)
		}, "--rotate-cert"},
		{"key of another pair", func(t *testing.T, dir string) {
			other := t.TempDir()
			load(t, other, false)
			b, _ := os.ReadFile(filepath.Join(other, boxtls.KeyFile))
			os.WriteFile(filepath.Join(dir, boxtls.KeyFile), b, 0o600)
		}, "--rotate-cert"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			load(t, dir, false)
			tt.breakIt(t, dir)
			before := snapshot(t, dir)
			_, err := boxtls.Load(boxtls.Options{Dir: dir, Name: "openlolo-abcd"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error mentioning %q", err, tt.want)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("Load changed the state dir of a broken pair")
			}
			// Rotation is the way out.
			if _, err := boxtls.Load(boxtls.Options{Dir: dir, Name: "openlolo-abcd", Rotate: true}); err != nil {
				t.Errorf("Load with Rotate = %v", err)
			}
		})
	}
	if _, err := boxtls.Load(boxtls.Options{Dir: t.TempDir()}); err == nil {
		t.Errorf("Load without a name succeeded")
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		sb.WriteString(e.Name() + "\x00" + string(b) + "\x00")
	}
	return sb.String()
}

func TestParsePin(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	good := []string{
		c.Fingerprint(),
		strings.ToUpper(c.Fingerprint()),
		c.FingerprintColon(),
		strings.ToLower(c.FingerprintColon()),
		"  " + c.SPKIPin() + "\n",
	}
	for _, s := range good {
		p, err := boxtls.ParsePin(s)
		if err != nil {
			t.Errorf("ParsePin(%q) = %v", s, err)
			continue
		}
		if !p.Matches(c.Leaf) {
			t.Errorf("ParsePin(%q) does not match its own certificate", s)
		}
	}
	other := load(t, t.TempDir(), false)
	for _, s := range []string{other.Fingerprint(), other.SPKIPin(), other.FingerprintColon()} {
		p, _ := boxtls.ParsePin(s)
		if p.Matches(c.Leaf) {
			t.Errorf("pin %q of another certificate matches", s)
		}
	}
	bad := []string{
		"",
		"abc",
		c.Fingerprint()[:62],
		c.Fingerprint() + "00",
		strings.Replace(c.Fingerprint(), c.Fingerprint()[:1], "g", 1),
		c.FingerprintColon()[3:],
		strings.Replace(c.FingerprintColon(), ":", "", 3),
		"sha256//",
		"sha256//not*base64",
		"sha256//AAAA",
		"sha1//" + c.SPKIPin()[8:],
	}
	for _, s := range bad {
		if p, err := boxtls.ParsePin(s); err == nil {
			t.Errorf("ParsePin(%q) = %v, want an error", s, p)
		}
	}
	var zero boxtls.Pin
	if zero.Matches(c.Leaf) {
		t.Errorf("the zero Pin matches a certificate")
	}
}

func TestFingerprintFormats(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	hex, colon := c.Fingerprint(), c.FingerprintColon()
	if len(hex) != 64 || strings.ToLower(hex) != hex {
		t.Errorf("Fingerprint = %q, want 64 lower-case hex digits", hex)
	}
	if strings.ReplaceAll(strings.ToLower(colon), ":", "") != hex || len(colon) != 95 {
		t.Errorf("FingerprintColon = %q, not the colon form of %q", colon, hex)
	}
	if !strings.HasPrefix(c.SPKIPin(), "sha256//") || len(c.SPKIPin()) != 8+44 {
		t.Errorf("SPKIPin = %q, want sha256// and 44 base64 characters", c.SPKIPin())
	}
}

// serve starts an HTTPS server presenting c.
func serve(t *testing.T, c *boxtls.Cert) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	srv.TLS = c.ServerConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestClientConfig(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	other := load(t, t.TempDir(), false)
	srv := serve(t, c)
	tests := []struct {
		name    string
		pin     string
		wantErr bool
	}{
		{"leaf hex", c.Fingerprint(), false},
		{"leaf colon", c.FingerprintColon(), false},
		{"spki", c.SPKIPin(), false},
		{"other leaf", other.Fingerprint(), true},
		{"other spki", other.SPKIPin(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := boxtls.ClientConfig(tt.pin)
			if err != nil {
				t.Fatal(err)
			}
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
			// The server's name is 127.0.0.1, which the certificate does
			// name; use "localhost:port" and a foreign name too: the pin
			// alone decides.
			resp, err := client.Get(srv.URL + "/")
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("GET with pin %s: %v", tt.pin, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "hello" {
					t.Errorf("body = %q", b)
				}
				return
			}
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET with a wrong pin succeeded")
			}
			var pe *boxtls.PinMismatchError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *PinMismatchError", err)
			}
			if pe.Got != c.Fingerprint() || pe.GotSPKI != c.SPKIPin() {
				t.Errorf("Got = %s / %s, want the server's %s / %s", pe.Got, pe.GotSPKI, c.Fingerprint(), c.SPKIPin())
			}
			for _, s := range []string{tt.pin, c.Fingerprint()} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %s", err, s)
				}
			}
		})
	}
	if _, err := boxtls.ClientConfig("nonsense"); err == nil {
		t.Errorf("ClientConfig(nonsense) succeeded")
	}
}

func TestPinIgnoresHostname(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	srv := serve(t, c)
	cfg, _ := boxtls.ClientConfig(c.Fingerprint())
	cfg.ServerName = "not-in-the-certificate.example"
	conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), cfg)
	if err != nil {
		t.Fatalf("dial with a foreign server name: %v", err)
	}
	conn.Close()
}

func TestFetchCertificate(t *testing.T) {
	t.Parallel()
	c := load(t, t.TempDir(), false)
	srv := serve(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leaf, err := boxtls.FetchCertificate(ctx, srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if got := boxtls.FingerprintHex(leaf); got != c.Fingerprint() {
		t.Errorf("fetched fingerprint %s, want %s", got, c.Fingerprint())
	}
	if _, err := boxtls.FetchCertificate(ctx, "no-port"); err == nil {
		t.Errorf("FetchCertificate without a port succeeded")
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if _, err := boxtls.FetchCertificate(ctx, addr); err == nil {
		t.Errorf("FetchCertificate from a closed port succeeded")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, content := range []string{"one", "two, longer"} {
		if err := boxtls.WriteFileAtomic(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if string(b) != content {
			t.Errorf("file = %q, want %q", b, content)
		}
	}
	if err := boxtls.WriteFileAtomic(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Errorf("write into a missing directory succeeded")
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := boxtls.Read(dir); err == nil || !strings.Contains(err.Error(), "openlolo serve") {
		t.Errorf("Read of an empty dir = %v, want an error saying to start the box", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Read created files in the state dir")
	}
	c := load(t, dir, false)
	got, err := boxtls.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Fingerprint() != c.Fingerprint() || got.Created {
		t.Errorf("Read = %s (created %v), want %s", got.Fingerprint(), got.Created, c.Fingerprint())
	}
	os.Remove(filepath.Join(dir, boxtls.KeyFile))
	if _, err := boxtls.Read(dir); err == nil {
		t.Errorf("Read without the key succeeded")
	}
}
