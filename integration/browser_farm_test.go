//go:build browser

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openlolo/openlolo/api"
)

// farmPhones are the phones of the farm step's box (serve --sims 3).
var farmPhones = []string{"sim-1", "sim-2", "sim-3"}

// testFarm: the owner's pages on a box of several phones, on a box of its
// own (serve --sims 3) in a chromium of its own (the browser trusts one
// box's pin). Status lists every phone and shows the chosen one live,
// Activity names the phone a call went to, and Access shows which phones
// a grant reaches and offers them on a request; each page is checked and
// shot as testPages does, as farm-*.png.
func testFarm(t *testing.T, shots string) {
	b, setupCode := startServeArgs(t, "--phone", "sim", "--sim-size", "390x844", "--sims", "3")
	bt := startBrowser(t, b)
	testClaim(t, bt, setupCode)
	// The script may use sim-1 and sim-2, not sim-3.
	c := testApproveScript(t, bt, filepath.Join(t.TempDir(), "boxes.json"), "sim-3")
	if _, err := c.CallTool(context.Background(), string(api.ToolButton), map[string]any{"phone": "sim-2", "button": "home"}); err != nil {
		t.Fatalf("home on sim-2: %v", err)
	}
	// Launching Settings is one of a new grant's marked apps: the call
	// waits for the owner, as an ask naming sim-2, left waiting for the
	// shots (Status lists it, and it has a page of its own).
	r, err := c.Mutate(context.Background(), string(api.ToolLaunchApp), map[string]any{"phone": "sim-2", "bundle_id": "com.apple.Preferences"})
	if r == nil || r.Status() != string(api.StatusPending) {
		t.Fatalf("launching Settings on sim-2: %v %+v, want an ask (pending)", err, r)
	}
	raw, _ := json.Marshal(r.Structured["ask"])
	var ask struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(raw, &ask); err != nil || ask.URL == "" {
		t.Fatalf("the answer carries no ask url: %s", raw)
	}
	askURL, err := url.Parse(ask.URL)
	if err != nil {
		t.Fatalf("ask.url %q: %v", ask.URL, err)
	}
	liCount := func(sel string) int {
		t.Helper()
		return bt.count(t, "section#phones ul.phones > li"+sel)
	}

	t.Run("status", func(t *testing.T) {
		bt.open(t, "/status")
		bt.waitText(t, "section#phones h1", fmt.Sprintf("Phones (%d)", len(farmPhones)))
		if n := liCount(""); n != len(farmPhones) {
			t.Errorf("Status lists %d phones, want %d", n, len(farmPhones))
		}
		for _, id := range farmPhones {
			li := fmt.Sprintf(`section#phones li[data-phone=%q]`, id)
			bt.waitText(t, li+" a.name", id)
			if bt.count(t, li+" img[src*='screen.jpg']") != 1 {
				t.Errorf("Status shows no still picture of %s", id)
			}
		}
		bt.waitText(t, "form.ask .ask-phone", "sim-2")
		farmLive(t, bt, "sim-1") // the first phone, when the page names none
		shootPage(t, bt, shots, page{name: "farm-status", path: "/status"})
	})

	t.Run("status-phone2", func(t *testing.T) {
		bt.open(t, "/status?phone=sim-2")
		bt.waitText(t, "#phone-id", "sim-2")
		if liCount(".shown") != 1 || liCount(`.shown[data-phone="sim-2"]`) != 1 {
			t.Errorf("the list does not mark sim-2, and only it, as the one shown")
		}
		farmLive(t, bt, "sim-2")
		shootPage(t, bt, shots, page{name: "farm-status-phone2", path: "/status?phone=sim-2"})
	})

	t.Run("activity", func(t *testing.T) {
		bt.open(t, "/activity")
		row := `[...document.querySelectorAll("main tr")].some(tr => tr.innerText.includes("openlolo_button") && tr.innerText.includes("sim-2"))`
		if err := bt.until(row); err != nil {
			t.Errorf("no Activity row names sim-2 with the script's openlolo_button: %v", err)
		}
		bt.open(t, "/activity?phone=sim-2")
		if err := bt.until(row); err != nil {
			t.Errorf("Activity filtered to sim-2 does not show its call: %v", err)
		}
		shootPage(t, bt, shots, page{name: "farm-activity", path: "/activity"})
	})

	t.Run("access", func(t *testing.T) {
		pendingRequest(t, bt)
		bt.open(t, "/access")
		bt.waitText(t, "div.client dd.grant-phones", "sim-1, sim-2")
		if got := bt.text(t, "div.client dd.grant-phones"); strings.Contains(got, "sim-3") {
			t.Errorf("Access says the grant reaches %q, want sim-1 and sim-2 only", got)
		}
		if n := bt.count(t, `div.request fieldset.grant-phones input[type=checkbox][name=phone]`); n != len(farmPhones) {
			t.Errorf("the request's approval offers %d phones, want %d", n, len(farmPhones))
		}
		shootPage(t, bt, shots, page{name: "farm-access", path: "/access"})
	})

	t.Run("ask", func(t *testing.T) {
		bt.open(t, askURL.RequestURI())
		bt.waitText(t, "#ask-phone", "sim-2")
		shootPage(t, bt, shots, page{name: "farm-ask", path: askURL.RequestURI()})
	})

	t.Run("authorize", func(t *testing.T) {
		shootPage(t, bt, shots, page{name: "farm-authorize", path: consentPath(t, b)})
	})
}

// farmLive fails unless the Status page's live view is phone id's stream
// showing a picture: its URL's phone parameter is exactly id (a cache
// buster glued on with a second "?" made it "sim-2?t=…", a phone the box
// does not have, and the view stayed black) and the image has pixels.
func farmLive(t *testing.T, bt *browserTab, id string) {
	t.Helper()
	cond := fmt.Sprintf(`(() => { const i = document.getElementById("phone-live"), u = new URL(i.src);
		return i.dataset.phone === %[1]q && u.pathname === "/status/live.mjpeg" && u.searchParams.get("phone") === %[1]q && i.complete && i.naturalWidth > 0; })()`, id)
	if err := bt.until(cond); err != nil {
		src, _ := run(bt, chromedp.Evaluate[string](`(() => { const i = document.getElementById("phone-live"); return i.src + " (" + i.naturalWidth + " px wide)"; })()`))
		t.Errorf("the live view is not %s's stream with a picture: it shows %s (%v)", id, src, err)
	}
}
