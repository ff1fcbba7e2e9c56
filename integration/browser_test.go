//go:build browser

package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// The browser tests (make test-browser): Debian's chromium, driven by
// chromedp over the DevTools protocol, against `openlolo serve` on the
// simulated phone over real HTTPS. One box and one browser serve the whole
// suite; its steps run in order (claim before approve, and so on), each a
// subtest. The last step (farm) has a box of three phones and a browser of
// its own. Every wait is on a DOM condition with a deadline, never a sleep.

// wait bounds every step that waits for the page (a navigation, an element,
// a text): generous for a loaded CI machine, short enough to fail fast.
const wait = 15 * time.Second

// shotsDir is where every page's screenshot goes, relative to the
// repository (CI keeps the folder; the Makefile and README say so).
const shotsDir = "out/browser-shots"

// browserTab is one chromium tab (its chromedp context) with the box it
// talks to.
type browserTab struct {
	ctx context.Context
	box *servedBox
}

// startBrowser starts one headless chromium for the suite. It trusts the
// box the way the box's own clients do: by the public key pin serve
// printed (--ignore-certificate-errors-spki-list accepts a certificate
// only when its SubjectPublicKeyInfo hashes to a listed pin; any other
// certificate error still stops the page, which TestBrowser's "pin" step
// shows). Chromium honours that flag only with its own --user-data-dir,
// which chromedp gives each run.
func startBrowser(t *testing.T, b *servedBox) *browserTab {
	t.Helper()
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		exe = "chromium"
	}
	path, err := exec.LookPath(exe)
	if err != nil {
		t.Fatalf("no %s on PATH: install Debian's chromium (make deps, scripts/deps.sh), or set CHROMIUM to a Chromium binary", exe)
	}
	pin, ok := strings.CutPrefix(b.SPKIPin, boxtls.SPKIPrefix)
	if !ok {
		t.Fatalf("serve printed SPKI pin %q, want the %s form", b.SPKIPin, boxtls.SPKIPrefix)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("ignore-certificate-errors-spki-list", pin),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("hide-scrollbars", true), // screenshots without a scrollbar band; overflow is measured, not seen
		chromedp.Flag("lang", "en-US"),
	)
	if os.Geteuid() == 0 {
		// CI runs as root, and Chromium refuses to start its sandbox as
		// root ("Running as root without --no-sandbox is not supported").
		// The pages it opens are the box's own, on 127.0.0.1.
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium (%s): %v", path, err)
	}
	t.Logf("chromium started in %v", time.Since(start).Round(time.Millisecond))
	return &browserTab{ctx: ctx, box: b}
}

// newContext is a fresh browser context of the same chromium (no cookies:
// a visitor who is not logged in).
func (bt *browserTab) newContext(t *testing.T) *browserTab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bt.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first action opens the tab and ties it to the context it runs
	// with: this one, not a step's context with a deadline (whose end
	// would close the tab).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open a tab in a new browser context: %v", err)
	}
	return &browserTab{ctx: ctx, box: bt.box}
}

