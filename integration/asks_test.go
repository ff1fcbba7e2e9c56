package integration

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/sdk"
)

// TestAsksEndToEnd: through the real HTTPS endpoint, a paired Go client
// launches Settings (a new box asks about it) and gets an
// *sdk.AskPendingError; the owner sees the ask on Status, allows it on
// its page, and the same call with the same operation_id runs once (the
// third call is the recorded answer). Marked in Settings, opening a URL
// asks too; the owner denies it from Access and the retry is ASK_DENIED,
// with nothing sent. Activity records the asks as the owner's.
func TestAsksEndToEnd(t *testing.T) {
	tb := startBox(t, "", false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	obs := false
	opts := &sdk.InputOptions{Observe: &obs}

	_, err = c.LaunchApp(ctx, "com.apple.Preferences", opts)
	ask, ok := sdk.IsAskPending(err)
	if !ok {
		t.Fatalf("launching Settings: %v, want an AskPendingError", err)
	}
	if !strings.HasPrefix(ask.Ask.URL, tb.URL+"/asks/") || ask.OperationID == "" {
		t.Fatalf("ask %+v, want its page on the entry the client called (%s)", ask, tb.URL)
	}
	if tb.Sim.Screen() == "settings" {
		t.Fatal("Settings opened before the owner allowed it")
	}
	_, status := ownertest.Get(t, tb.Owner, tb.URL, "/status")
	if !strings.Contains(status, `data-ask-id="`+ask.Ask.ID+`"`) {
		t.Fatalf("Status does not show the ask: %s", ownertest.Text(status))
	}
	retry := &sdk.InputOptions{Observe: &obs, OperationID: ask.OperationID}
	if _, err := c.LaunchApp(ctx, "com.apple.Preferences", retry); !isAsk(err) {
		t.Fatalf("the retry before a decision: %v, want pending again", err)
	}
	tok := ownertest.CSRF(t, tb.Owner, tb.URL)
	u, _ := url.Parse(ask.Ask.URL)
	res, body := ownertest.PostForm(t, tb.Owner, tb.URL, u.Path, url.Values{"csrf": {tok}, "decision": {"allow"}})
	if res.StatusCode != 200 || !strings.Contains(body, `data-state="allowed"`) {
		t.Fatalf("allow: %d %s", res.StatusCode, ownertest.Text(body))
	}
	r, err := c.LaunchApp(ctx, "com.apple.Preferences", retry)
	if err != nil || r.Outcome.Replayed || tb.Sim.Screen() != "settings" {
		t.Fatalf("after Allow: %v %+v, screen %s", err, r, tb.Sim.Screen())
	}
	if _, err := c.Button(ctx, "home", opts); err != nil {
		t.Fatal(err)
	}
	r, err = c.LaunchApp(ctx, "com.apple.Preferences", retry)
	if err != nil || !r.Outcome.Replayed || tb.Sim.Screen() == "settings" {
		t.Fatalf("the third call: %v %+v, screen %s; want the recorded answer and no second launch", err, r, tb.Sim.Screen())
	}

	// The owner marks opening URLs in Settings, then denies from Access.
	res, body = ownertest.PostForm(t, tb.Owner, tb.URL, "/settings/asks", url.Values{"csrf": {tok}, "shown": {"url"}, "ask": {"url"}})
	if res.StatusCode != 200 || !strings.Contains(body, "Saved.") {
		t.Fatalf("marking URLs: %d %s", res.StatusCode, ownertest.Text(body))
	}
	_, err = c.OpenURL(ctx, "https://example.com/denied?secret=1", opts)
	ask, ok = sdk.IsAskPending(err)
	if !ok {
		t.Fatalf("open_url after marking URLs: %v, want an ask", err)
	}
	_, access := ownertest.Get(t, tb.Owner, tb.URL, "/access")
	if !strings.Contains(access, `data-ask-id="`+ask.Ask.ID+`"`) {
		t.Fatalf("Access does not show the ask: %s", ownertest.Text(access))
	}
	res, body = ownertest.PostForm(t, tb.Owner, tb.URL, "/asks/"+ask.Ask.ID, url.Values{"csrf": {tok}, "decision": {"deny"}, "next": {"/access"}})
	if res.StatusCode != 200 || res.Request.URL.Path != "/access" || !strings.Contains(body, "Denied.") {
		t.Fatalf("deny: %d at %s: %s", res.StatusCode, res.Request.URL.Path, ownertest.Text(body))
	}
	typed := tb.Sim.URL()
	r, err = c.OpenURL(ctx, "https://example.com/denied?secret=1", &sdk.InputOptions{Observe: &obs, OperationID: ask.OperationID})
	if !errors.Is(err, sdk.ErrAskDenied) || r.Outcome.Dispatched == nil || *r.Outcome.Dispatched || tb.Sim.URL() != typed {
		t.Fatalf("after Deny: %v %+v; Safari at %q (was %q)", err, r, tb.Sim.URL(), typed)
	}

	_, act := ownertest.Get(t, tb.Owner, tb.URL, "/activity")
	for _, want := range []string{"e2e script asks to launch Settings (com.apple.Preferences)", "allowed e2e script to launch Settings",
		"denied e2e script to open https://example.com/denied (query left out)", "box-wide asks: opening URLs"} {
		if !strings.Contains(act, want) {
			t.Errorf("Activity lacks %q", want)
		}
	}
	if strings.Contains(act, "secret=1") {
		t.Error("Activity shows the URL's query")
	}
	if t.Failed() {
		t.Log(ownertest.Text(act))
	}
}

func isAsk(err error) bool { _, ok := sdk.IsAskPending(err); return ok }
