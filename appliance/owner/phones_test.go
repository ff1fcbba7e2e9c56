package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
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

// farmAsks is a boxOpts.asks of a control service over three test phones
// (sim-1 .. sim-3), which it keeps in *svc.
func farmAsks(svc **control.Service) func(testing.TB, *store.Store, func() time.Time) *control.Service {
	return func(t testing.TB, st *store.Store, now func() time.Time) *control.Service {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		var att []control.Attached
		for _, p := range threePhones {
			att = append(att, control.Attached{ID: p.ID, Phone: controltest.New(now)})
		}
		var err error
		if *svc, err = control.New(ctx, control.Config{Store: st, Phones: att, Now: now}); err != nil {
			t.Fatal(err)
		}
		return *svc
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
		o.asks = farmAsks(&svc)
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

// farm is a claimed box of three simulated phones, each with its own
// control and driver fakes.
type farm struct {
	*box
	c       *http.Client
	ctls    []*fakeControl
	drivers []*fakeDriver
	boxCtl  *fakeControl // Config.Control: the box-wide pause
}

func newFarm(t *testing.T) farm {
	t.Helper()
	f := farm{}
	var phones []owner.BoxPhone
	for i, p := range threePhones {
		ph := simPhone(t)
		f.ctls = append(f.ctls, &fakeControl{holder: "agent " + p.ID})
		f.drivers = append(f.drivers, &fakeDriver{})
		phones = append(phones, owner.BoxPhone{ID: p.ID, Phone: ph, Screen: owner.PhoneScreen(ph), Control: f.ctls[i], Driver: f.drivers[i]})
	}
	first := phones[0]
	f.boxCtl = &fakeControl{}
	f.box, f.c = claimedBox(t, boxOpts{phone: first.Phone.(*sim.Phone), control: f.boxCtl, driver: f.drivers[0], phones: phones})
	return f
}

// Status on a box of several phones lists them all, each with its
// picture and a link to its own live view; the page shows the phone it
// names (the first when none), and its forms and pictures name it.
func TestStatusListsPhones(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	body := mustGet(t, f.c, f.url, "/status")
	for _, p := range threePhones {
		for _, want := range []string{`<a class="name" href="/status?phone=` + p.ID + `">` + p.ID + `</a>`, `src="/status/screen.jpg?phone=` + p.ID + `"`, "agent " + p.ID + " holds control"} {
			if !strings.Contains(body, want) {
				t.Errorf("Status lacks %s", want)
			}
		}
	}
	if !strings.Contains(body, `data-phone="sim-1"`) || !strings.Contains(body, `Phone <span id="phone-id">sim-1</span>`) {
		t.Errorf("Status without a phone named does not show the first: %s", ownertest.Text(body))
	}
	body = mustGet(t, f.c, f.url, "/status?phone=sim-2")
	for _, want := range []string{`<img id="phone-live" src="/status/screen.jpg?phone=sim-2" data-stream="/status/live.mjpeg?phone=sim-2"`,
		`data-phone="sim-2"`, `<input type="hidden" name="phone" value="sim-2">`, `<li class="shown" data-phone="sim-2">`} {
		if !strings.Contains(body, want) {
			t.Errorf("Status of sim-2 lacks %s", want)
		}
	}
	if strings.Contains(body, `name="phone" value="sim-1"`) {
		t.Error("Status of sim-2 has forms for sim-1")
	}
	res, page := ownertest.Get(t, f.c, f.url, "/status?phone=sim-9")
	if res.StatusCode != http.StatusNotFound || !strings.Contains(page, "no phone") {
		t.Errorf("Status of a phone the box lacks = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	for _, path := range []string{"/status/screen.jpg?phone=sim-3", "/status/screen.jpg"} {
		if res, pic := ownertest.Get(t, f.c, f.url, path); res.StatusCode != http.StatusOK || !strings.HasPrefix(pic, "\xff\xd8") {
			t.Errorf("GET %s = %d, not a JPEG", path, res.StatusCode)
		}
	}
	if res, _ := ownertest.Get(t, f.c, f.url, "/status/screen.jpg?phone=sim-9"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the picture of a phone the box lacks = %d, want 404", res.StatusCode)
	}

	// A box of one phone lists none and names none.
	one, oc := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}, driver: &fakeDriver{}})
	body = mustGet(t, oc, one.url, "/status")
	if strings.Contains(body, `id="phones"`) || strings.Contains(body, `name="phone"`) || strings.Contains(body, "data-phone") ||
		!strings.Contains(body, `<img id="phone-live" src="/status/screen.jpg" data-stream="/status/live.mjpeg" data-still="/status/screen.jpg"`) {
		t.Errorf("Status of a box of one phone names phones: %s", body)
	}
}

