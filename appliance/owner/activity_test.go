package owner_test

import (
	"context"
	"fmt"
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
