package integration

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/startup"
	boxtls "github.com/openlolo/openlolo/tls"
)

// servedBox is `openlolo serve`, run as a person
// runs it (the built binary, its start-up lines), claimed by an owner.
type servedBox struct {
	URL         string // https://127.0.0.1:PORT, no trailing slash
	Fingerprint string // as serve printed it
	SPKIPin     string
	PEM         string       // the box's certificate, downloaded from the Connect page's link
	Pinned      *http.Client // trusts the box by its fingerprint (Go: the pinned config)
	Owner       *http.Client // the owner's browser: pinned, with a cookie jar, logged in
}

// startServeArgs starts the binary on a fresh state folder with the
// phone flags given and reads its start-up lines; the box is left
// unclaimed, and its setup code returned (the browser tests claim it on
// the page). Owner has no session yet.
func startServeArgs(t *testing.T, phoneArgs ...string) (*servedBox, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, openloloBin(t), append([]string{"serve", "--state", filepath.Join(dir, "state"),
		"--lan", "127.0.0.1:0"}, phoneArgs...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("openlolo serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("openlolo serve log (tail):\n%s", tail(string(b), 4000))
		}
	})
	lines, err := startup.Read(stdout)
	go io.Copy(io.Discard, stdout)
	if err != nil || lines.SetupCode == "" {
		t.Fatalf("openlolo serve printed no LAN URL, fingerprint and setup code: %+v, %v", lines, err)
	}
	b := &servedBox{URL: strings.TrimSuffix(lines.URL, "/"), Fingerprint: lines.Fingerprint, SPKIPin: lines.SPKIPin}
	cfg, err := boxtls.ClientConfig(b.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	b.Pinned = &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
	jar, _ := cookiejar.New(nil)
	b.Owner = &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg.Clone()}, Timeout: 30 * time.Second}
	return b, lines.SetupCode
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