// The owner's input, Take over, pause and the control block reach the
// phone the request names and no other.
func TestOwnerDrivesNamedPhone(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	tok := ownertest.CSRF(t, f.c, f.url)
	if code, a := postJSON(t, f.c, f.url, "/status/tap", url.Values{"csrf": {tok}, "phone": {"sim-2"}, "x": {"0.5"}, "y": {"0.5"}}); code != http.StatusOK || a["ok"] != true {
		t.Fatalf("tap on sim-2 = %d %v", code, a)
	}
	if len(f.drivers[1].got()) != 1 || len(f.drivers[0].got()) != 0 || len(f.drivers[2].got()) != 0 {
		t.Errorf("a tap on sim-2 reached drivers %d, %d, %d; want only sim-2's", len(f.drivers[0].got()), len(f.drivers[1].got()), len(f.drivers[2].got()))
	}
	if code, a := postJSON(t, f.c, f.url, "/status/tap", url.Values{"csrf": {tok}, "phone": {"sim-9"}, "x": {"0.5"}, "y": {"0.5"}}); code != http.StatusNotFound || a["code"] != "INVALID_ARGUMENTS" {
		t.Errorf("tap on a phone the box lacks = %d %v, want 404 INVALID_ARGUMENTS", code, a)
	}
	ownertest.PostForm(t, f.c, f.url, "/status/take-over", url.Values{"csrf": {tok}, "phone": {"sim-3"}})
	if f.drivers[2].takes != 1 || f.drivers[0].takes != 0 {
		t.Errorf("Take over on sim-3 took over %d (sim-3) and %d (sim-1)", f.drivers[2].takes, f.drivers[0].takes)
	}
	res, _ := ownertest.PostForm(t, f.c, f.url, "/status/pause", url.Values{"csrf": {tok}, "phone": {"sim-2"}})
	if !f.ctls[1].Lease().Paused || f.ctls[0].Lease().Paused || f.ctls[2].Lease().Paused {
		t.Error("pausing sim-2 paused another phone, or not sim-2")
	}
	if loc := res.Request.URL.String(); !strings.Contains(loc, "phone=sim-2") {
		t.Errorf("after pausing sim-2 the owner is at %s, not sim-2's Status", loc)
	}
	_, js := ownertest.Get(t, f.c, f.url, "/status/control.json?phone=sim-3")
	if !strings.Contains(js, `"holder":"agent sim-3"`) || !strings.Contains(js, `value=\"sim-3\"`) {
		t.Errorf("control.json of sim-3 = %s", js)
	}
}

// Each phone has its own live stream: watching sim-2 captures sim-2 only.
func TestLiveStreamOfNamedPhone(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/status/live.mjpeg?phone=sim-2", nil)
	res, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("live stream of sim-2 = %d", res.StatusCode)
	}
	if _, err := res.Body.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := f.pages.LiveWatchingOf(1); v != 1 {
		t.Errorf("sim-2's stream has %d viewers, want 1", v)
	}
	if v, _, caps := f.pages.LiveWatchingOf(0); v != 0 || caps != 0 {
		t.Errorf("sim-1's stream has %d viewers and %d captures, want none", v, caps)
	}
	if res, _ := ownertest.Get(t, f.c, f.url, "/status/live.mjpeg?phone=sim-9"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the stream of a phone the box lacks = %d, want 404", res.StatusCode)
	}
}

// The owner pauses every phone at once from the list of phones (the
// box-wide Control), and resumes them all.
func TestOwnerPausesEveryPhone(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	tok := ownertest.CSRF(t, f.c, f.url)
	res, page := ownertest.PostForm(t, f.c, f.url, "/status/pause-all", url.Values{"csrf": {tok}})
	if !f.boxCtl.Lease().Paused || res.Request.URL.Query().Get("done") != "paused-all" || !strings.Contains(page, "Every phone&#39;s control is paused") {
		t.Fatalf("pause-all: box paused %v, at %s: %s", f.boxCtl.Lease().Paused, res.Request.URL, ownertest.Text(page))
	}
	f.boxCtl.mu.Lock()
	resumed := f.boxCtl.nResume
	f.boxCtl.mu.Unlock()
	if resumed != 0 {
		// Resuming first would let queued agent input through and give
		// the owner's Take over back, on the emergency stop.
		t.Errorf("pause-all resumed the box %d times on its way to pausing", resumed)
	}
	ownertest.PostForm(t, f.c, f.url, "/status/resume-all", url.Values{"csrf": {tok}})
	if f.boxCtl.Lease().Paused {
		t.Error("resume-all left the box paused")
	}
	one, oc := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}})
	if body := mustGet(t, oc, one.url, "/status"); strings.Contains(body, "/status/pause-all") {
		t.Error("a box of one phone offers to pause every phone")
	}
}

