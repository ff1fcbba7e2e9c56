package oauth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestRefreshLoopUnderSIGKILL kills the server process 20 times while a
// client refreshes in a loop, at random moments of a refresh (before, in
// and after the commit). A client that lost an answer retries once with
// the refresh token it has, as the SDKs do; the retry window (see
// RefreshRetryWindow) must answer it, so no grant is lost. Before the
// window, 2 of 20 kills cost the grant. The store must pass
// integrity_check after every kill.
func TestRefreshLoopUnderSIGKILL(t *testing.T) {
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
	tok, id := h.pair("survivor", Life30d)
	h.ts.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rt, access := tok.str("refresh_token"), tok.str("access_token")
	hc := &http.Client{Timeout: 10 * time.Second}
	refresh := func(base string) (answer, error) {
		resp, err := hc.Post(base+"/token", "application/x-www-form-urlencoded", strings.NewReader(url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {id}}.Encode()))
		if err != nil {
			return answer{}, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return answer{}, err
		}
		a := answer{status: resp.StatusCode, raw: string(b)}
		_ = json.Unmarshal(b, &a.body)
		return a, nil
	}
	take := func(t *testing.T, a answer, what string) {
		t.Helper()
		if a.status != http.StatusOK || a.str("refresh_token") == "" {
			t.Fatalf("%s = %d %s: the grant is lost", what, a.status, a.raw)
		}
		rt, access = a.str("refresh_token"), a.str("access_token")
	}
	const kills = 20
	lostAfterCommit := 0
	for i := range kills {
		c := startChild(t, dir)
		// A few refreshes, then one the kill lands in.
		for range 1 + i%3 {
			a, err := refresh(c.base)
			if err != nil {
				t.Fatal(err)
			}
			take(t, a, "refresh")
		}
		inFlight := make(chan struct{})
		done := make(chan struct{})
		var a answer
		var rerr error
		go func() {
			defer close(done)
			close(inFlight)
			a, rerr = refresh(c.base)
		}()
		<-inFlight
		// The kill lands at a random moment of the refresh in flight: a
		// timer fires it, and the test waits on the kill and the answer.
		killed := make(chan struct{})
		time.AfterFunc(time.Duration(mrand.IntN(4000))*time.Microsecond, func() { c.cmd.Process.Kill(); close(killed) })
		<-killed
		c.kill(t)
		<-done
		if rerr == nil {
			take(t, a, "refresh answered before the kill")
			continue
		}
		// The answer was lost: find out whether the rotation committed.
		st, err := store.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.IntegrityCheck(ctx); err != nil {
			t.Fatalf("after kill %d: %v", i+1, err)
		}
		st.View(ctx, func(tx *store.Tx) error {
			if k, err := tx.TokenByHash(hashSecret(rt)); err == nil && !k.Used.IsZero() {
				lostAfterCommit++
			}
			return nil
		})
		st.Close()
		// Retry once on the restarted server, with the same token.
		c = startChild(t, dir)
		a, err = refresh(c.base)
		if err != nil {
			t.Fatal(err)
		}
		take(t, a, "the retry after a lost answer")
		c.kill(t)
	}
	c := startChild(t, dir)
	if got := c.whoami(t, access); got != http.StatusOK {
		t.Errorf("the last access token = %d, want 200", got)
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
	t.Logf("%d kills, 0 grants lost; %d answers were lost after their rotation committed and were answered again by the retry window", kills, lostAfterCommit)
}

// TestRefreshClientGivesUp50ms: a client that closes the connection 50 ms
// after sending (a slow link delays the answer) and then retries keeps
// its grant; before the retry window, 5 of 5 such clients lost it.
func TestRefreshClientGivesUp50ms(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("impatient", Life30d)
	mux := h.mux()
	// The answer leaves only after the rotation committed and the client
	// gave up (its closed connection ends the request's context).
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, r)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer slow.Close()
	impatient := slow.Client()
	impatient.Timeout = 50 * time.Millisecond
	rt := tok.str("refresh_token")
	for i := range 5 {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {id}}
		_, err := impatient.PostForm(slow.URL+"/token", form)
		if err == nil {
			t.Fatalf("round %d: the client got the answer within 50 ms", i)
		}
		a := h.refresh(rt, id) // the retry, on a good link
		if a.status != http.StatusOK {
			t.Fatalf("round %d: retry after giving up = %d %s: the grant is lost", i, a.status, a.raw)
		}
		if w := h.whoami(a.str("access_token")); w.status != http.StatusOK {
			t.Fatalf("round %d: the retried pair's access token = %d", i, w.status)
		}
		rt = a.str("refresh_token")
	}
}
