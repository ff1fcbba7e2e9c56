package integration

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/sdk"
)

// controlOf is the box's lease as the client of store sees it.
func controlOf(t *testing.T, tb *testBox, store string) api.Lease {
	t.Helper()
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: &sdk.TokenStore{Path: store}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sdk.Decode[api.StatusResult](res)
	if err != nil {
		t.Fatal(err)
	}
	return st.Control
}

// Issue 22 items 2 and 11: after a one-shot `openlolo call` the client held
// control for 90 s (the next client got CONTROL_BUSY), and every input
// call left its observation as a JPEG in /tmp.
func TestCLICallGivesControlBack(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "one shot")

	ans := callJSON(t, store, 0, tb.URL, "openlolo_button", "button=home")
	if _, ok := ans["observation"]; !ok {
		t.Fatalf("the button's answer has no observation: %v", ans)
	}
	if p, ok := ans["image_file"]; ok {
		os.Remove(p.(string))
		t.Fatalf("an input call without --out saved its observation to %v", p)
	}
	if l := controlOf(t, tb, store); l.Held {
		t.Fatalf("after a one-shot call control is still held: %+v", l)
	}

	callJSON(t, store, 0, tb.URL, "openlolo_button", "button=home", "--keep-control", "observe=false")
	if l := controlOf(t, tb, store); !l.YouHold {
		t.Fatalf("--keep-control: control %+v, want held by this client", l)
	}
	// A read gives nothing back; the next input call (without the flag) does.
	callJSON(t, store, 0, tb.URL, "openlolo_status")
	if l := controlOf(t, tb, store); !l.YouHold {
		t.Fatalf("a read released control: %+v", l)
	}
	callJSON(t, store, 0, tb.URL, "openlolo_button", "button=home", "observe=false")
	if l := controlOf(t, tb, store); l.Held {
		t.Fatalf("control %+v after a call without --keep-control, want free", l)
	}
}

// Issue 22 item 6: --out wrote only the first page of a full page.
func TestCLIFullPageWritesEveryImage(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "full page")
	out := filepath.Join(t.TempDir(), "page.jpg")
	ans := callJSON(t, store, 0, tb.URL, "openlolo_full_page", "--out", out, "max_pages=3", "output=both", "settle=0")
	files, _ := ans["image_files"].([]any)
	pages, _ := ans["page_count"].(float64)
	if len(files) < 2 || len(files) != int(pages)+1 {
		t.Fatalf("image_files %v for %v pages and the stitched one: %v", files, pages, ans)
	}
	for i, f := range files {
		want := strings.TrimSuffix(out, ".jpg") + "-" + string(rune('1'+i)) + ".jpg"
		b, err := os.ReadFile(want)
		if f != want || err != nil || len(b) < 3 || b[0] != 0xFF || b[1] != 0xD8 {
			t.Errorf("image %d: listed %v, want %s holding a JPEG (%d bytes, %v)", i, f, want, len(b), err)
		}
	}
}

var waitingRE = regexp.MustCompile(`Waiting for the owner: they are asked to .* at (https://\S+) \(`)

// Issue 22 item 7: an answer waiting for the owner exited 3 (kept for
// "unreachable, wrong pin or grant gone"); it is 4, and --wait waits for
// the owner and sends the call again with the same operation_id.
func TestCLIAskExitAndWait(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "asker")

	ans := callJSON(t, store, 4, tb.URL, "openlolo_launch_app", "bundle_id=com.apple.Preferences", "observe=false")
	if ans["status"] != "pending" || tb.Sim.Screen() == "settings" {
		t.Fatalf("launching Settings: %v, screen %s; want pending and nothing launched", ans, tb.Sim.Screen())
	}
	_, errOut, _ := cli(t, store, "", "call", tb.URL, "openlolo_launch_app", "bundle_id=com.apple.Preferences", "observe=false")
	if !strings.Contains(errOut, "pending: ") || !strings.Contains(errOut, "--wait") {
		t.Fatalf("a pending answer's stderr %q: want what waits and --wait", errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, openloloBin(t), "call", tb.URL, "openlolo_launch_app", "bundle_id=com.apple.Preferences", "observe=false", "--wait")
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	var out strings.Builder
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
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		m := waitingRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		tok := ownertest.CSRF(t, tb.Owner, tb.URL)
		res, body := ownertest.PostForm(t, tb.Owner, tb.URL, u.Path, url.Values{"csrf": {tok}, "decision": {"allow"}})
		if res.StatusCode != 200 {
			t.Fatalf("allow: %d %s", res.StatusCode, ownertest.Text(body))
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("call --wait: %v\nstderr:\n%s\nstdout:\n%s", err, seen.String(), out.String())
	}
	if tb.Sim.Screen() != "settings" || !strings.Contains(out.String(), `"status": "ok"`) {
		t.Fatalf("after the owner allowed: screen %s, answer %s", tb.Sim.Screen(), out.String())
	}
	if l := controlOf(t, tb, store); l.Held {
		t.Fatalf("control %+v after call --wait, want given back", l)
	}
}
