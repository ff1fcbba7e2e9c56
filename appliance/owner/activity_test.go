package owner_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// Activity pages through the rows 50 at a time, filters by client,
// outcome and run, heads each run's group with its title, and says the
// retention.
func TestActivityFiltersAndPages(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var rows []owner.Activity
	for i := range 120 {
		a := owner.Activity{Time: t0.Add(-time.Duration(i) * time.Second), Client: "agent", Tool: "openlolo_tap", Outcome: "succeeded", Summary: fmt.Sprintf("at (0.%02d, 0.50)", i%100)}
		if i%3 == 0 {
			a.Client, a.Outcome, a.Code = "script", "failed", "PAUSED"
		}
		if i < 4 {
			a.RunID, a.RunTitle = "r-1", "Pay the gas bill"
		}
		rows = append(rows, a)
	}
	b, c := claimedBox(t, boxOpts{control: &fakeControl{recent: rows}})
	count := func(body string) int { return strings.Count(body, "<td class=\"outcome-") }

	body := mustGet(t, c, b.url, "/activity")
	if n := count(body); n != 50 || !strings.Contains(body, `rel="next"`) || strings.Contains(body, `rel="prev"`) {
		t.Fatalf("page 1 lists %d rows (want 50) or lacks the older link", n)
	}
	for _, want := range []string{"120 entries", "Kept for 30 days", "Run: ", "Pay the gas bill", "at (0.07, 0.50)"} {
		if !strings.Contains(body, want) {
			t.Errorf("Activity page 1 lacks %q", want)
		}
	}
	if body := mustGet(t, c, b.url, "/activity?page=3"); count(body) != 20 || strings.Contains(body, `rel="next"`) || !strings.Contains(body, `rel="prev"`) {
		t.Errorf("page 3 lists %d rows, want 20 and only a newer link", count(body))
	}
	if body := mustGet(t, c, b.url, "/activity?client=script"); count(body) != 40 || strings.Contains(body, "<td>agent</td>") {
		t.Errorf("client=script lists %d rows, want its 40", count(body))
	}
	if body := mustGet(t, c, b.url, "/activity?outcome=failed&page=1"); count(body) != 40 || !strings.Contains(body, "PAUSED") || strings.Contains(body, "outcome-succeeded") {
		t.Errorf("outcome=failed lists %d rows, want 40 failed", count(body))
	}
	body = mustGet(t, c, b.url, "/activity?run="+url.QueryEscape("r-1"))
	if count(body) != 4 || strings.Count(body, `<tr class="run">`) != 1 {
		t.Errorf("run=r-1 lists %d rows under %d headers, want 4 under 1", count(body), strings.Count(body, `<tr class="run">`))
	}
	if body := mustGet(t, c, b.url, "/activity?client=nobody"); !strings.Contains(body, "Nothing matches this filter") {
		t.Errorf("an empty filter result says nothing: %s", ownertest.Text(body))
	}
}

// The owner's claim, logins (and failed ones) and logout are recorded in
// the actions log with where they came from, and no passphrase.
func TestOwnerActionsRecorded(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	tok := ownertest.CSRF(t, c, b.url)
	ownertest.PostForm(t, c, b.url, "/logout", url.Values{"csrf": {tok}})
	anon := ownertest.NewClient(t, b.srv)
	ownertest.PostForm(t, anon, b.url, "/login", url.Values{"csrf": {ownertest.FormToken(mustGet(t, anon, b.url, "/login"))}, "passphrase": {"wrong horse battery"}})
	ownertest.Login(t, anon, b.url, testPass)
	var got []string
	err := b.st.View(context.Background(), func(tx *store.Tx) error {
		acts, err := tx.RecentActions(10)
		for i := len(acts) - 1; i >= 0; i-- {
			a := acts[i]
			if a.Actor != "owner" || !strings.Contains(a.Detail, "from 127.0.0.1") || strings.Contains(a.Detail, "horse") {
				t.Errorf("action %+v", a)
			}
			got = append(got, a.Action)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "claim logout login_failed login" {
		t.Fatalf("recorded %q, want claim logout login_failed login", got)
	}
}

// A row whose input kept the screen after it shows that thumbnail (lazy,
// sized); other rows show none. The thumbnail is served to the owner's
// session only, cached privately, and an unknown id is 404.
func TestActivityThumbnail(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	rows := []owner.Activity{
		{Time: t0, Client: "agent", Tool: "openlolo_tap", Outcome: "succeeded", OperationID: "op-1", ThumbWidth: 72, ThumbHeight: 160},
		{Time: t0.Add(-time.Second), Client: "agent", Tool: "openlolo_tap", Outcome: "failed", Code: "PAUSED"},
	}
	b, c := claimedBox(t, boxOpts{control: &fakeControl{recent: rows}})
	pic := []byte("\xff\xd8 thumbnail \xff\xd9")
	err := b.st.Update(context.Background(), func(tx *store.Tx) error {
		if err := tx.InsertOperation(store.Operation{ID: "op-1", ClientID: "c", Tool: "openlolo_tap", Fingerprint: "f",
			State: store.OpSucceeded, Created: t0, Updated: t0}); err != nil {
			return err
		}
		return tx.SetOperationThumb("c", "op-1", store.Thumb{Width: 72, Height: 160, JPEG: pic})
	})
	if err != nil {
		t.Fatal(err)
	}
	body := mustGet(t, c, b.url, "/activity")
	img := `<img class="thumb" src="/activity/thumb/op-1" loading="lazy" width="36" height="80" alt="screen after the input">`
	if !strings.Contains(body, img) || strings.Count(body, "<img") != 1 {
		t.Fatalf("Activity page: want exactly one thumbnail %s, got %d images", img, strings.Count(body, "<img"))
	}

	res, got := ownertest.Get(t, c, b.url, "/activity/thumb/op-1")
	if res.StatusCode != http.StatusOK || got != string(pic) || res.Header.Get("Content-Type") != "image/jpeg" ||
		!strings.HasPrefix(res.Header.Get("Cache-Control"), "private, max-age=") {
		t.Fatalf("GET the thumbnail = %d %q (%s, Cache-Control %q)", res.StatusCode, got, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	if res, _ := ownertest.Get(t, c, b.url, "/activity/thumb/op-2"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET an unknown thumbnail = %d, want 404", res.StatusCode)
	}
	anon := ownertest.NewClient(t, b.srv)
	if res, got := ownertest.Get(t, anon, b.url, "/activity/thumb/op-1"); res.StatusCode != http.StatusForbidden || got == string(pic) {
		t.Errorf("GET the thumbnail without a session = %d, want 403 and no picture", res.StatusCode)
	}
}
