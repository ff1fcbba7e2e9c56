package owner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// threePhones are the Config.Phones of a box of three simulated phones.
var threePhones = []owner.BoxPhone{{ID: "sim-1"}, {ID: "sim-2"}, {ID: "sim-3"}}

// On a box of several phones each Activity row names its phone, and the
// page filters by phone; a box of one shows neither.
func TestActivityByPhone(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var rows []owner.Activity
	for i := range 9 {
		ph := threePhones[i%3].ID
		rows = append(rows, owner.Activity{Time: t0.Add(-time.Duration(i) * time.Second), Client: "agent", Tool: "openlolo_tap",
			Outcome: "succeeded", Summary: "tap " + ph, Phone: ph})
	}
	rows = append(rows, owner.Activity{Time: t0.Add(-time.Minute), Client: "owner", Action: "login", Detail: "logged in", Outcome: "done"})
	count := func(body string) int { return strings.Count(body, `<td class="outcome-`) }

	b, c := claimedBox(t, boxOpts{control: &fakeControl{recent: rows}, phones: threePhones})
	body := mustGet(t, c, b.url, "/activity")
	for _, want := range []string{`<th>Phone</th>`, `<select name="phone">`, `<option>sim-3</option>`, `<a href="/activity?phone=sim-2">sim-2</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("Activity of a box of three phones lacks %s", want)
		}
	}
	body = mustGet(t, c, b.url, "/activity?phone=sim-2")
	if n := count(body); n != 3 || strings.Contains(body, "tap sim-1") || !strings.Contains(body, `<option selected>sim-2</option>`) {
		t.Errorf("phone=sim-2 lists %d rows, want sim-2's 3: %s", n, ownertest.Text(body))
	}
	if body := mustGet(t, c, b.url, "/activity?phone=sim-9"); !strings.Contains(body, "Nothing matches this filter") {
		t.Errorf("a phone the box lacks matches rows: %s", ownertest.Text(body))
	}

	one, oc := claimedBox(t, boxOpts{control: &fakeControl{recent: rows}})
	body = mustGet(t, oc, one.url, "/activity")
	if strings.Contains(body, "<th>Phone</th>") || strings.Contains(body, `name="phone"`) || count(body) != 10 {
		t.Errorf("Activity of a box of one phone names phones or lost rows (%d): %s", count(body), ownertest.Text(body))
	}
}

// An ask on a box of several phones names its phone on Status and on its
// own page; a box of one names none.
func TestAskNamesPhone(t *testing.T) {
	t.Parallel()
	for _, several := range []bool{true, false} {
		o := boxOpts{}
		if several {
			o.phones = threePhones
		}
		var svc *control.Service
		o.asks = func(t testing.TB, st *store.Store, now func() time.Time) *control.Service {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			var att []control.Attached
			for _, p := range threePhones {
				att = append(att, control.Attached{ID: p.ID, Phone: controltest.New(now)})
			}
			var err error
			svc, err = control.New(ctx, control.Config{Store: st, Phones: att, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			return svc
		}
		b, c := claimedBox(t, o)
		a := settingsCall
		a.OperationID, a.Phone = op1, "sim-2"
		out := svc.Invoke(context.Background(), control.Request{Client: control.Client{ID: "alice", Name: "alice"}, Tool: api.ToolLaunchApp, Args: a}).Outcome
		ans := struct{ Ask *api.Ask }{out.Ask}
		if ans.Ask == nil {
			t.Fatalf("launching Settings on sim-2 did not ask: %+v", out)
		}
		status := mustGet(t, c, b.url, "/status")
		page := mustGet(t, c, b.url, "/asks/"+ans.Ask.ID)
		named := strings.Contains(status, `on <strong class="ask-phone">sim-2</strong>`) && strings.Contains(page, `<dd id="ask-phone">sim-2</dd>`)
		if named != several {
			t.Errorf("several phones %v: the ask names its phone %v:\n%s\n%s", several, named, ownertest.Text(status), ownertest.Text(page))
		}
	}
}