// do runs steps with the suite's deadline.
func (bt *browserTab) do(steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(bt.ctx, wait)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// run runs one action with the suite's deadline and returns its value.
func run[T any](bt *browserTab, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(bt.ctx, wait)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// open navigates to the box's path and waits for its main element.
func (bt *browserTab) open(t *testing.T, path string) {
	t.Helper()
	if err := bt.do(chromedp.Navigate(bt.box.URL+path), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
}

// path is the page's current path (after redirects).
func (bt *browserTab) path(t *testing.T) string {
	t.Helper()
	p, err := run(bt, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// text is the visible text of the first element sel matches.
func (bt *browserTab) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := run(bt, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// submit clicks the button sel and waits until the page that answers has
// loaded and shows a main element. The click is the page's own (the
// element's click(), which submits its form as a person's click does);
// it returns at once, and the navigation that follows is waited for.
func (bt *browserTab) submit(t *testing.T, sel string) {
	t.Helper()
	click := fmt.Sprintf(`(() => { const b = document.querySelector(%q); if (!b) return false; document.documentElement.dataset.browserTest = "old"; b.click(); return true; })()`, sel)
	ok, err := run(bt, chromedp.Evaluate[bool](click))
	if err != nil || !ok {
		t.Fatalf("submit: no %s on %s (%v)", sel, bt.path(t), err)
	}
	// The old document carried the mark; the new one does not.
	if err := bt.until(`document.readyState === "complete" && document.documentElement.dataset.browserTest !== "old" && document.querySelector("main") !== null`); err != nil {
		t.Fatalf("submit %s: no new page within %v: %v", sel, wait, err)
	}
}

// until evaluates the JavaScript condition cond every 50 ms until it is
// true, for up to wait. Errors while a navigation replaces the page (its
// execution context goes away) count as not yet.
func (bt *browserTab) until(cond string) error {
	deadline := time.Now().Add(wait)
	var last error
	for {
		ctx, cancel := context.WithTimeout(bt.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			if last == nil {
				last = errors.New("still false")
			}
			return fmt.Errorf("%s: %w", cond, last)
		}
		select {
		case <-bt.ctx.Done():
			return bt.ctx.Err()
		case <-time.After(50 * time.Millisecond): // the poll's interval, not a wait for an outcome
		}
	}
}

// waitText waits until the first element sel matches contains want.
func (bt *browserTab) waitText(t *testing.T, sel, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e !== null && e.innerText.includes(%q); })()`, sel, want)
	if err := bt.until(expr); err != nil {
		got, _ := run(bt, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("%s does not show %q within %v (%v); the page at %s says:\n%s", sel, want, wait, err, bt.path(t), got)
	}
}

// setScript turns the page's JavaScript on or off (emulation), for the
// next loads of this tab.
func (bt *browserTab) setScript(on bool) error {
	_, err := chromedp.Call(bt.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
	return err
}

// TestBrowser is the suite: each step an owner's task end to end through
// the browser, in order, on one box.
func TestBrowser(t *testing.T) {
	b, setupCode := startServe(t)
	bt := startBrowser(t, b)
	shots := shotFolder(t)
	store := filepath.Join(t.TempDir(), "boxes.json")
	var client *sdk.Client
	var extra []page // pages of the steps' own making (an ask waiting for the owner)

	t.Run("pin", func(t *testing.T) { testPin(t, bt) })
	t.Run("overflow-check", func(t *testing.T) { testOverflowCheck(t, bt) })
	t.Run("layout-check", func(t *testing.T) { testLayoutCheck(t, bt) })
	if !t.Run("claim", func(t *testing.T) {
		shootPage(t, bt, shots, page{name: "claim", path: "/claim"})
		testClaim(t, bt, setupCode)
	}) {
		t.FailNow()
	}
	if !t.Run("approve-script", func(t *testing.T) { client = testApproveScript(t, bt, store) }) {
		t.FailNow()
	}
	t.Run("owner-pause-survives-resume", func(t *testing.T) { testPauseSurvivesResume(t, bt, client) })
	t.Run("activity", func(t *testing.T) { testActivity(t, bt, client) })
	t.Run("asks", func(t *testing.T) { extra = append(extra, testAsks(t, bt, client)...) })
	t.Run("live", func(t *testing.T) { testLive(t, bt, client) })
	t.Run("pages", func(t *testing.T) { testPages(t, bt, shots, extra) })
	t.Run("farm", func(t *testing.T) { testFarm(t, shots) })
}

// testPin shows the browser's trust is the pin and nothing wider: the box
// loads, a server with another self-signed certificate does not.
func testPin(t *testing.T, bt *browserTab) {
	other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>other</title><main>not the box</main>")
	}))
	other.Config.ErrorLog = log.New(io.Discard, "", 0) // the browser's refusal is the expected outcome
	other.StartTLS()
	defer other.Close()
	box := bt.newContext(t)
	box.open(t, "/claim")
	if p := box.path(t); p != "/claim" {
		t.Fatalf("the unclaimed box shows %s, want /claim", p)
	}
	tab := bt.newContext(t)
	if err := tab.do(chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab.ctx, wait)
	defer cancel()
	nav, err := chromedp.Call(ctx, cdppage.Navigate, cdppage.NavigateParams{URL: other.URL})
	if err != nil || !strings.HasPrefix(nav.ErrorText, "net::ERR_CERT_") {
		t.Fatalf("a server with another self-signed certificate: navigate = %+v, %v; want a net::ERR_CERT_ error", nav, err)
	}
	t.Logf("another self-signed certificate: %s", nav.ErrorText)
}

// testClaim claims the box on the claim page with the setup code serve
// printed, as a new owner does.
func testClaim(t *testing.T, bt *browserTab, setupCode string) {
	bt.open(t, "/claim")
	if err := bt.do(
		chromedp.SendKeys(chromedp.CSS(`input[name=code]`), setupCode),
		chromedp.SendKeys(chromedp.CSS(`input[name=passphrase]`), passphrase),
		chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), passphrase),
	); err != nil {
		t.Fatal(err)
	}
	bt.submit(t, `form[action="/claim"] button[type=submit]`)
	if p := bt.path(t); p != "/status" {
		t.Fatalf("after claiming the browser is at %s, want /status: %s", p, bt.text(t, "main"))
	}
	bt.waitText(t, "main h1", "Phone")
}

// testApproveScript pairs a script with `openlolo pair` and approves it on
// the Access page, with the phones in untick left out of its grant (a box
// of several); it returns the script's Go SDK client (the token store
// pair wrote).
func testApproveScript(t *testing.T, bt *browserTab, store string, untick ...string) *sdk.Client {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, openloloBin(t), "pair", bt.box.URL, "--name", "browser script")
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
	var code string
	for code == "" && sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if m := codeRE.FindStringSubmatch(sc.Text()); m != nil {
			code = m[1]
		}
	}
	go io.Copy(&seen, stderr) // keep pair from blocking on a full pipe
	if code == "" {
		cmd.Wait()
		t.Fatalf("openlolo pair showed no code:\n%s", seen.String())
	}
	bt.open(t, "/access")
	req := fmt.Sprintf(`div.request[data-user-code=%q]`, code)
	bt.waitText(t, req, "browser script")
	bt.waitText(t, req+" .usercode", code)
	for _, id := range untick {
		if err := bt.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`%s input[type=checkbox][name=phone][value=%q]`, req, id)))); err != nil {
			t.Fatalf("untick %s in the request's phones: %v", id, err)
		}
	}
	bt.submit(t, req+` button.primary`)
	bt.waitText(t, "main", "browser script")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("openlolo pair: %v\n%s", err, seen.String())
	}
	if !strings.Contains(out.String(), "Paired with "+bt.box.URL) {
		t.Fatalf("openlolo pair printed:\n%s", out.String())
	}
	if n, err := run(bt, chromedp.Evaluate[int](`document.querySelectorAll("div.client").length`)); err != nil || n != 1 {
		t.Fatalf("Access lists %d clients (%v), want the script", n, err)
	}
	c, err := sdk.Dial(context.Background(), bt.box.URL, &sdk.Options{Store: &sdk.TokenStore{Path: store}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testPauseSurvivesResume: the owner pauses on Status, the script (holding
// control) calls openlolo_control command=resume and gets PAUSED, and
// Status still shows the owner's pause; then the owner resumes.
func testPauseSurvivesResume(t *testing.T, bt *browserTab, c *sdk.Client) {
	ctx := context.Background()
	if res, err := c.Control(ctx, "acquire"); err != nil {
		t.Fatalf("acquire: %v %+v", err, res)
	}
	bt.open(t, "/status")
	bt.submit(t, `form[action="/status/pause"] button`)
	bt.waitText(t, "main", "Phone control is paused")
	bt.waitText(t, "#paused-by", "by you (the owner)")

	r, err := c.Control(ctx, "resume")
	if err == nil || r == nil || r.Outcome.Error == nil || r.Outcome.Error.Code != api.CodePaused {
		t.Fatalf("the script's resume after the owner's pause: %v %+v, want PAUSED", err, r)
	}
	var refused *sdk.Refused
	if !errors.As(err, &refused) {
		t.Fatalf("the script's resume: %T %v, want *sdk.Refused", err, err)
	}
	bt.open(t, "/status")
	bt.waitText(t, "#paused-by", "by you (the owner)")
	if _, err := c.Key(ctx, "a", nil, nil); err == nil {
		t.Fatal("a key went through while the owner's pause held")
	}
	bt.submit(t, `form[action="/status/resume"] button`)
	bt.waitText(t, `form[action="/status/pause"]`, "Pause phone control")
	if _, err := c.Key(ctx, "a", nil, nil); err != nil {
		t.Fatalf("key after the owner's resume: %v", err)
	}
}

// runTitle names the run the activity step's calls belong to.
const runTitle = "Browser suite: Notes check"

// testActivity: a run's title, a refused call with its code, and the
// owner's actions all show on the Activity page.
func testActivity(t *testing.T, bt *browserTab, c *sdk.Client) {
	ctx := context.Background()
	rctx, _ := sdk.WithRun(ctx, runTitle)
	if _, err := c.Key(rctx, "b", nil, nil); err != nil {
		t.Fatalf("key in the run: %v", err)
	}
	// A tap on a frame the box never issued: refused with FRAME_EXPIRED.
	r, err := c.Tap(ctx, sdk.Frame{ID: "f-not-issued", Epoch: "g-not-issued"}, 0.5, 0.5, nil)
	if err == nil || r == nil || r.Outcome.Error == nil {
		t.Fatalf("a tap on a made-up frame: %v %+v, want refused", err, r)
	}
	refusedCode := string(r.Outcome.Error.Code)
	if _, err := c.Control(ctx, "release"); err != nil {
		t.Fatalf("release: %v", err)
	}

	bt.open(t, "/activity")
	bt.waitText(t, "tr.run", runTitle)
	for _, want := range []string{
		refusedCode, string(api.CodePaused), // refused calls, with their codes
		"openlolo_tap", "command resume",
		"claimed the box", "approved “browser script”", // the owner's actions
		"paused phone control", "resumed phone control",
	} {
		bt.waitText(t, "main", want)
	}
	// The codes are in the rows of the refused calls, not only somewhere.
	expr := fmt.Sprintf(`[...document.querySelectorAll("tr")].some(tr => tr.innerText.includes("openlolo_tap") && tr.innerText.includes(%q))`, refusedCode)
	if ok, err := run(bt, chromedp.Evaluate[bool](expr)); err != nil || !ok {
		t.Fatalf("no Activity row shows the refused tap with %s (%v)", refusedCode, err)
	}
}
