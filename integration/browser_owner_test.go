//go:build browser

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// The owner-in-command steps: asks the owner allows and denies, and the
// live phone on Status (an agent's tap seen within a second, the owner's
// tap opening an app, Take over). They use the DOM hooks the page helpers
// keep stable (img#phone-live, #control-holder, form#take-over,
// form.ask[data-ask-id], section#asks).

// count is how many elements sel matches on the tab's page.
func (bt *browserTab) count(t *testing.T, sel string) int {
	t.Helper()
	n, err := run(bt, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
	if err != nil {
		t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// findOne is the one match of query on the phone's screen now (the
// client's openlolo_find_text), waiting up to wait for it to show.
func findOne(t *testing.T, c *sdk.Client, query string) (*api.FindTextResult, api.TextBox) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		res, err := c.FindText(context.Background(), query)
		if err != nil {
			t.Fatalf("find_text %q: %v", query, err)
		}
		r, err := sdk.Decode[api.FindTextResult](res)
		if err != nil {
			t.Fatalf("find_text %q: %v", query, err)
		}
		if len(r.Matches) == 1 {
			return r, r.Matches[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("find_text %q: %d matches within %v, want 1: %+v", query, len(r.Matches), wait, r.Matches)
		}
	}
}

// testAsks: the owner marks opening URLs as asked in Settings; the
// script's open_url answers pending with an ask; one ask the owner allows
// on its own page runs once with the same operation_id, one denied on
// Status never runs. It returns the page of one more ask, left waiting
// for the pages step to shoot (with Status and Access showing it).
func testAsks(t *testing.T, bt *browserTab, c *sdk.Client) []page {
	bt.open(t, "/settings")
	if bt.count(t, "section#asks") != 1 {
		t.Fatal("Settings has no section#asks (the box-wide ask marks' DOM hook)")
	}
	mark := `section#asks input[type=checkbox][value="url"]`
	if bt.count(t, mark) != 1 {
		t.Fatalf("section#asks has no checkbox for opening URLs (%s)", mark)
	}
	checked, err := run(bt, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).checked`, mark)))
	if err != nil {
		t.Fatal(err)
	}
	if !checked {
		if err := bt.do(chromedp.Click(chromedp.CSS(mark))); err != nil {
			t.Fatal(err)
		}
	}
	bt.submit(t, `section#asks button[type=submit]`)
	bt.open(t, "/settings")
	if ok, err := run(bt, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).checked`, mark))); err != nil || !ok {
		t.Fatalf("after saving, opening URLs is not marked in Settings (%v)", err)
	}

	ctx := context.Background()
	openURL := func(op, u string) *sdk.Result {
		t.Helper()
		r, err := c.Mutate(ctx, string(api.ToolOpenURL), map[string]any{"url": u, "operation_id": op})
		if r == nil {
			t.Fatalf("open_url %s: %v", u, err)
		}
		return r
	}
	askOf := func(r *sdk.Result) (id, u string) {
		t.Helper()
		var a struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		}
		raw, _ := json.Marshal(r.Structured["ask"])
		if err := json.Unmarshal(raw, &a); err != nil || a.ID == "" || a.URL == "" {
			t.Fatalf("the answer carries no ask {id, url}: %s", raw)
		}
		return a.ID, a.URL
	}
	pending := func(r *sdk.Result) {
		t.Helper()
		if r.Status() != string(api.StatusPending) || r.Outcome.Dispatched == nil || *r.Outcome.Dispatched {
			t.Fatalf("a marked call answered %s (dispatched %v), want pending and not dispatched: %+v", r.Status(), r.Outcome.Dispatched, r.Outcome)
		}
	}

	t.Run("allowed-runs-once", func(t *testing.T) {
		op := uuid.NewString()
		r := openURL(op, "https://example.com/allowed")
		pending(r)
		id, au := askOf(r)
		bt.open(t, "/access")
		if bt.count(t, fmt.Sprintf(`form.ask[data-ask-id=%q]`, id)) != 1 {
			t.Errorf("Access does not show the pending ask %s", id)
		}
		pending(openURL(op, "https://example.com/allowed")) // still pending: asked again, nothing runs
		u, err := url.Parse(au)
		if err != nil {
			t.Fatalf("ask.url %q: %v", au, err)
		}
		bt.open(t, u.RequestURI())
		form := fmt.Sprintf(`form.ask[data-ask-id=%q]`, id)
		if bt.count(t, form+`[method=post] input[type=checkbox][name=always]`) != 1 || bt.count(t, form+` button[name=decision][value=deny]`) != 1 {
			t.Fatalf("the ask's page has no %s with the always checkbox and both decisions", form)
		}
		bt.submit(t, form+` button[name=decision][value=allow]`)
		r = openURL(op, "https://example.com/allowed")
		if r.Status() != string(api.StatusOK) || r.Outcome.OperationID != op {
			t.Fatalf("after Allow, the same operation_id answered %s: %+v", r.Status(), r.Outcome)
		}
		again := openURL(op, "https://example.com/allowed")
		if again.Status() != string(api.StatusOK) || !again.Outcome.Replayed {
			t.Fatalf("the same operation_id a third time: %+v, want the recorded outcome (replayed), not a second run", again.Outcome)
		}
	})
	t.Run("denied-never-runs", func(t *testing.T) {
		op := uuid.NewString()
		r := openURL(op, "https://example.com/denied")
		pending(r)
		id, _ := askOf(r)
		bt.open(t, "/status")
		form := fmt.Sprintf(`form.ask[data-ask-id=%q]`, id)
		if bt.count(t, form) != 1 {
			t.Fatalf("Status does not show the pending ask %s", id)
		}
		bt.submit(t, form+` button[name=decision][value=deny]`)
		for i := range 2 {
			r = openURL(op, "https://example.com/denied")
			if r.Outcome.Error == nil || r.Outcome.Error.Code != api.CodeAskDenied || r.Outcome.Dispatched == nil || *r.Outcome.Dispatched {
				t.Fatalf("call %d after Deny: %+v, want failed ASK_DENIED, not dispatched", i+1, r.Outcome)
			}
		}
	})

	r := openURL(uuid.NewString(), "https://example.com/left-waiting?for=the+screenshots")
	pending(r)
	_, au := askOf(r)
	u, err := url.Parse(au)
	if err != nil {
		t.Fatalf("ask.url %q: %v", au, err)
	}
	return []page{{name: "ask", path: u.RequestURI()}}
}

// liveShot is the live view's pixels as the browser paints them now.
func (bt *browserTab) liveShot(t *testing.T) []byte {
	t.Helper()
	b, err := run(bt, chromedp.Screenshot(chromedp.CSS("img#phone-live")))
	if err != nil {
		t.Fatalf("screenshot of img#phone-live: %v", err)
	}
	return b
}

// tapLive clicks the live view at the fractions fx, fy of the image,
// scrolled into the viewport first (an ask waiting above it pushes it
// down; a click is sent at viewport coordinates).
func (bt *browserTab) tapLive(t *testing.T, fx, fy float64) {
	t.Helper()
	raw, err := run(bt, chromedp.Evaluate[[]byte](`(() => { const img = document.querySelector("img#phone-live"); img.scrollIntoView({block: "center"}); const r = img.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ X, Y, W, H float64 }
	if err := json.Unmarshal(raw, &r); err != nil || r.W == 0 || r.H == 0 {
		t.Fatalf("img#phone-live has no size: %s (%v)", raw, err)
	}
	if err := bt.do(chromedp.MouseClickXY(r.X+fx*r.W, r.Y+fy*r.H, chromedp.ButtonType(input.MouseButtonLeft))); err != nil {
		t.Fatalf("click the live view at %.2f,%.2f: %v", fx, fy, err)
	}
}

// liveJS are the page-side helpers of ownerInputShows: px draws an image
// 240 pixels wide, diff counts the pixels where two such drawings differ
// by more than 64 levels in a channel (the live view and the still
// picture differ in size and JPEG quality, which moves a pixel by a few
// levels; a letter typed moves dozens of pixels from white to black),
// still loads the
// box's still picture of the screen now (/status/screen.jpg), and the
// wrapped fetch notes when the box answers the page's input (a POST).
const liveJS = `(() => {
	if (window.liveTest) return;
	const w = 240, live = document.getElementById("phone-live");
	const px = (img) => {
		const c = document.createElement("canvas");
		c.width = w; c.height = Math.round(w * live.height / live.width); // its shape on the page
		const x = c.getContext("2d");
		x.drawImage(img, 0, 0, c.width, c.height);
		return x.getImageData(0, 0, c.width, c.height).data;
	};
	const diff = (a, b) => {
		let n = 0;
		for (let i = 0; i < a.length; i += 4) {
			if (Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]), Math.abs(a[i + 2] - b[i + 2])) > 64) n++;
		}
		return n;
	};
	const still = async () => { const m = new Image(); m.src = "/status/screen.jpg?t=" + Date.now(); await m.decode(); return px(m); };
	const realFetch = window.fetch;
	window.fetch = function (u, o) {
		const r = realFetch(u, o);
		if (o && o.method === "POST") r.then(() => { window.liveTest.answered = performance.now(); });
		return r;
	};
	window.liveTest = { px: () => px(live), diff: diff, still: still, answered: 0 };
})()`

// liveShows is the most pixels the live view may differ by from the
// still picture (liveJS's diff) to show the same screen.
const liveShows = 12

// ownerInputShows makes the owner's input on the page (input: a click
// the page's script posts) and fails unless the live view shows the
// screen the input made within a second of the box's answer to it.
func (bt *browserTab) ownerInputShows(t *testing.T, what string, input func()) {
	t.Helper()
	if _, err := run(bt, chromedp.Evaluate[any](liveJS)); err != nil {
		t.Fatalf("the test's page helpers: %v", err)
	}
	settled := `(async () => { const L = window.liveTest; const d = L.diff(L.px(), await L.still()); L.before = L.px(); L.answered = 0; return d <= ` + strconv.Itoa(liveShows) + `; })()`
	for deadline := time.Now().Add(wait); ; {
		ok, err := run(bt, chromedp.Evaluate[bool](settled, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("before %s: %v", what, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("before %s the live view never showed the screen", what)
		}
	}
	input()
	if err := bt.until(`window.liveTest.answered > 0`); err != nil {
		t.Fatalf("the box did not answer the owner's %s: %v", what, err)
	}
	// The screen the input made is the still picture after the answer;
	// the live view must show it (and so differ from before) within 1 s.
	shown := `(async () => {
		const L = window.liveTest, want = await L.still();
		let d = 0, moved = 0;
		while (performance.now() - L.answered < 1000) {
			const now = L.px();
			d = L.diff(now, want); moved = L.diff(now, L.before);
			if (d <= ` + strconv.Itoa(liveShows) + ` && moved > ` + strconv.Itoa(liveShows) + `) return {ms: performance.now() - L.answered, d: d, moved: moved};
			await new Promise((r) => setTimeout(r, 20));
		}
		return {ms: -1, d: d, moved: moved};
	})()`
	var got struct {
		MS       float64
		D, Moved float64
	}
	raw, err := run(bt, chromedp.Evaluate[[]byte](shown, chromedp.EvalAwaitPromise))
	if err == nil {
		err = json.Unmarshal(raw, &got)
	}
	if err != nil {
		t.Fatalf("after the owner's %s: %v", what, err)
	}
	if got.MS < 0 {
		t.Fatalf("1 s after the box answered the owner's %s the live view differs from the screen in %.0f pixels and from before the input in %.0f: it shows an older picture", what, got.D, got.Moved)
	}
	t.Logf("the live view showed the owner's %s %.0f ms after the box answered it (%.0f pixels from the screen, %.0f from before)", what, got.MS, got.D, got.Moved)
}

// testLive: the live view follows an agent's tap within a second, Take
// over stops the agent, and the owner's tap on the live view opens an
// app on the phone.
func testLive(t *testing.T, bt *browserTab, c *sdk.Client) {
	bt.open(t, "/status")
	if bt.count(t, "img#phone-live") != 1 {
		t.Fatal("Status has no img#phone-live (the live view's DOM hook)")
	}
	ctx := context.Background()
	home := func() {
		t.Helper()
		if _, err := c.Button(ctx, "home", nil); err != nil {
			t.Fatalf("home: %v", err)
		}
	}

	t.Run("agent-tap-within-1s", func(t *testing.T) {
		home()
		r, m := findOne(t, c, "Notes")
		bt.open(t, "/status")
		// The page loads with the still picture and its script turns the
		// image into the stream: wait for the stream and a settled picture,
		// so what changes next is the tap, not the switch.
		if err := bt.until(`document.getElementById("phone-live").src.includes("/status/live.mjpeg")`); err != nil {
			t.Fatalf("the live view never became the stream: %v", err)
		}
		before := bt.liveShot(t)
		for settled := time.Now().Add(wait); ; {
			next := bt.liveShot(t)
			if bytes.Equal(next, before) {
				break
			}
			if time.Now().After(settled) {
				t.Fatal("the live view keeps changing on a still phone")
			}
			before = next
		}
		// An owner watches a still phone before an agent acts: let the
		// stream idle longer than the box's 10 s write timeout for a
		// picture (over HTTP/2 an expired write deadline reset the idle
		// stream, and the view froze on its last picture). The wait is the
		// condition under test, not a wait for an outcome.
		// The served sim's status bar shows the real minute: start the
		// still window just after a minute turns, so its clock cannot
		// change inside it (that made this check fail about one run in six).
		if sec := time.Now().Second(); sec > 45 {
			time.Sleep(time.Duration(62-sec) * time.Second) // real wait: the sim's status bar shows the real minute
			before = bt.liveShot(t)
		}
		time.Sleep(11 * time.Second) // real wait: a real browser on a real HTTP/2 stream, past the box's write timeout
		if !bytes.Equal(bt.liveShot(t), before) {
			t.Fatal("the live view changed on a still phone")
		}
		if src, err := run(bt, chromedp.Evaluate[string](`document.getElementById("phone-live").src`)); err != nil || !strings.Contains(src, "/status/live.mjpeg") {
			t.Fatalf("after 11 s on a still phone the live view shows %q (%v), not the stream", src, err)
		}
		if _, err := c.Tap(ctx, sdk.Frame{ID: r.FrameID, Epoch: r.GeometryEpoch}, m.CenterX, m.CenterY, nil); err != nil {
			t.Fatalf("tap Notes: %v", err)
		}
		tapped := time.Now()
		for {
			if !bytes.Equal(bt.liveShot(t), before) {
				break
			}
			if time.Since(tapped) > time.Second {
				t.Fatalf("the live view did not change within 1 s of the agent's tap")
			}
		}
		t.Logf("the live view changed %v after the agent's tap answered", time.Since(tapped).Round(time.Millisecond))
		home()
	})

	t.Run("take-over", func(t *testing.T) {
		if res, err := c.Control(ctx, "acquire"); err != nil {
			t.Fatalf("acquire: %v %+v", err, res)
		}
		bt.open(t, "/status")
		bt.waitText(t, "#control-holder", "browser script")
		bt.submit(t, `form#take-over button[type=submit]`)
		if _, err := c.Key(ctx, "a", nil, nil); err == nil {
			t.Fatal("the agent's key went through after the owner took over")
		}
		bt.open(t, "/status")
		if got := bt.text(t, "#control-holder"); bytes.Contains([]byte(got), []byte("browser script")) {
			t.Fatalf("after Take over, #control-holder still says %q", got)
		}
	})

	t.Run("owner-tap-opens-app", func(t *testing.T) {
		_, m := findOne(t, c, "Notes") // the agent is home from the first step
		bt.open(t, "/status")
		bt.tapLive(t, m.CenterX, m.CenterY)
		findOne(t, c, "Done") // Notes' bar: the app is open, as the client sees it
		bt.open(t, "/status")
		bt.submit(t, `form[action="/status/resume"] button`) // Give control back (and lift the pause)
		bt.waitText(t, "#control-holder", "Nobody holds control")
	})

	// The owner's own input showed in Chromium one picture late (the
	// screen before it) until the next change: the stream sent a
	// picture's boundary but not the next part's headers, which Chromium
	// waits for before it shows a part.
	t.Run("owner-input-within-1s", func(t *testing.T) {
		home()
		_, m := findOne(t, c, "Notes")
		if _, err := c.Control(ctx, "release"); err != nil { // the owner's input takes control
			t.Fatalf("release: %v", err)
		}
		bt.open(t, "/status")
		if err := bt.until(`document.getElementById("phone-live").src.includes("/status/live.mjpeg")`); err != nil {
			t.Fatalf("the live view never became the stream: %v", err)
		}
		click := func(js string) func() {
			return func() {
				t.Helper()
				if _, err := run(bt, chromedp.Evaluate[any](js)); err != nil {
					t.Fatalf("%s: %v", js, err)
				}
			}
		}
		bt.ownerInputShows(t, "tap on Notes", func() { bt.tapLive(t, m.CenterX, m.CenterY) })
		bt.ownerInputShows(t, "typing", click(`(() => { document.getElementById("owner-text").value = "live"; document.querySelector("#owner-type button:not([name])").click(); })()`))
		bt.ownerInputShows(t, "Home", click(`document.querySelector("form.owner-buttons button[data-button=home]").click()`))
		bt.open(t, "/status")
		bt.submit(t, `form[action="/status/give-back"] button`) // the owner's input took control
		bt.waitText(t, "#control-holder", "Nobody holds control")
	})
}
