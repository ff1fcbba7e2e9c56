//go:build browser

package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// widths are the viewport widths every page is checked and shot at: a
// phone's (390 CSS px, as an iPhone 12-15 shows pages) and a laptop's.
var widths = []int64{390, 1280}

// page is one box page the suite checks: where it is and how a browser
// gets there.
type page struct {
	name string // the screenshot's file name stem
	path string // GET path; empty when reach opens it
	// reach, when set, brings the tab to the page (a form's answer) instead
	// of a GET of path.
	reach func(t *testing.T, bt *browserTab)
	// anon: a visitor without a session (a fresh browser context).
	anon bool
}

// shotFolder makes out/browser-shots at the repository's root (the
// integration package's parent), empty (no shot of an earlier run stays),
// and returns it.
func shotFolder(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, shotsDir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// overflow is what the page measures of its own width.
type overflow struct {
	ScrollWidth int      `json:"scrollWidth"`
	ClientWidth int      `json:"clientWidth"`
	Offenders   []string `json:"offenders"`
}

// measureJS measures the document's width against the viewport's and
// names the elements that stick out: those whose right edge passes the
// viewport while their parent's does not (the outermost one of each
// overflowing branch), as tag#id.class "text…" with their right edge.
const measureJS = `(() => {
  const de = document.documentElement;
  const cw = de.clientWidth;
  const out = {scrollWidth: de.scrollWidth, clientWidth: cw, offenders: []};
  if (de.scrollWidth <= cw) return out;
  const right = el => el.getBoundingClientRect().right + window.scrollX;
  for (const el of document.body.querySelectorAll("*")) {
    if (right(el) <= cw + 0.5) continue;
    const p = el.parentElement;
    if (p && p !== document.body && right(p) > cw + 0.5) continue;
    let d = el.tagName.toLowerCase();
    if (el.id) d += "#" + el.id;
    for (const c of el.classList) d += "." + c;
    const txt = (el.innerText || el.getAttribute("src") || "").replace(/\s+/g, " ").trim().slice(0, 60);
    out.offenders.push(d + (txt ? " \"" + txt + "\"" : "") + " ends at " + Math.round(right(el)) + "px");
    if (out.offenders.length === 5) break;
  }
  return out;
})()`

// measure runs measureJS in the tab's page.
func (bt *browserTab) measure() (overflow, error) {
	raw, err := run(bt, chromedp.Evaluate[[]byte](measureJS))
	if err != nil {
		return overflow{}, err
	}
	var o overflow
	err = json.Unmarshal(raw, &o)
	return o, err
}

// minPadding is the least padding, in CSS px, a card keeps between its
// border and its text on either side: text against the border reads as
// cut off.
const minPadding = 8

// layoutJS checks every card (main .card) the way a reader sees it: the
// card keeps at least minPadding px of padding left and right, and its
// headings and code blocks (h1, h2, h3, pre) lie inside its content box,
// one below the other in document order (none beside or above the one
// before it). It returns the faults, each naming the element as
// tag#id.class "text…" (at most 8). A card rule meant for one page that
// also matched another page's cards (a flex row of headings and code
// blocks, no padding) broke Connect this way while every page passed the
// overflow check.
const layoutJS = `(() => {
  const faults = [];
  const px = v => parseFloat(v) || 0;
  const name = el => {
    let d = el.tagName.toLowerCase();
    if (el.id) d += "#" + el.id;
    for (const c of el.classList) d += "." + c;
    const txt = (el.innerText || "").replace(/\s+/g, " ").trim().slice(0, 40);
    return d + (txt ? " \"" + txt + "\"" : "");
  };
  for (const card of document.querySelectorAll("main .card")) {
    if (!card.getClientRects().length) continue;
    const cs = getComputedStyle(card), r = card.getBoundingClientRect();
    const padL = px(cs.paddingLeft), padR = px(cs.paddingRight);
    if (padL < MIN || padR < MIN) {
      faults.push(name(card) + ": padding " + padL + " px left, " + padR + " px right, want at least MIN px");
    }
    const box = {
      left: r.left + px(cs.borderLeftWidth) + padL, right: r.right - px(cs.borderRightWidth) - padR,
      top: r.top + px(cs.borderTopWidth) + px(cs.paddingTop), bottom: r.bottom - px(cs.borderBottomWidth) - px(cs.paddingBottom),
    };
    let prev = null;
    for (const el of card.querySelectorAll("h1, h2, h3, pre")) {
      if (el.closest(".card") !== card || !el.getClientRects().length) continue;
      const e = el.getBoundingClientRect();
      if (e.left < box.left - 0.5 || e.right > box.right + 0.5 || e.top < box.top - 0.5 || e.bottom > box.bottom + 0.5) {
        faults.push(name(el) + " at x " + Math.round(e.left) + "-" + Math.round(e.right) + " is outside its card's content box (x " + Math.round(box.left) + "-" + Math.round(box.right) + ")");
      }
      if (prev && e.top < prev.r.bottom - 0.5) {
        faults.push(name(el) + " sits beside or above " + name(prev.el) + " (top " + Math.round(e.top) + " px, the one before ends at " + Math.round(prev.r.bottom) + " px)");
      }
      prev = {el: el, r: e};
    }
    if (faults.length >= 8) break;
  }
  return faults.slice(0, 8);
})()`

// layoutFaults runs layoutJS in the tab's page.
func (bt *browserTab) layoutFaults() ([]string, error) {
	js := strings.ReplaceAll(layoutJS, "MIN", strconv.Itoa(minPadding))
	raw, err := run(bt, chromedp.Evaluate[[]byte](js))
	if err != nil {
		return nil, err
	}
	var faults []string
	err = json.Unmarshal(raw, &faults)
	return faults, err
}

// viewport sets the tab's width (a phone's is a mobile viewport, which
// honours the page's viewport meta and has overlay scrollbars).
func (bt *browserTab) viewport(width int64) error {
	height := int64(900)
	if width < 600 {
		height = 844
	}
	_, err := chromedp.Call(bt.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: width, Height: height, DeviceScaleFactor: 1, Mobile: width < 600,
	})
	return err
}

