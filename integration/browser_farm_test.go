//go:build browser

package integration

import (
	"context"
	"fmt"
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
		shootPage(t, bt, shots, page{name: "farm-status", path: "/status"})
	})

	t.Run("status-phone2", func(t *testing.T) {
		bt.open(t, "/status?phone=sim-2")
		bt.waitText(t, "#phone-id", "sim-2")
		if liCount(".shown") != 1 || liCount(`.shown[data-phone="sim-2"]`) != 1 {
			t.Errorf("the list does not mark sim-2, and only it, as the one shown")
		}
		src, err := run(bt, chromedp.Evaluate[string](`(() => { const i = document.getElementById("phone-live"); return i.dataset.phone + " " + i.getAttribute("src"); })()`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(src, "sim-2 ") || !strings.Contains(src, "phone=sim-2") {
			t.Errorf("the live view of ?phone=sim-2 is %q, want sim-2's", src)
		}
		if err := bt.until(`document.getElementById("phone-live").src.includes("/status/live.mjpeg") && document.getElementById("phone-live").src.includes("phone=sim-2")`); err != nil {
			t.Errorf("the live view never became sim-2's stream: %v", err)
		}
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

	t.Run("authorize", func(t *testing.T) {
		shootPage(t, bt, shots, page{name: "farm-authorize", path: consentPath(t, b)})
	})
}
