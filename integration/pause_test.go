package integration

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/sdk"
)

// The owner's pause survives a client's resume, end to end: the owner
// presses Pause phone control on the real Status page, a paired SDK client
// holding control calls openlolo_control command=resume over MCP and gets
// PAUSED with a next step naming the owner, Status says the owner paused
// and when, and Activity lists the owner's pause and resume.
func TestOwnerPauseSurvivesClientResume(t *testing.T) {
	tb := startBox(t, "", false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.Control(ctx, "acquire"); err != nil {
		t.Fatalf("acquire: %v %+v", err, res)
	}

	tok := ownertest.CSRF(t, tb.Owner, tb.URL)
	res, body := ownertest.PostForm(t, tb.Owner, tb.URL, "/status/pause", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || !strings.Contains(ownertest.FullText(body), "Phone control is paused by you (the owner) since") {
		t.Fatalf("pause: %d %s", res.StatusCode, ownertest.Text(body))
	}

	r, err := c.Control(ctx, "resume")
	if err == nil || r == nil || r.Outcome.Error == nil || r.Outcome.Error.Code != api.CodePaused {
		t.Fatalf("client's resume after the owner's pause: %v %+v, want PAUSED", err, r)
	}
	if steps := strings.Join(r.Outcome.Error.NextSteps, " "); !strings.Contains(steps, "owner") {
		t.Fatalf("PAUSED next steps do not name the owner: %q", steps)
	}
	if _, err := c.Key(ctx, "a", nil, nil); err == nil {
		t.Fatal("a key went through while the owner's pause held")
	}
	_, body = ownertest.Get(t, tb.Owner, tb.URL, "/status")
	if !strings.Contains(ownertest.FullText(body), "by you (the owner)") {
		t.Fatalf("Status after the client's resume: %s", ownertest.Text(body))
	}

	res, body = ownertest.PostForm(t, tb.Owner, tb.URL, "/status/resume", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || !strings.Contains(body, "Pause phone control") {
		t.Fatalf("owner's resume: %d %s", res.StatusCode, ownertest.Text(body))
	}
	if _, err := c.Key(ctx, "a", nil, nil); err != nil {
		t.Fatalf("key after the owner's resume: %v", err)
	}
	if _, err := c.TypeText(ctx, "my secret words", nil); err != nil {
		t.Fatalf("type_text after the owner's resume: %v", err)
	}
	_, body = ownertest.Get(t, tb.Owner, tb.URL, "/activity")
	for _, want := range []string{
		"paused phone control; only the owner can resume", "resumed phone control", // the owner's, and who
		"<td>owner</td>", "approved “e2e script”", "claimed the box from 127.0.0.1", // owner actions
		"<code>openlolo_control</code></td>\n      <td>command resume</td>", // the refused resume, with its code
		"<code>PAUSED</code>", "<code>openlolo_key</code></td>\n      <td>key a</td>",
		"15 characters typed", // typed text as its length
	} {
		if !strings.Contains(body, want) {
			t.Errorf("Activity lacks %q", want)
		}
	}
	if strings.Contains(body, "secret words") {
		t.Error("Activity shows the typed text")
	}
	if t.Failed() {
		t.Log(body)
	}
}

// A run named through the Go SDK (sdk.WithRun, _meta "openlolo.mcp".run)
// is kept by the journal, carried by openlolo_watch's operation events,
// and grouped under its title on Activity, which filters by it.
func TestRunInActivityAndWatch(t *testing.T) {
	tb := startBox(t, "", false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, "", 1, []string{"operation"})
	if err != nil {
		t.Fatal(err)
	}
	start, err := sdk.Decode[api.WatchResult](w)
	if err != nil {
		t.Fatal(err)
	}
	rctx, run := sdk.WithRun(ctx, "Nightly Notes smoke test")
	if _, err := c.Key(rctx, "a", nil, nil); err != nil {
		t.Fatalf("key in the run: %v", err)
	}
	if _, err := c.Key(ctx, "b", nil, nil); err != nil { // outside the run
		t.Fatalf("key outside the run: %v", err)
	}
	w, err = c.Watch(ctx, start.Cursor, 1, []string{"operation"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := sdk.Decode[api.WatchResult](w)
	if err != nil {
		t.Fatal(err)
	}
	var inRun, outside int
	for _, e := range evs.Events {
		switch {
		case e.Operation == nil:
		case e.Operation.Run != nil && *e.Operation.Run == run:
			inRun++
		case e.Operation.Run == nil:
			outside++
		default:
			t.Errorf("operation event with another run: %+v", e.Operation.Run)
		}
	}
	if inRun < 2 || outside < 2 { // queued, dispatched, succeeded each
		t.Fatalf("watch: %d events in the run, %d outside; want each key's states: %+v", inRun, outside, evs.Events)
	}
	_, body := ownertest.Get(t, tb.Owner, tb.URL, "/activity")
	if !strings.Contains(body, `<tr class="run">`) || !strings.Contains(body, "Nightly Notes smoke test") {
		t.Fatalf("Activity does not group the run under its title:\n%s", body)
	}
	_, body = ownertest.Get(t, tb.Owner, tb.URL, "/activity?run="+url.QueryEscape(run.ID))
	if n := strings.Count(body, "<td class=\"outcome-"); n != 1 || !strings.Contains(body, "key a") || strings.Contains(body, "key b") {
		t.Fatalf("Activity filtered by the run lists %d rows:\n%s", n, ownertest.Text(body))
	}
}