// shootPage opens p at every width, with and without JavaScript, fails
// the test if the document is wider than the viewport (naming what sticks
// out) or a card's layout is broken (layoutJS), and writes each screenshot to shots/<name>-<width>[-nojs].png.
func shootPage(t *testing.T, owner *browserTab, shots string, p page) {
	t.Helper()
	bt := owner
	if p.anon {
		bt = owner.newContext(t)
	}
	for _, js := range []bool{true, false} {
		if err := bt.setScript(js); err != nil {
			t.Fatal(err)
		}
		for _, w := range widths {
			name := fmt.Sprintf("%s-%d", p.name, w)
			if !js {
				name += "-nojs"
			}
			if err := bt.viewport(w); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if p.reach != nil {
				p.reach(t, bt)
			} else {
				bt.open(t, p.path)
			}
			o, err := bt.measure()
			if err != nil {
				t.Fatalf("%s: measure: %v", name, err)
			}
			if o.ClientWidth != int(w) {
				t.Errorf("%s: the viewport is %d px wide, want %d", name, o.ClientWidth, w)
			}
			if o.ScrollWidth > o.ClientWidth {
				t.Errorf("%s (%s): the page is %d px wide in a %d px viewport; sticking out: %s",
					name, bt.path(t), o.ScrollWidth, o.ClientWidth, strings.Join(o.Offenders, "; "))
			}
			if faults, err := bt.layoutFaults(); err != nil {
				t.Fatalf("%s: layout: %v", name, err)
			} else if len(faults) > 0 {
				t.Errorf("%s (%s): the cards' layout is broken: %s", name, bt.path(t), strings.Join(faults, "; "))
			}
			png, err := run(bt, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("%s: screenshot: %v", name, err)
			}
			if !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Fatalf("%s: the screenshot is not a PNG", name)
			}
			if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d px of %d, shot in %v", name, o.ScrollWidth, o.ClientWidth, time.Since(start).Round(time.Millisecond))
		}
	}
	if err := bt.setScript(true); err != nil {
		t.Fatal(err)
	}
	if err := bt.viewport(1280); err != nil {
		t.Fatal(err)
	}
}

// testOverflowCheck shows the overflow check can fail: a page with a
// too-wide element is measured as overflowing, with that element named,
// and a page without one is not.
func testOverflowCheck(t *testing.T, bt *browserTab) {
	tab := bt.newContext(t)
	if err := tab.viewport(390); err != nil {
		t.Fatal(err)
	}
	wide := `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><main><p>fits</p><div class="wide" style="width:600px">too wide</div></main>`
	if err := tab.do(chromedp.Navigate("data:text/html," + url.PathEscape(wide))); err != nil {
		t.Fatal(err)
	}
	o, err := tab.measure()
	if err != nil {
		t.Fatal(err)
	}
	if o.ScrollWidth <= o.ClientWidth || len(o.Offenders) != 1 || !strings.HasPrefix(o.Offenders[0], `div.wide "too wide"`) {
		t.Fatalf("a 600 px div in a 390 px viewport measured as %+v, want it named as overflowing", o)
	}
	fits := `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><main><p>fits</p></main>`
	if err := tab.do(chromedp.Navigate("data:text/html," + url.PathEscape(fits))); err != nil {
		t.Fatal(err)
	}
	if o, err := tab.measure(); err != nil || o.ScrollWidth > o.ClientWidth || o.ClientWidth != 390 {
		t.Fatalf("a page that fits measured as %+v (%v)", o, err)
	}

	// Without JavaScript a page's own script does not run (the -nojs
	// shots are what a browser without it shows).
	script := `<!doctype html><main id="m">static</main><script>document.getElementById("m").textContent = "scripted"</script>`
	for _, js := range []bool{true, false} {
		if err := tab.setScript(js); err != nil {
			t.Fatal(err)
		}
		if err := tab.do(chromedp.Navigate("data:text/html," + url.PathEscape(script))); err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "scripted", false: "static"}[js]
		if got := tab.text(t, "#m"); got != want {
			t.Fatalf("JavaScript %v: the page says %q, want %q", js, got, want)
		}
	}
}

