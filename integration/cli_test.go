package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/hid"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// openloloBin is the openlolo binary as a person runs it: $OPENLOLO_BIN if
// set, else built once from ./cmd/openlolo for this test run.
func openloloBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("OPENLOLO_BIN"); p != "" {
			binPath, buildErr = filepath.Abs(p)
			return
		}
		dir, err := os.MkdirTemp("", "openlolo-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "openlolo")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/openlolo/openlolo/cmd/openlolo").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// cli runs the openlolo binary with the token store at store and returns
// stdout, stderr and the exit status.
func cli(t *testing.T, store string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, openloloBin(t), args...)
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run openlolo %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

var codeRE = regexp.MustCompile(`Code ([B-Z]{4}-[B-Z]{4})\.`)

// cliPair runs `openlolo pair URL --name NAME`, answers the certificate
// question with "y", and approves on the Access page when the code shows.
func cliPair(t *testing.T, tb *testBox, store, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"pair", tb.URL}
	if name != defaultClientName() {
		args = append(args, "--name", name)
	}
	cmd := exec.CommandContext(ctx, openloloBin(t), args...)
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	cmd.Stdin = strings.NewReader("y\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	sc.Split(scanPrompt)
	approved := false
	for sc.Scan() {
		line := sc.Text()
		seen.WriteString(line + "\n")
		if m := codeRE.FindStringSubmatch(line); m != nil && !approved {
			if !strings.Contains(line, "Approve '"+name+"' on the box page (Access).") {
				t.Errorf("prompt %q is not the seed's sentence", line)
			}
			tb.approve(t, m[1], ownertest.Life30d)
			approved = true
		}
	}
	io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("openlolo pair: %v\nstderr:\n%s", err, seen.String())
	}
	if !strings.Contains(seen.String(), tb.Box.Cert().Fingerprint()) || !strings.Contains(seen.String(), "Trust this box? [y/N]") {
		t.Fatalf("pair did not show the fingerprint and ask:\n%s", seen.String())
	}
	if !strings.Contains(out.String(), "Paired with "+tb.URL) {
		t.Fatalf("pair printed:\n%s", out.String())
	}
	return out.String()
}

// scanPrompt splits at newlines and also after "[y/N] ", which has none.
func scanPrompt(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if i := bytes.Index(data, []byte("[y/N] ")); i >= 0 {
		return i + 6, data[:i+5], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func callJSON(t *testing.T, store string, wantCode int, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := cli(t, store, "", append([]string{"call"}, args...)...)
	if code != wantCode {
		t.Fatalf("openlolo call %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, wantCode, out, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("openlolo call %v printed non-JSON: %v\n%s", args, err, out)
	}
	return m
}

func TestCLIEndToEnd(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "cli e2e")

	st := callJSON(t, store, 0, tb.URL, "openlolo_status")
	if st["status"] != "ok" {
		t.Fatalf("status: %v", st)
	}
	shotPath := filepath.Join(t.TempDir(), "shot.jpg")
	shot := callJSON(t, store, 0, tb.URL, "openlolo_screenshot", "--out", shotPath, "max_size=800")
	if b, err := os.ReadFile(shotPath); err != nil || len(b) < 3 || b[0] != 0xFF || b[1] != 0xD8 {
		t.Fatalf("screenshot file %s is not a JPEG (%d bytes, %v)", shotPath, len(b), err)
	}
	if shot["image_file"] != shotPath {
		t.Fatalf("image_file = %v, want %s", shot["image_file"], shotPath)
	}
	notes, _ := tb.Sim.IconCenter("Notes")
	epoch, _ := json.Marshal(shot["geometry_epoch"])
	epochArg := strings.Trim(string(epoch), `"`)
	callJSON(t, store, 0, tb.URL, "openlolo_tap", fmt.Sprintf("frame_id=%v", shot["frame_id"]),
		"geometry_epoch="+epochArg, fmt.Sprintf("x=%g", notes.X), fmt.Sprintf("y=%g", notes.Y))
	if tb.Sim.Screen() != "notes" {
		t.Fatalf("after the CLI tap the phone shows %q", tb.Sim.Screen())
	}
	callJSON(t, store, 0, tb.URL, "openlolo_type_text", "text=typed from the CLI")
	if got := tb.Sim.NoteText(); !strings.Contains(got, "typed from the CLI") {
		t.Fatalf("note = %q", got)
	}
	// The default screenshot file is a temp file whose path is printed.
	out, errOut, code := cli(t, store, "", "call", tb.URL, "openlolo_screenshot", "format=png")
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	p, _ := m["image_file"].(string)
	if code != 0 || p == "" || !strings.Contains(errOut, p) {
		t.Fatalf("default screenshot: exit %d, image_file %q, stderr %q", code, p, errOut)
	}
	os.Remove(p)
	// --text prints the agent sentence.
	text, _, code := cli(t, store, "", "call", tb.URL, "openlolo_status", "--text")
	if code != 0 || strings.HasPrefix(strings.TrimSpace(text), "{") || strings.TrimSpace(text) == "" {
		t.Fatalf("--text printed %q (exit %d)", text, code)
	}
	// boxes lists the pairing.
	list, _, code := cli(t, store, "", "boxes")
	if code != 0 || !strings.Contains(list, tb.URL) || !strings.Contains(list, "cli e2e") {
		t.Fatalf("boxes printed (exit %d):\n%s", code, list)
	}
}

func TestCLIExitCodes(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "exit codes")
	keys := tb.Sim.ReportCount(hid.KindKeyboard)

	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"unknown box", []string{"call", "https://127.0.0.1:1", "openlolo_status"}, 3, "not paired"},
		{"no tool", []string{"call", tb.URL}, 2, "give a box and a tool"},
		{"not key=value", []string{"call", tb.URL, "openlolo_type_text", "hello"}, 2, "not key=value"},
		{"unknown argument", []string{"call", tb.URL, "openlolo_type_text", "txt=a"}, 2, `no argument "txt"`},
		{"not a number", []string{"call", tb.URL, "openlolo_screenshot", "max_size=big"}, 2, "want a whole number"},
		{"unknown tool", []string{"call", tb.URL, "openlolo_fly"}, 2, `no tool "openlolo_fly"`},
		{"refused call", []string{"call", tb.URL, "openlolo_type_text", "text=héllo"}, 1, "UNSUPPORTED_TEXT"},
		{"unknown command", []string{"fly"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := cli(t, store, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.inStderr) {
				t.Fatalf("openlolo %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.inStderr)
			}
		})
	}
	if n := tb.Sim.ReportCount(hid.KindKeyboard) - keys; n != 0 {
		t.Fatalf("refused calls sent %d keyboard reports", n)
	}

	t.Run("revoked grant", func(t *testing.T) {
		var f struct {
			Boxes map[string]struct {
				ClientID string `json:"client_id"`
			} `json:"boxes"`
		}
		raw, _ := os.ReadFile(store)
		json.Unmarshal(raw, &f)
		ownertest.Revoke(t, tb.Owner, tb.URL, f.Boxes[tb.URL].ClientID)
		_, errOut, code := cli(t, store, "", "call", tb.URL, "openlolo_status")
		if code != 3 || !strings.Contains(errOut, "pair again") {
			t.Fatalf("call after revoke: exit %d, stderr %q; want 3 and 'pair again'", code, errOut)
		}
	})
}

