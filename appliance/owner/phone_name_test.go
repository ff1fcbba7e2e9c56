package owner_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
)

// storedNames are the phone names b's store holds.
func storedNames(t *testing.T, b *box) map[string]string {
	t.Helper()
	var names map[string]string
	if err := b.st.View(t.Context(), func(tx *store.Tx) (err error) { names, err = tx.PhoneNames(); return err }); err != nil {
		t.Fatal(err)
	}
	return names
}

// The owner names a phone of a box of several on its Status card; the
// name shows on Status, on the ask about it, on Activity and on Access's
// phones to tick. An empty name gives it back its backend's name, and a
// phone the box lacks is refused.
func TestPhoneName(t *testing.T) {
	t.Parallel()
	var phones []owner.BoxPhone
	for _, p := range threePhones {
		ph := simPhone(t)
		phones = append(phones, owner.BoxPhone{ID: p.ID, Phone: ph, Screen: owner.PhoneScreen(ph), Control: &fakeControl{}, Driver: &fakeDriver{}})
	}
	var svc *control.Service
	o := boxOpts{phone: phones[0].Phone, phones: phones, control: &fakeControl{recent: []owner.Activity{
		{Time: time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC), Client: "agent", Tool: "openlolo_tap", Outcome: "succeeded", Phone: "sim-2"}}}}
	o.asks = farmAsks(&svc)
	b, c := claimedBox(t, o)
	tok := ownertest.CSRF(t, c, b.url)
	name := func(phone, name string) (*http.Response, string) {
		t.Helper()
		return ownertest.PostForm(t, c, b.url, "/status/name", url.Values{"csrf": {tok}, "phone": {phone}, "name": {name}})
	}

	page := mustGet(t, c, b.url, "/status?phone=sim-2")
	if !strings.Contains(page, `id="phone-name-form"`) || !strings.Contains(page, `<input type="hidden" name="phone" value="sim-2">`) {
		t.Fatalf("sim-2's Status offers no name form for it: %s", ownertest.Text(page))
	}
	res, page := name("sim-2", "  Kitchen iPhone ")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Request.URL.String(), "phone=sim-2") || !strings.Contains(page, "name is saved") {
		t.Fatalf("naming sim-2 = %d at %s: %s", res.StatusCode, res.Request.URL, ownertest.Text(page))
	}
	if got := storedNames(t, b); len(got) != 1 || got["sim-2"] != "Kitchen iPhone" {
		t.Fatalf("stored names = %v, want sim-2 Kitchen iPhone (trimmed)", got)
	}
	for _, want := range []string{`<span id="phone-name">Kitchen iPhone</span>`, `value="Kitchen iPhone"`,
		`<a class="name" href="/status?phone=sim-2">Kitchen iPhone (sim-2)</a>`, `<a class="name" href="/status?phone=sim-1">sim-1</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("Status after naming sim-2 lacks %s", want)
		}
	}

	a := settingsCall
	a.OperationID, a.Phone = op1, "sim-2"
	out := svc.Invoke(t.Context(), control.Request{Client: control.Client{ID: "alice", Name: "alice"}, Tool: api.ToolLaunchApp, Args: a}).Outcome
	if out.Ask == nil {
		t.Fatalf("launching Settings on sim-2 did not ask: %+v", out)
	}
	askAccess(t, b, "named")
	for path, want := range map[string]string{
		"/status":             `on <strong class="ask-phone">Kitchen iPhone (sim-2)</strong>`,
		"/asks/" + out.Ask.ID: `<dd id="ask-phone">Kitchen iPhone (sim-2)</dd>`,
		"/activity":           `<a href="/activity?phone=sim-2">Kitchen iPhone (sim-2)</a>`,
		"/access":             `value="sim-2" checked> Kitchen iPhone (sim-2)</label>`,
	} {
		if page := mustGet(t, c, b.url, path); !strings.Contains(page, want) {
			t.Errorf("%s lacks %s: %s", path, want, ownertest.Text(page))
		}
	}
	if page := mustGet(t, c, b.url, "/activity"); !strings.Contains(page, `<option value="sim-2">Kitchen iPhone (sim-2)</option>`) {
		t.Errorf("Activity's filter does not offer sim-2 by its name: %s", ownertest.Text(page))
	}

	if res, page := name("sim-2", ""); res.StatusCode != http.StatusOK || !strings.Contains(page, "as its backend reports") || strings.Contains(page, "Kitchen iPhone") {
		t.Errorf("resetting sim-2's name = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	if got := storedNames(t, b); len(got) != 0 {
		t.Errorf("stored names after the reset = %v, want none", got)
	}
	if res, page := name("sim-9", "Ghost"); res.StatusCode != http.StatusNotFound || !strings.Contains(page, "no phone") {
		t.Errorf("naming a phone the box lacks = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	if got := storedNames(t, b); len(got) != 0 {
		t.Errorf("stored names after naming a phone the box lacks = %v, want none", got)
	}
}

// A name too long or with control characters is refused with its code
// on the page; the phone keeps its name and the form keeps what the
// owner typed.
func TestPhoneNameRefused(t *testing.T) {
	t.Parallel()
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}, phoneID: "phone-1"})
	tok := ownertest.CSRF(t, c, b.url)
	name := func(name string) (*http.Response, string) {
		t.Helper()
		return ownertest.PostForm(t, c, b.url, "/status/name", url.Values{"csrf": {tok}, "name": {name}})
	}
	if res, page := name("Desk phone"); res.StatusCode != http.StatusOK || !strings.Contains(page, `<span id="phone-name">Desk phone</span>`) {
		t.Fatalf("naming the box's one phone = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	long := strings.Repeat("n", store.MaxPhoneName+1)
	for _, tc := range []struct{ name, code, field string }{
		{long, store.CodePhoneNameTooLong, `value="` + long + `"`},
		{"Desk\tphone", store.CodePhoneNameInvalid, "value=\"Desk\tphone\""},
		{"Desk\u0085phone", store.CodePhoneNameInvalid, "value=\"Desk\u0085phone\""},
	} {
		res, page := name(tc.name)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, `data-code="`+tc.code+`"`) || !strings.Contains(page, "keeps its name") {
			t.Errorf("naming the phone %q = %d, want 400 with %s: %s", tc.name, res.StatusCode, tc.code, ownertest.Text(page))
		}
		if !strings.Contains(page, tc.field) || !strings.Contains(page, `<span id="phone-name">Desk phone</span>`) {
			t.Errorf("after refusing %q the form lost it, or the heading the stored name: %s", tc.name, page)
		}
		if got := storedNames(t, b); len(got) != 1 || got["phone-1"] != "Desk phone" {
			t.Errorf("stored names after refusing %q = %v, want phone-1 still Desk phone", tc.name, got)
		}
	}

	// A box that does not know its phone's id offers no name and keeps
	// none.
	nb, nc := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}})
	if page := mustGet(t, nc, nb.url, "/status"); strings.Contains(page, "phone-name-form") {
		t.Error("a box without its phone's id offers to name it")
	}
	res, page := ownertest.PostForm(t, nc, nb.url, "/status/name", url.Values{"csrf": {ownertest.CSRF(t, nc, nb.url)}, "name": {"Desk"}})
	if res.StatusCode != http.StatusConflict || len(storedNames(t, nb)) != 0 {
		t.Errorf("naming the phone of a box without its id = %d, stored %v: %s", res.StatusCode, storedNames(t, nb), ownertest.Text(page))
	}
}

// On a box of several phones Help says which phones need a walkthrough
// and the diagnostics list every phone, each by the owner's name: before,
// both read the first phone alone.
func TestHelpAndDiagnosticsEveryPhone(t *testing.T) {
	t.Parallel()
	sick := &problemPhone{Phone: simPhone(t)}
	sick.set(phone.State{Code: "developer_mode_off", Reason: "Developer Mode is off.", Problems: phone.ProblemSet(phone.DeveloperModeOff)})
	var phones []owner.BoxPhone
	for i, p := range threePhones {
		var ph phone.Phone = simPhone(t)
		if i == 1 {
			ph = sick
		}
		phones = append(phones, owner.BoxPhone{ID: p.ID, Phone: ph, Control: &fakeControl{holder: "agent " + p.ID}})
	}
	b, c := claimedBox(t, boxOpts{phone: phones[0].Phone, phones: phones, control: &fakeControl{}})
	if err := b.st.Update(t.Context(), func(tx *store.Tx) error { return tx.SetPhoneName("sim-2", "Kitchen iPhone", time.Now()) }); err != nil {
		t.Fatal(err)
	}
	page := mustGet(t, c, b.url, "/help/developer-mode")
	for _, want := range []string{`<li data-phone="sim-2"><a href="/status?phone=sim-2">Kitchen iPhone (sim-2)</a>: <span class="bad">needs this now.`,
		`<li data-phone="sim-1"><a href="/status?phone=sim-1">sim-1</a>: <span class="ok">does not need this now.`, "data-reload="} {
		if !strings.Contains(page, want) {
			t.Errorf("Help for Developer Mode lacks %s: %s", want, ownertest.Text(page))
		}
	}
	if page := mustGet(t, c, b.url, "/help/trust"); strings.Contains(page, "needs this now") || strings.Contains(page, "data-reload=") {
		t.Errorf("Help for trust says a phone needs it: %s", ownertest.Text(page))
	}

	var d struct {
		Phones []struct {
			ID, Name, State string
			Problems        []string
			Lease           *struct{ Holder string }
		} `json:"phones"`
	}
	if err := json.Unmarshal([]byte(mustGet(t, c, b.url, "/settings/diagnostics")), &d); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range d.Phones {
		holder := ""
		if p.Lease != nil {
			holder = p.Lease.Holder
		}
		got = append(got, strings.Join([]string{p.ID, p.Name, p.State, strings.Join(p.Problems, "+"), holder}, "|"))
	}
	want := []string{"sim-1||ready||agent sim-1", "sim-2|Kitchen iPhone|developer_mode_off|developer_mode_off|agent sim-2", "sim-3||ready||agent sim-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diagnostics phones = %q, want %q", got, want)
	}
}