// testLayoutCheck shows the layout check can fail: a card laid out as a
// wrapping flex row without padding (what broke Connect) is measured as
// faulty, with its heading and code block named, and a plain card is not.
func testLayoutCheck(t *testing.T, bt *browserTab) {
	tab := bt.newContext(t)
	for _, w := range widths {
		if err := tab.viewport(w); err != nil {
			t.Fatal(err)
		}
		const head = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><style>.card{border:1px solid #888;padding:1em}</style><main>`
		const body = `<h2>Claude Code</h2><h3>Through the bridge</h3><p>shell</p><pre>claude mcp add openlolo -- openlolo mcp</pre><h3>Remote</h3><pre>claude mcp add --transport http</pre></section></main>`
		broken := head + `<section class="card" style="display:flex;flex-wrap:wrap;justify-content:space-between;padding:0.7em 0">` + body
		if err := tab.do(chromedp.Navigate("data:text/html," + url.PathEscape(broken))); err != nil {
			t.Fatal(err)
		}
		faults, err := tab.layoutFaults()
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(faults, "; ")
		if !strings.Contains(all, "padding 0 px left") || !strings.Contains(all, "sits beside or above") {
			t.Fatalf("at %d px a card in a flex row without padding measured as %q, want its padding and a heading beside another named", w, faults)
		}
		if err := tab.do(chromedp.Navigate("data:text/html," + url.PathEscape(head+`<section class="card">`+body))); err != nil {
			t.Fatal(err)
		}
		if faults, err := tab.layoutFaults(); err != nil || len(faults) > 0 {
			t.Fatalf("at %d px a plain card measured as %q (%v), want no faults", w, faults, err)
		}
	}
}

// testPages checks and shoots every page of the box, logged in where the
// page needs it (claim is shot before the claim, in TestBrowser).
func testPages(t *testing.T, bt *browserTab, shots string, extra []page) {
	consent := consentPath(t, bt.box)
	pages := []page{
		{name: "login", path: "/login", anon: true},
		{name: "status", path: "/status"},
		{name: "access", path: "/access"},
		{name: "access-revoke", reach: func(t *testing.T, bt *browserTab) {
			bt.open(t, "/access")
			bt.submit(t, `div.client form[action="/access/revoke"] button`)
			bt.waitText(t, "main h1", "Revoke")
		}},
		{name: "activity", path: "/activity"},
		{name: "connect", path: "/connect"},
		{name: "settings", path: "/settings"},
		{name: "authorize", path: consent},
		{name: "message", path: "/oauth/authorize?client_id=not-registered"},
	}
	pages = append(pages, helpPages(t, bt)...)
	pendingRequest(t, bt)
	pages = append(pages, extra...)
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) { shootPage(t, bt, shots, p) })
	}
}

// consentPath registers an app as an MCP client would (RFC 7591, a
// loopback redirect) and returns the path of its consent page.
func consentPath(t *testing.T, b *servedBox) string {
	t.Helper()
	body := `{"client_name":"Browser suite app","redirect_uris":["http://127.0.0.1:9/callback"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, b.URL+"/oauth/register", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := b.Pinned.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&reg); err != nil || res.StatusCode != http.StatusCreated || reg.ClientID == "" {
		t.Fatalf("register an app: status %d, %+v, %v", res.StatusCode, reg, err)
	}
	sum := sha256.Sum256([]byte("browser-suite-verifier-0123456789abcdef0123456789"))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {reg.ClientID},
		"redirect_uri":          {"http://127.0.0.1:9/callback"},
		"scope":                 {"phone:read phone:control"},
		"state":                 {"browser-suite"},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"resource":              {b.URL + "/mcp"},
	}
	return "/oauth/authorize?" + q.Encode()
}

// pendingRequest leaves a device request waiting, with a long client
// name, so Access is shot with a request at both widths.
func pendingRequest(t *testing.T, bt *browserTab) {
	t.Helper()
	res, body, err := fetch(bt.box.Pinned, http.MethodPost, bt.box.URL+"/oauth/device_authorization", url.Values{
		"client_name": {"Nightly regression runner on the build server"}, "scope": {"phone:read phone:control"},
	})
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a device request: %v %s", err, body)
	}
}

// helpPages are the phone help's index and every walkthrough it links to
// (read from the index, so a new topic is checked without a change here).
func helpPages(t *testing.T, bt *browserTab) []page {
	t.Helper()
	bt.open(t, "/help")
	raw, err := run(bt, chromedp.Evaluate[[]byte](`[...new Set([...document.querySelectorAll("main a[href^='/help/']")].map(a => a.getAttribute("href")))]`))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	if err := json.Unmarshal(raw, &paths); err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("the help index links to no walkthrough")
	}
	pages := []page{{name: "help", path: "/help"}}
	for _, p := range paths {
		pages = append(pages, page{name: "help-" + strings.TrimPrefix(p, "/help/"), path: p})
	}
	return pages
}