func TestCLIWrongPin(t *testing.T) {
	state := t.TempDir()
	tb := startBox(t, state, false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "pin check")
	old := tb.Box.Cert().Fingerprint()
	tb.stop()
	tb2 := startBox(t, state, true)
	// Point the stored pairing at the new port; the pin stays the old one.
	raw, _ := os.ReadFile(store)
	os.WriteFile(store, bytes.ReplaceAll(raw, []byte(tb.URL), []byte(tb2.URL)), 0o600)
	_, errOut, code := cli(t, store, "", "call", tb2.URL, "openlolo_status")
	if code != 3 || !strings.Contains(errOut, old) || !strings.Contains(errOut, tb2.Box.Cert().Fingerprint()) {
		t.Fatalf("call with a stale pin: exit %d, stderr %q; want 3 naming both fingerprints", code, errOut)
	}
	// pair --pin with the wrong pin refuses before asking anything.
	_, errOut, code = cli(t, filepath.Join(t.TempDir(), "b.json"), "", "pair", tb2.URL, "--pin", old)
	if code != 3 || !strings.Contains(errOut, "mismatch") {
		t.Fatalf("pair --pin <old>: exit %d, stderr %q", code, errOut)
	}
}

// Two processes whose access tokens have expired refresh at the same
// moment, twenty times: the store lock serializes them, the second uses the
// first's new tokens, and the grant (which a reused refresh token would
// revoke) survives every round.
func TestCLIConcurrentRefreshKeepsGrant(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "refresher")
	for round := 0; round < 20; round++ {
		expire(t, store)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		errs := make([]string, 2)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i], codes[i] = cliNoFatal(store, "call", tb.URL, "openlolo_status")
			}()
		}
		wg.Wait()
		for i := range codes {
			if codes[i] != 0 {
				t.Fatalf("round %d process %d: exit %d: %s", round, i, codes[i], errs[i])
			}
		}
		raw, err := os.ReadFile(store)
		if err != nil || !json.Valid(raw) {
			t.Fatalf("round %d: store is not valid JSON: %v", round, err)
		}
	}
}

// cliNoFatal is cli for goroutines other than the test's.
func cliNoFatal(store string, args ...string) (string, string, int) {
	bin := binPath
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		return "", err.Error(), -1
	}
	return out.String(), errb.String(), 0
}

// expire sets every stored access token's expiry in the past.
func expire(t *testing.T, store string) {
	t.Helper()
	raw, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	for _, b := range f["boxes"].(map[string]any) {
		b.(map[string]any)["expires_at"] = "2000-01-01T00:00:00Z"
	}
	out, _ := json.Marshal(f)
	if err := os.WriteFile(store, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
