package integration

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/oauth/oauthtest"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	boxtls "github.com/openlolo/openlolo/tls"
)

// The device flow with golang.org/x/oauth2 as the client against the real
// box, approved by the owner on the real Access page (session cookie, CSRF
// token, Origin), then refresh rotation and reuse detection.
func TestDeviceFlowApprovedOnAccessPage(t *testing.T) {
	tb := startBox(t, "", false)
	cfg, err := boxtls.ClientConfig(tb.Box.Cert().Fingerprint())
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	oauthtest.DeviceFlow(t, tb.URL, "/mcp", hc, func(ctx context.Context, handle, userCode string) error {
		tb.approve(t, userCode, ownertest.Life24h)
		return nil
	})
}

// docs/wire.md's curl walkthrough, pinned with --pinnedpubkey, against the
// real box: device authorization with client_name=curl, approval on the
// Access page, polling /token, openlolo_status over MCP without initialize,
// refresh rotation and reuse. The script's approve hook hands the code to
// this test through a FIFO and waits until the owner has approved.
func TestCurlWalkthroughOnBox(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	tb := startBox(t, "", false)
	dir := t.TempDir()
	req, ack := filepath.Join(dir, "req"), filepath.Join(dir, "ack")
	for _, p := range []string{req, ack} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(dir, "approve.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\necho \"$2\" > "+req+"\nread ok < "+ack+"\n[ \"$ok\" = ok ]\n"), 0o755)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "../appliance/oauth/testdata/curl-device.sh", tb.URL, tb.Box.Cert().SPKIPin(), hook)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(req) // blocks until the hook writes
	if err != nil {
		t.Fatal(err)
	}
	code, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	code = strings.TrimSpace(code)
	tb.approve(t, code, ownertest.Life30d)
	a, err := os.OpenFile(ack, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("ok\n")
	a.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("curl-device.sh: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ok: device flow, bearer, rotation and reuse detection all behave") {
		t.Fatalf("curl-device.sh did not report its checks as passed:\n%s", out.String())
	}
}
