package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCurlWalkthrough runs testdata/curl-device.sh (docs/wire.md's curl
// walkthrough, pinned with --pinnedpubkey) against the real server on a TLS
// listener. The owner's approval is a test-only endpoint here; against the
// real box the approve command drives the Access page.
func TestCurlWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("polls on the RFC 8628 5-second interval")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	h := newHarness(t, harnessOpt{realTime: true})
	mux := h.mux()
	mux.HandleFunc("POST /test/approve", func(w http.ResponseWriter, r *http.Request) {
		if err := h.srv.Approve(r.Context(), r.FormValue("r"), Life24h); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()
	spki := sha256.Sum256(ts.Certificate().RawSubjectPublicKeyInfo)
	pin := "sha256//" + base64.StdEncoding.EncodeToString(spki[:])

	approve := filepath.Join(t.TempDir(), "approve")
	err := os.WriteFile(approve, []byte("#!/bin/sh\nexec curl -sS -k --fail --pinnedpubkey \"$PIN\" -X POST \"$BOX/test/approve\" -d \"r=$1\"\n"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "testdata/curl-device.sh", ts.URL, pin, approve)
	cmd.Env = append(os.Environ(), "BOX="+ts.URL, "PIN="+pin, "MCP=0", "CALL_PATH=/whoami")
	out, err := cmd.CombinedOutput()
	t.Logf("curl-device.sh:\n%s", out)
	if err != nil {
		t.Fatalf("curl-device.sh: %v", err)
	}

	// A wrong pin stops it at once.
	bad := exec.Command("sh", "testdata/curl-device.sh", ts.URL, "sha256//"+base64.StdEncoding.EncodeToString(make([]byte, 32)), "manual")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Fatalf("curl-device.sh with a wrong pin succeeded:\n%s", out)
	}
}
