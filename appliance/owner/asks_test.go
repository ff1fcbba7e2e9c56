package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// asksBox is a claimed box whose pages use a real control service (real
// SQLite, the control test phone).
func asksBox(t *testing.T) (*box, *http.Client, *control.Service) {
	t.Helper()
	return asksBoxWith(t, boxOpts{})
}

// asksBoxWith is asksBox with more of the box's options (a phone for the
// pages).
func asksBoxWith(t *testing.T, o boxOpts) (*box, *http.Client, *control.Service) {
	t.Helper()
	var svc *control.Service
	o.asks = func(t testing.TB, st *store.Store, now func() time.Time) *control.Service {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		var err error
		svc, err = control.New(ctx, control.Config{Store: st, Phone: controltest.New(now), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	b, c := claimedBox(t, o)
	return b, c, svc
}

var settingsCall = api.LaunchAppArgs{BundleID: "com.apple.Preferences"}

func askSettings(t *testing.T, svc *control.Service, c control.Client, id string) control.Answer[api.LaunchAppResult] {
	t.Helper()
	a := settingsCall
	a.OperationID = id
	return svc.LaunchApp(context.Background(), c, a).Answer
}

// askForm finds the form of ask id in page and reports its parts.
func askForm(t *testing.T, page, id string) string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<form class="ask" method="post" action="/asks/` + id + `" data-ask-id="` + id + `">.*?</form>`)
	f := re.FindString(page)
	if f == "" {
		return ""
	}
	for _, want := range []string{`name="decision" value="allow"`, `name="decision" value="deny"`, `type="checkbox" name="always"`, `name="csrf"`} {
		if !strings.Contains(f, want) {
			t.Errorf("the ask's form lacks %s:\n%s", want, f)
		}
	}
	return f
}

const (
	op1 = "11111111-1111-4111-8111-111111111111"
	op2 = "22222222-2222-4222-8222-222222222222"
)

func TestAskPages(t *testing.T) {
	t.Parallel()
	b, c, svc := asksBox(t)
	alice := control.Client{ID: "alice", Name: "alice's agent"}
	first := askSettings(t, svc, alice, op1)
	if first.Ask == nil {
		t.Fatalf("launching Settings did not ask: %+v", first.Outcome)
	}
	id := first.Ask.ID

	// The ask shows on Status, on Access and alone, as a plain form.
	for _, path := range []string{"/status", "/access", "/asks/" + id} {
		res, page := ownertest.Get(t, c, b.url, path)
		if res.StatusCode != http.StatusOK || askForm(t, page, id) == "" || !strings.Contains(page, "alice&#39;s agent") {
			t.Fatalf("GET %s = %d without the ask's form: %s", path, res.StatusCode, ownertest.Text(page))
		}
		if !strings.Contains(page, "launch Settings (com.apple.Preferences)") {
			t.Errorf("GET %s does not say what is asked", path)
		}
	}

	// Without the CSRF token, or from another origin: refused, still pending.
	res, _ := ownertest.PostForm(t, c, b.url, "/asks/"+id, url.Values{"decision": {"allow"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("POST without a token = %d, want 403", res.StatusCode)
	}
	tok := ownertest.CSRF(t, c, b.url)
	req, _ := http.NewRequest(http.MethodPost, b.url+"/asks/"+id, strings.NewReader(url.Values{"csrf": {tok}, "decision": {"allow"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if res, _ := ownertest.Do(t, c, req); res.StatusCode != http.StatusForbidden {
		t.Fatalf("POST from another origin = %d, want 403", res.StatusCode)
	}
	res, page := ownertest.PostForm(t, c, b.url, "/asks/"+id, url.Values{"csrf": {tok}, "decision": {"maybe"}})
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("POST decision=maybe = %d, want 400: %s", res.StatusCode, ownertest.Text(page))
	}
	if a, err := svc.Ask(context.Background(), id); err != nil || a.State != store.AskPending {
		t.Fatalf("after refused forms the ask is %+v, %v; want pending", a, err)
	}

	// Allow from Status: back on Status with a confirmation; the retry runs.
	res, page = ownertest.PostForm(t, c, b.url, "/asks/"+id, url.Values{"csrf": {tok}, "decision": {"allow"}, "next": {"/status"}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" || !strings.Contains(page, "Allowed.") || askForm(t, page, id) != "" {
		t.Fatalf("allow: %d at %s: %s", res.StatusCode, res.Request.URL.Path, ownertest.Text(page))
	}
	if a := askSettings(t, svc, alice, op1); a.Status != api.StatusOK {
		t.Fatalf("the allowed call answered %+v", a.Outcome)
	}
	res, page = ownertest.Get(t, c, b.url, "/asks/"+id)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `data-state="allowed"`) {
		t.Fatalf("the allowed ask's page: %s", ownertest.Text(page))
	}

	// Deny with "always" ticked: a deny never stops asking.
	id2 := askSettings(t, svc, alice, op2).Ask.ID
	res, page = ownertest.PostForm(t, c, b.url, "/asks/"+id2, url.Values{"csrf": {tok}, "decision": {"deny"}, "always": {"1"}, "next": {"//evil.example/"}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/asks/"+id2 || !strings.Contains(page, `data-state="denied"`) {
		t.Fatalf("deny: %d at %s: %s", res.StatusCode, res.Request.URL, ownertest.Text(page))
	}
	if a := askSettings(t, svc, alice, op2); a.Error == nil || a.Error.Code != api.CodeAskDenied {
		t.Fatalf("the denied call answered %+v", a.Outcome)
	}
	res, page = ownertest.PostForm(t, c, b.url, "/asks/"+id2, url.Values{"csrf": {tok}, "decision": {"allow"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, "denied already") {
		t.Fatalf("deciding twice = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	if res, _ := ownertest.Get(t, c, b.url, "/asks/nope"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /asks/nope = %d, want 404", res.StatusCode)
	}

	// Activity records the owner's decisions (the page reads them
	// through Controller, which appliance's adapter implements).
	acts, err := svc.RecentActions(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.Action)
	}
	if s := strings.Join(got, ","); !strings.Contains(s, "ask_denied") || !strings.Contains(s, "ask_allowed") {
		t.Errorf("actions %v, want the decisions", got)
	}
}

func TestAskPagesNeedTheOwner(t *testing.T) {
	t.Parallel()
	b, _, svc := asksBox(t)
	id := askSettings(t, svc, control.Client{ID: "alice"}, op1).Ask.ID
	stranger := ownertest.NewClient(t, b.srv)
	res, _ := ownertest.Get(t, noRedirect(stranger), b.url, "/asks/"+id)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("GET /asks/<id> without a session = %d %s, want a redirect to /login", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = ownertest.PostForm(t, stranger, b.url, "/asks/"+id, url.Values{"decision": {"allow"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("POST /asks/<id> without a session = %d, want 403", res.StatusCode)
	}
	if a, _ := svc.Ask(context.Background(), id); a.State != store.AskPending {
		t.Fatalf("the ask is %s after a stranger's form", a.State)
	}
}

func TestAskMarksForms(t *testing.T) {
	t.Parallel()
	b, c, svc := asksBox(t)
	tok := ownertest.CSRF(t, c, b.url)
	wallet := control.Mark{Kind: api.AskApp, Subject: "com.apple.Passbook"}

	// Settings shows the defaults and says which they are.
	res, page := ownertest.Get(t, c, b.url, "/settings")
	sec := regexp.MustCompile(`(?s)<section class="card" id="asks">.*?</section>`).FindString(page)
	if res.StatusCode != http.StatusOK || sec == "" {
		t.Fatalf("Settings has no section#asks: %s", ownertest.Text(page))
	}
	if !strings.Contains(sec, `value="app:com.apple.Passbook" checked`) || strings.Contains(sec, `value="url" checked`) ||
		!strings.Contains(sec, "(default)") {
		t.Fatalf("section#asks does not show the defaults:\n%s", sec)
	}

	// Box-wide: ask about URLs, stop asking about Wallet, add a bank app.
	form := url.Values{"csrf": {tok}, "shown": {"url", "text", "input", "app:com.apple.Passbook"}, "ask": {"url"}, "add_app": {"com.example.bank"}}
	res, page = ownertest.PostForm(t, c, b.url, "/settings/asks", form)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "Saved.") {
		t.Fatalf("POST /settings/asks = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	m := svc.Marks()
	if !m.Box[control.Mark{Kind: api.AskURL}] || m.Box[wallet] || !m.Box[control.Mark{Kind: api.AskApp, Subject: "com.example.bank"}] {
		t.Fatalf("box marks after the form: %v", m.Box)
	}
	res, _ = ownertest.PostForm(t, c, b.url, "/settings/asks", url.Values{"csrf": {tok}, "ask": {"nonsense"}})
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a bad mark = %d, want 400", res.StatusCode)
	}
	if !svc.Marks().Box[control.Mark{Kind: api.AskURL}] {
		t.Fatal("a refused form changed the marks")
	}

	// At approval: this client is asked about every input.
	d := askAccess(t, b, "nightly")
	_, page = ownertest.Get(t, c, b.url, "/access")
	h := regexp.MustCompile(`data-user-code="` + d.UserCode + `" data-handle="([^"]+)"`).FindStringSubmatch(page)
	if h == nil || !strings.Contains(page, `class="client-asks"`) {
		t.Fatalf("Access shows no request with asks: %s", ownertest.Text(page))
	}
	res, page = ownertest.PostForm(t, c, b.url, "/access/approve", url.Values{"csrf": {tok}, "handle": {h[1]}, "life": {"24h"},
		"shown": {"input", "url"}, "ask": {"input", "url"}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("approve: %d %s", res.StatusCode, ownertest.Text(page))
	}
	if !svc.Marks().Asks(d.ClientID, control.Mark{Kind: api.AskInput}) {
		t.Fatalf("the approve form's marks were not kept: %+v", svc.Marks())
	}
	if !strings.Contains(page, `<details class="client-asks" data-client-id="`+d.ClientID+`"`) {
		t.Fatalf("the client's block has no asks: %s", ownertest.Text(page))
	}

	// Later on Access: no more asking about input or URLs for it.
	res, page = ownertest.PostForm(t, c, b.url, "/access/asks", url.Values{"csrf": {tok}, "client_id": {d.ClientID}, "shown": {"input", "url"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "Saved.") {
		t.Fatalf("POST /access/asks = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	m = svc.Marks()
	if m.Asks(d.ClientID, control.Mark{Kind: api.AskInput}) || m.Asks(d.ClientID, control.Mark{Kind: api.AskURL}) || !m.Asks("other", control.Mark{Kind: api.AskURL}) {
		t.Fatalf("client marks after the form: %+v", m)
	}
	res, _ = ownertest.PostForm(t, c, b.url, "/access/asks", url.Values{"csrf": {tok}, "client_id": {"nobody"}, "shown": {"input"}})
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("marks for an unknown client = %d, want 404", res.StatusCode)
	}
}

// An iPhone box listed Android packages in "Ask before" (checked, the
// defaults), and at 390 px they ran past the card: Settings offers the
// phone's own platform's apps. The hidden marks stay: saving the form
// keeps them, for when an Android phone is attached.
func TestAskMarksThisPlatform(t *testing.T) {
	t.Parallel()
	b, c, svc := asksBoxWith(t, boxOpts{phone: simPhone(t)}) // the simulated iPhone
	_, page := ownertest.Get(t, c, b.url, "/settings")
	sec := regexp.MustCompile(`(?s)<section class="card" id="asks">.*?</section>`).FindString(page)
	if !strings.Contains(sec, `value="app:com.apple.Passbook" checked`) || strings.Contains(sec, "com.google.android") || strings.Contains(sec, "com.android.") {
		t.Fatalf("an iPhone box's section#asks:\n%s", sec)
	}
	gmail := control.Mark{Kind: api.AskApp, Subject: "com.google.android.gm"}
	if !svc.Marks().Box[gmail] {
		t.Fatal("the defaults do not mark Gmail")
	}
	form := url.Values{"csrf": {ownertest.CSRF(t, c, b.url)}, "shown": {"url", "app:com.apple.Passbook"}, "ask": {"url"}}
	if res, page := ownertest.PostForm(t, c, b.url, "/settings/asks", form); res.StatusCode != http.StatusOK {
		t.Fatalf("POST /settings/asks = %d: %s", res.StatusCode, ownertest.Text(page))
	}
	m := svc.Marks()
	if !m.Box[gmail] || m.Box[control.Mark{Kind: api.AskApp, Subject: "com.apple.Passbook"}] || !m.Box[control.Mark{Kind: api.AskURL}] {
		t.Fatalf("after saving on an iPhone box: %v, want Gmail kept, Wallet off, URLs on", m.Box)
	}
}

// The browser flow's consent page had no "ask before" choices while the
// device flow's approval had: it shows them, and Allow keeps them.
func TestConsentPageAsks(t *testing.T) {
	t.Parallel()
	b, c, svc := asksBox(t)
	const redirect = "http://127.0.0.1:49152/callback"
	id := register(t, b, "Agent App", redirect)
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"phone:control"},
		"state": {"s"}, "code_challenge": {pkce("a-long-enough-code-verifier-for-pkce-0123456789")}, "code_challenge_method": {"S256"}}
	authURL := "/oauth/authorize?" + q.Encode()
	_, page := ownertest.Get(t, c, b.url, authURL)
	if !strings.Contains(page, `<details class="client-asks" data-client-id="`+id+`" open>`) || !strings.Contains(page, `value="app:com.apple.Passbook" checked`) {
		t.Fatalf("the consent page offers no asks: %s", page)
	}
	form := url.Values{"csrf": {ownertest.FormToken(page)}, "decision": {"approve"}, "life": {"24h"}, "shown": {"input", "url"}, "ask": {"input"}}
	if res, _ := ownertest.PostForm(t, noRedirect(c), b.url, authURL, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Allow: %d", res.StatusCode)
	}
	if m := svc.Marks(); !m.Asks(id, control.Mark{Kind: api.AskInput}) || m.Asks(id, control.Mark{Kind: api.AskURL}) {
		t.Fatalf("the consent page's asks were not kept: %+v", m.Clients[id])
	}
}
