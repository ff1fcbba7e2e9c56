package oauth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/openlolo/openlolo/appliance/store"
)

// childDirEnv makes the test binary a child server on that state
// directory (see TestDurabilityChild).
const childDirEnv = "OPENLOLO_OAUTH_TEST_CHILD_DIR"

// TestDurabilityChild is not a test: run with childDirEnv set (by
// TestRefreshSurvivesSIGKILL), it serves the OAuth endpoints and /whoami on
// 127.0.0.1:0 over the store in that directory, prints "LISTEN <addr>",
// and serves until killed.
func TestDurabilityChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("helper process of TestRefreshSurvivesSIGKILL")
	}
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	srv, err := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	srv.Routes(mux)
	mux.Handle("GET /whoami", srv.Middleware(http.HandlerFunc(whoami)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	fmt.Println("LISTEN", ln.Addr())
	http.Serve(ln, mux)
	os.Exit(3)
}

// child is a running child server.
type child struct {
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDurabilityChild$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd}
	t.Cleanup(func() { c.kill(t) })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if addr, ok := strings.CutPrefix(lines.Text(), "LISTEN "); ok {
			c.base = "http://" + addr
			go io.Copy(io.Discard, out)
			return c
		}
		if strings.HasPrefix(lines.Text(), "ERROR") {
			t.Fatalf("child: %s", lines.Text())
		}
	}
	t.Fatalf("child exited before listening: %v", lines.Err())
	return nil
}

// kill SIGKILLs the child and checks that the signal ended it.
func (c *child) kill(t *testing.T) {
	if c.cmd.ProcessState != nil {
		return
	}
	c.cmd.Process.Kill()
	c.cmd.Wait()
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("child ended with %v, want SIGKILL", c.cmd.ProcessState)
	}
}

func (c *child) post(t *testing.T, path string, form url.Values) answer {
	t.Helper()
	resp, err := http.Post(c.base+path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	return readAnswer(t, resp)
}

func (c *child) whoami(t *testing.T, access string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", c.base+"/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+access)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readAnswer(t, resp).status
}

func readAnswer(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	_ = json.Unmarshal(b, &a.body)
	return a
}

// TestRefreshSurvivesSIGKILL kills the server process right after it
// answered a refresh and checks, on restart over the same file, that the
// newly issued tokens work and the previous ones do not.
func TestRefreshSurvivesSIGKILL(t *testing.T) {
	if os.Getenv(childDirEnv) != "" {
		t.Skip("inside the child")
	}
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpt{st: st, realTime: true})
	first, id := h.pair("durable", Life30d)
	h.ts.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	c := startChild(t, dir)
	next := c.post(t, "/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {first.str("refresh_token")}, "client_id": {id}})
	c.kill(t) // the answer is in hand: kill at once
	if next.status != http.StatusOK || next.str("refresh_token") == "" {
		t.Fatalf("refresh = %d %s", next.status, next.raw)
	}

	c = startChild(t, dir)
	if got := c.whoami(t, next.str("access_token")); got != http.StatusOK {
		t.Errorf("new access token after restart = %d, want 200", got)
	}
	if got := c.whoami(t, first.str("access_token")); got != http.StatusUnauthorized {
		t.Errorf("old access token after restart = %d, want 401", got)
	}
	third := c.post(t, "/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {next.str("refresh_token")}, "client_id": {id}})
	if third.status != http.StatusOK {
		t.Fatalf("new refresh token after restart = %d %s", third.status, third.raw)
	}
	old := c.post(t, "/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {first.str("refresh_token")}, "client_id": {id}})
	if old.status != http.StatusBadRequest || old.str("error") != "invalid_grant" {
		t.Errorf("old refresh token after restart = %d %s, want invalid_grant", old.status, old.raw)
	}
	c.kill(t)

	st, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}
