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
	if res.StatusCode != 200 || !strings.Contains(ownertest.Text(body), "Phone control is paused by you (the owner) since") {
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
	if !strings.Contains(ownertest.Text(body), "by you (the owner)") {
		t.Fatalf("Status after the client's resume: %s", ownertest.Text(body))
	}

	res, body = ownertest.PostForm(t, tb.Owner, tb.URL, "/status/resume", url.Values{"csrf": {tok}})
	if res.StatusCode != 200 || !strings.Contains(body, "Pause phone control") {
		t.Fatalf("owner's resume: %d %s", res.StatusCode, ownertest.Text(body))
	}
	if _, err := c.Key(ctx, "a", nil, nil); err != nil {
		t.Fatalf("key after the owner's resume: %v", err)
	}
	_, body = ownertest.Get(t, tb.Owner, tb.URL, "/activity")
	text := ownertest.Text(body)
	for _, want := range []string{"owner paused phone control; only the owner can resume", "owner resumed phone control", "openlolo_control"} {
		if !strings.Contains(text, want) {
			t.Errorf("Activity lacks %q: %s", want, text)
		}
	}
}