// On a box of several phones the owner picks the phones a grant reaches
// when approving (every one ticked: every phone), Access shows them, and
// the client's calls carry them; ticking none is refused.
func TestApproveForSomePhones(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	d := askAccess(t, f.box, "lab script")
	page := mustGet(t, f.c, f.url, "/access")
	if strings.Count(page, `type="checkbox" name="phone"`) != 3 || !strings.Contains(page, `value="sim-2" checked`) {
		t.Fatalf("the approve form does not offer every phone, ticked: %s", ownertest.Text(page))
	}
	res, body := ownertest.ApproveOn(t, f.c, f.url, d.UserCode, ownertest.LifeForever)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Tick at least one phone") {
		t.Fatalf("approving with no phone ticked = %d: %s", res.StatusCode, ownertest.Text(body))
	}
	if res, body := ownertest.ApproveOn(t, f.c, f.url, d.UserCode, ownertest.LifeForever, "sim-1", "sim-3"); res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
		t.Fatalf("approving for sim-1 and sim-3 = %d: %s", res.StatusCode, ownertest.Text(body))
	}
	if page := mustGet(t, f.c, f.url, "/access"); !strings.Contains(page, `<dd class="grant-phones">sim-1, sim-3</dd>`) {
		t.Errorf("Access does not show the grant's phones: %s", ownertest.Text(page))
	}
	clients, err := f.oauth.Clients(t.Context())
	if err != nil || len(clients) != 1 || strings.Join(clients[0].Phones, " ") != "sim-1 sim-3" {
		t.Fatalf("the grant's phones = %+v, %v", clients, err)
	}

	// Every phone ticked is every phone, later ones too.
	d2 := askAccess(t, f.box, "all phones")
	ownertest.ApproveOn(t, f.c, f.url, d2.UserCode, ownertest.LifeForever, "sim-1", "sim-2", "sim-3")
	if page := mustGet(t, f.c, f.url, "/access"); !strings.Contains(page, `<dd class="grant-phones">every phone</dd>`) {
		t.Errorf("a grant of every phone is not shown so: %s", ownertest.Text(page))
	}

	// A box of one phone offers no choice and shows none.
	one, oc := claimedBox(t, boxOpts{})
	d3 := askAccess(t, one, "single")
	if page := mustGet(t, oc, one.url, "/access"); strings.Contains(page, "Phones it may use") {
		t.Error("a box of one phone offers phones to pick")
	}
	ownertest.Approve(t, oc, one.url, d3.UserCode, ownertest.LifeForever)
	if page := mustGet(t, oc, one.url, "/access"); strings.Contains(page, "grant-phones") {
		t.Error("a box of one phone shows a grant's phones")
	}
}

// An app signing in through the browser on a box of several phones gets
// the same choice of phones as Access's approve form: every one ticked
// by default, none ticked refused with the page's own words, and the
// grant reaching only the phones ticked.
func TestConsentForSomePhones(t *testing.T) {
	t.Parallel()
	f := newFarm(t)
	const redirect = "http://127.0.0.1:49152/callback"
	id := register(t, f.box, "Agent App", redirect)
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"phone:read"},
		"state": {"s"}, "code_challenge": {pkce("a-long-enough-code-verifier-for-pkce-0123456789")}, "code_challenge_method": {"S256"}}
	authURL := "/oauth/authorize?" + q.Encode()
	page := mustGet(t, f.c, f.url, authURL)
	if strings.Count(page, `type="checkbox" name="phone"`) != 3 || !strings.Contains(page, `value="sim-2" checked`) || !strings.Contains(page, "Phones it may use") {
		t.Fatalf("the consent page does not offer every phone, ticked: %s", ownertest.Text(page))
	}
	decide := func(phones ...string) (*http.Response, string) {
		t.Helper()
		form := url.Values{"csrf": {ownertest.FormToken(page)}, "decision": {"approve"}, "life": {"24h"}, "phones_shown": {"1"}, "phone": phones}
		return ownertest.PostForm(t, noRedirect(f.c), f.url, authURL, form)
	}
	if res, body := decide(); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Tick at least one phone") {
		t.Fatalf("allowing with no phone ticked = %d: %s", res.StatusCode, ownertest.Text(body))
	}
	if res, body := decide("sim-9"); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "no phone") {
		t.Fatalf("allowing for an unknown phone = %d: %s", res.StatusCode, ownertest.Text(body))
	}
	res, body := decide("sim-2")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("allowing for sim-2 = %d: %s", res.StatusCode, ownertest.Text(body))
	}
	if a := postToken(t, f.box, url.Values{"grant_type": {"authorization_code"}, "code": {mustCode(t, res)}, "redirect_uri": {redirect}, "client_id": {id},
		"code_verifier": {"a-long-enough-code-verifier-for-pkce-0123456789"}}); a.AccessToken == "" {
		t.Fatalf("code exchange: %+v", a)
	}
	clients, err := f.oauth.Clients(t.Context())
	if err != nil || len(clients) != 1 || strings.Join(clients[0].Phones, " ") != "sim-2" {
		t.Fatalf("the grant's phones = %+v, %v", clients, err)
	}
	if page := mustGet(t, f.c, f.url, "/access"); !strings.Contains(page, `<dd class="grant-phones">sim-2</dd>`) {
		t.Errorf("Access does not show the grant's phones: %s", ownertest.Text(page))
	}

	// A box of one phone offers no choice on the consent page.
	one, oc := claimedBox(t, boxOpts{})
	id1 := register(t, one, "Single App", redirect)
	q.Set("client_id", id1)
	if page := mustGet(t, oc, one.url, "/oauth/authorize?"+q.Encode()); strings.Contains(page, "Phones it may use") {
		t.Error("a box of one phone offers phones to pick on the consent page")
	}
}
