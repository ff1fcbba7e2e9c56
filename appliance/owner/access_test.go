package owner_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// device is a client's device authorization answer.
type device struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	ClientID                string `json:"client_id"`
	VerificationURIComplete string `json:"verification_uri_complete"`
}

func askAccess(t *testing.T, b *box, name string) device {
	t.Helper()
	c := b.srv.Client()
	res, err := c.PostForm(b.url+"/oauth/device_authorization", url.Values{"client_name": {name}, "scope": {"phone:read phone:control"}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var d device
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil || res.StatusCode != http.StatusOK || d.UserCode == "" {
		t.Fatalf("device authorization: %d %v %+v", res.StatusCode, err, d)
	}
	return d
}

type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
}

func postToken(t *testing.T, b *box, form url.Values) tokenAnswer {
	t.Helper()
	res, err := b.srv.Client().PostForm(b.url+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a tokenAnswer
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatalf("token answer: %v", err)
	}
	return a
}

func pollToken(t *testing.T, b *box, d device) tokenAnswer {
	t.Helper()
	return postToken(t, b, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {d.DeviceCode}, "client_id": {d.ClientID}})
}

// probe calls the bearer-protected resource and returns its status.
func probe(t *testing.T, b *box, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.url+"/probe", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestAccessApproveEachLife(t *testing.T) {
	tests := []struct {
		life        string
		wantExpires string // on the Access page
	}{
		{ownertest.Life24h, "2026-11-30 12:00 UTC"},
		{ownertest.Life30d, "2026-12-29 12:00 UTC"},
		{ownertest.LifeForever, "until removed"},
	}
	for _, tt := range tests {
		t.Run(tt.life, func(t *testing.T) {
			b, c := claimedBox(t, boxOpts{})
			d := askAccess(t, b, "script "+tt.life)
			if a := pollToken(t, b, d); a.Error != "authorization_pending" {
				t.Fatalf("poll before approval: %+v, want authorization_pending", a)
			}
			body := mustGet(t, c, b.url, "/access")
			for _, want := range []string{"script " + tt.life, d.UserCode, "tap, type and press buttons", "see the phone&#39;s screen", "local network"} {
				if !strings.Contains(body, want) {
					t.Errorf("Access page lacks %q: %s", want, ownertest.Text(body))
				}
			}
			ownertest.Approve(t, c, b.url, d.UserCode, tt.life)
			b.clock.Add(10 * time.Second) // past the poll interval
			a := pollToken(t, b, d)
			if a.AccessToken == "" {
				t.Fatalf("poll after approval: %+v, want tokens", a)
			}
			if got := probe(t, b, a.AccessToken); got != http.StatusOK {
				t.Fatalf("approved token: status %d, want 200", got)
			}
			body = mustGet(t, c, b.url, "/access")
			if strings.Contains(body, d.UserCode) {
				t.Error("the approved request is still listed as waiting")
			}
			if !strings.Contains(body, `data-client-id="`+d.ClientID+`"`) || !strings.Contains(body, tt.wantExpires) {
				t.Errorf("Access page does not list the client with expiry %q: %s", tt.wantExpires, ownertest.Text(body))
			}
			if strings.Contains(ownertest.FullText(body), d.ClientID) {
				t.Error("the client_id is shown unmasked")
			}
			// Revoke on the page: the token stops working at once.
			ownertest.Revoke(t, c, b.url, d.ClientID)
			if got := probe(t, b, a.AccessToken); got != http.StatusUnauthorized {
				t.Fatalf("revoked token: status %d, want 401", got)
			}
			if a := postToken(t, b, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {a.RefreshToken}, "client_id": {d.ClientID}}); a.Error != "invalid_grant" {
				t.Fatalf("refresh after revoke: %+v, want invalid_grant", a)
			}
			if body := mustGet(t, c, b.url, "/access"); strings.Contains(body, `data-client-id="`+d.ClientID+`"`) {
				t.Error("the revoked client is still listed")
			}
		})
	}
}

func TestAccessDeny(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d := askAccess(t, b, "denied script")
	ownertest.Deny(t, c, b.url, d.UserCode)
	if a := pollToken(t, b, d); a.Error != "access_denied" {
		t.Fatalf("poll after deny: %+v, want access_denied", a)
	}
	// Deciding a decided request again says it is no longer waiting.
	h := strings.TrimPrefix(d.VerificationURIComplete[strings.Index(d.VerificationURIComplete, "?r="):], "?r=")
	h, _ = url.QueryUnescape(h)
	tok := ownertest.CSRF(t, c, b.url)
	for _, path := range []string{"/access/approve", "/access/deny"} {
		res, body := ownertest.PostForm(t, c, b.url, path, url.Values{"csrf": {tok}, "handle": {h}, "life": {"24h"}})
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "no longer waiting") {
			t.Errorf("%s of a decided request: %d %q, want 404", path, res.StatusCode, ownertest.Text(body))
		}
	}
}

func TestAccessBadInput(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d := askAccess(t, b, "script")
	u, _ := url.Parse(d.VerificationURIComplete)
	h := u.Query().Get("r")
	tok := ownertest.CSRF(t, c, b.url)
	tests := []struct {
		path string
		form url.Values
		want int
		text string
	}{
		{"/access/approve", url.Values{"handle": {h}, "life": {"1y"}}, http.StatusBadRequest, "24 hours"},
		{"/access/approve", url.Values{"handle": {h}}, http.StatusBadRequest, "Choose how long"},
		{"/access/approve", url.Values{"handle": {"nope"}, "life": {"24h"}}, http.StatusNotFound, "no longer waiting"},
		{"/access/revoke", url.Values{"client_id": {"nope"}}, http.StatusNotFound, "no client"},
	}
	for _, tt := range tests {
		tt.form.Set("csrf", tok)
		res, body := ownertest.PostForm(t, c, b.url, tt.path, tt.form)
		if res.StatusCode != tt.want || !strings.Contains(body, tt.text) {
			t.Errorf("POST %s %v: %d %q, want %d with %q", tt.path, tt.form, res.StatusCode, ownertest.Text(body), tt.want, tt.text)
		}
	}
	// The request is still waiting after all that.
	if a := pollToken(t, b, d); a.Error != "authorization_pending" {
		t.Fatalf("poll: %+v, want authorization_pending", a)
	}
}

func TestAccessRequestLink(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	first := askAccess(t, b, "first")
	second := askAccess(t, b, "second")
	u, err := url.Parse(second.VerificationURIComplete)
	if err != nil || u.Path != "/access" || u.Query().Get("r") == "" {
		t.Fatalf("verification_uri_complete = %q, want /access?r=…", second.VerificationURIComplete)
	}
	body := mustGet(t, c, b.url, "/access?"+u.RawQuery)
	i1, i2 := strings.Index(body, first.UserCode), strings.Index(body, second.UserCode)
	if i1 < 0 || i2 < 0 || i2 > i1 {
		t.Fatalf("linked request not shown first (first at %d, second at %d)", i1, i2)
	}
	if !strings.Contains(body, `class="request focus" id="r-`+u.Query().Get("r")+`"`) {
		t.Error("linked request is not highlighted")
	}
	body = mustGet(t, c, b.url, "/access?r=gone")
	if !strings.Contains(body, "no longer waiting") {
		t.Errorf("a link to an unknown request does not say it is gone: %s", ownertest.Text(body))
	}
}

func pkce(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func register(t *testing.T, b *box, name, redirect string) string {
	t.Helper()
	body := `{"client_name":"` + name + `","redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
	res, err := b.srv.Client().Post(b.url+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || out.ClientID == "" {
		t.Fatalf("register: %d %v", res.StatusCode, err)
	}
	return out.ClientID
}

func TestConsentPage(t *testing.T) {
	b, _ := claimedBox(t, boxOpts{})
	const redirect = "http://127.0.0.1:49152/callback"
	const verifier = "a-long-enough-code-verifier-for-pkce-0123456789"
	id := register(t, b, "Agent App", redirect)
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"phone:read"},
		"state": {"st4te"}, "code_challenge": {pkce(verifier)}, "code_challenge_method": {"S256"}}
	authURL := "/oauth/authorize?" + q.Encode()

	// Logged out: log in first, then land on the same authorize URL.
	c := ownertest.NewClient(t, b.srv)
	res, body := ownertest.Get(t, c, b.url, authURL)
	if res.Request.URL.Path != "/login" {
		t.Fatalf("authorize while logged out ended at %s, want /login", res.Request.URL)
	}
	tok := ownertest.FormToken(body)
	res, body = ownertest.PostForm(t, c, b.url, "/login", url.Values{"csrf": {tok}, "passphrase": {testPass}, "next": {res.Request.URL.Query().Get("next")}})
	if res.Request.URL.RequestURI() != authURL || res.StatusCode != http.StatusOK {
		t.Fatalf("after login ended at %s (%d), want %s", res.Request.URL.RequestURI(), res.StatusCode, authURL)
	}
	for _, want := range []string{"Allow Agent App?", "127.0.0.1:49152", "see the phone&#39;s screen"} {
		if !strings.Contains(body, want) {
			t.Errorf("consent page lacks %q: %s", want, ownertest.Text(body))
		}
	}
	if strings.Contains(body, "tap, type") {
		t.Error("consent page lists a scope that was not asked for")
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:49152") {
		t.Errorf("consent page CSP %q does not let the form return to the client", csp)
	}
	csrf := ownertest.FormToken(body)

	nr := noRedirect(c)
	decide := func(form url.Values) *http.Response {
		t.Helper()
		form.Set("csrf", csrf)
		res, _ := ownertest.PostForm(t, nr, b.url, authURL, form)
		return res
	}
	// Deny: back to the client with access_denied and the state.
	res = decide(url.Values{"decision": {"deny"}})
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "st4te" {
		t.Fatalf("deny: %d Location %q", res.StatusCode, loc)
	}
	// No decision, and a bad life: refused on the page, no redirect.
	if res := decide(url.Values{}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("no decision: %d, want 400", res.StatusCode)
	}
	if res := decide(url.Values{"decision": {"approve"}, "life": {"1y"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad life: %d, want 400", res.StatusCode)
	}
	// Approve: a code that the client exchanges for a working token.
	res = decide(url.Values{"decision": {"approve"}, "life": {"30d"}})
	loc, _ = url.Parse(res.Header.Get("Location"))
	code := loc.Query().Get("code")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc.String(), redirect+"?") || code == "" || loc.Query().Get("state") != "st4te" {
		t.Fatalf("approve: %d Location %q", res.StatusCode, loc)
	}
	a := postToken(t, b, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {id}, "code_verifier": {verifier}})
	if a.AccessToken == "" {
		t.Fatalf("code exchange: %+v", a)
	}
	if got := probe(t, b, a.AccessToken); got != http.StatusOK {
		t.Fatalf("token from the consent page: status %d, want 200", got)
	}
}

func TestConsentPageErrors(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	const redirect = "http://127.0.0.1:49152/callback"
	id := register(t, b, "Agent App", redirect)
	good := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect},
		"state": {"s"}, "code_challenge": {pkce("v")}, "code_challenge_method": {"S256"}}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range good {
			q[kk] = vv
		}
		q.Set(k, v)
		return "/oauth/authorize?" + q.Encode()
	}
	nr := noRedirect(c)
	// A client nobody approved hears of no error by redirect: the box shows
	// it (RFC 9700 §4.11.2; the box must not redirect to whatever a
	// self-registered client chose).
	res, body := ownertest.Get(t, nr, b.url, with("code_challenge_method", "plain"))
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(body, "invalid_request") {
		t.Errorf("plain PKCE, unapproved client: %d Location %q, want 400 on the box", res.StatusCode, res.Header.Get("Location"))
	}
	// Once the owner approved the client, errors it may hear about go back
	// to it...
	r := httptest.NewRequest("GET", "/oauth/authorize?"+good.Encode(), nil)
	r.Host = strings.TrimPrefix(b.url, "https://")
	req, err := b.oauth.ParseAuthorize(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.oauth.ApproveAuthorize(context.Background(), req, oauth.Life24h); err != nil {
		t.Fatal(err)
	}
	res, _ = ownertest.Get(t, nr, b.url, with("code_challenge_method", "plain"))
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || loc.Host != "127.0.0.1:49152" || loc.Query().Get("error") != "invalid_request" {
		t.Errorf("plain PKCE: %d Location %q, want a redirect with invalid_request", res.StatusCode, loc)
	}
	// ...but an unknown client or redirect_uri is shown on the box, never redirected.
	for _, u := range []string{with("client_id", "unknown"), with("redirect_uri", "http://127.0.0.1:1/evil")} {
		res, body := ownertest.Get(t, nr, b.url, u)
		if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(body, "Start again from the app") {
			t.Errorf("GET %s: %d Location %q %q, want 400 on the box", u, res.StatusCode, res.Header.Get("Location"), ownertest.Text(body))
		}
	}
}

// TestAccessRequestInKnownName pins the unauthenticated rename on the page:
// a device request with an approved client's client_id and another name
// shows as a new request in the known client's name, and leaves the client
// as it was on the page.
func TestAccessRequestInKnownName(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d := askAccess(t, b, "nightly")
	ownertest.Approve(t, c, b.url, d.UserCode, ownertest.Life24h)
	res, err := b.srv.Client().PostForm(b.url+"/oauth/device_authorization", url.Values{"client_name": {"evil"}, "client_id": {d.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	var evil device
	json.NewDecoder(res.Body).Decode(&evil)
	res.Body.Close()
	body := ownertest.Text(mustGet(t, c, b.url, "/access"))
	for _, want := range []string{"A new request in the name of nightly", "calls itself “evil”", evil.UserCode} {
		if !strings.Contains(body, want) {
			t.Errorf("Access page lacks %q: %s", want, body)
		}
	}
	if strings.Count(body, "nightly") < 2 || strings.Contains(body, "Clients with access evil") {
		t.Errorf("Access page: %s", body)
	}
}

// An abandoned device request stayed listed for its 10 minutes: once its
// client stops polling for two intervals, Access marks it and lists it
// after the live ones; a request never polled is not marked (curl users
// poll after approving).
func TestAccessMarksStoppedRequests(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	gone := askAccess(t, b, "gave up")
	if a := pollToken(t, b, gone); a.Error != "authorization_pending" {
		t.Fatalf("first poll: %+v", a)
	}
	b.clock.Add(5 * time.Second)
	fresh := askAccess(t, b, "still asking")
	b.clock.Add(7 * time.Second) // gave up: 12 s since its poll, over 2 x 5 s + 1 s
	if a := pollToken(t, b, fresh); a.Error != "authorization_pending" {
		t.Fatalf("poll: %+v", a)
	}
	page := mustGet(t, c, b.url, "/access")
	iGone, iFresh := strings.Index(page, `data-user-code="`+gone.UserCode+`"`), strings.Index(page, `data-user-code="`+fresh.UserCode+`"`)
	if iGone < 0 || iFresh < 0 || iFresh > iGone {
		t.Fatalf("Access does not list the live request before the stopped one (%d, %d): %s", iFresh, iGone, ownertest.Text(page))
	}
	if n := strings.Count(page, "stopped asking"); n != 1 || !strings.Contains(page[iGone:], "stopped asking 12 s ago") {
		t.Errorf("Access marks %d requests as stopped, want the one that gave up: %s", n, ownertest.Text(page))
	}
	b.clock.Add(30 * time.Second)
	never := askAccess(t, b, "never polled")
	b.clock.Add(30 * time.Second)
	page = mustGet(t, c, b.url, "/access")
	i := strings.Index(page, `data-user-code="`+never.UserCode+`"`)
	if i < 0 || strings.Count(page, "stopped asking") != 2 {
		t.Errorf("after a minute: %d marked, want the two that polled and stopped: %s", strings.Count(page, "stopped asking"), ownertest.Text(page))
	}
}

// Two clients of one name ("MCP CLI Proxy", as mcp-remote registers) were
// told apart only by a truncated id: the cards say how each signed in
// (the browser flow's redirect host, or a code) and when it was first seen,
// beside the masked client id.
func TestAccessTellsClientsApart(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, _ := approvedClient(t, b, c, "MCP CLI Proxy", ownertest.Life24h)
	page := mustGet(t, c, b.url, "/access")
	card := clientCard(t, page, d.ClientID)
	for _, want := range []string{"with a code", "First seen", "2026-11-29 12:00 UTC", `<code class="client-id" title="` + d.ClientID + `">`} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q: %s", want, ownertest.Text(card))
		}
	}

	// The browser flow: the consent page offers the asks, as the device
	// flow's approval does; the card names where its sign-in returned.
	const redirect = "http://127.0.0.1:49152/callback"
	id := register(t, b, "MCP CLI Proxy", redirect)
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"phone:read"},
		"state": {"s"}, "code_challenge": {pkce("a-long-enough-code-verifier-for-pkce-0123456789")}, "code_challenge_method": {"S256"}}
	res, _ := ownertest.PostForm(t, noRedirect(c), b.url, "/oauth/authorize?"+q.Encode(), url.Values{"csrf": {ownertest.CSRF(t, c, b.url)}, "decision": {"approve"}, "life": {"24h"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve on the consent page: %d", res.StatusCode)
	}
	a := postToken(t, b, url.Values{"grant_type": {"authorization_code"}, "code": {mustCode(t, res)}, "redirect_uri": {redirect}, "client_id": {id},
		"code_verifier": {"a-long-enough-code-verifier-for-pkce-0123456789"}})
	if a.AccessToken == "" {
		t.Fatalf("code exchange: %+v", a)
	}
	if card := clientCard(t, mustGet(t, c, b.url, "/access"), id); !strings.Contains(card, "in the browser, back to <code>127.0.0.1:49152</code>") {
		t.Errorf("the browser-flow client's card: %s", ownertest.Text(card))
	}
}

// mustCode is the code in an authorization answer's redirect.
func mustCode(t *testing.T, res *http.Response) string {
	t.Helper()
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("no code in the redirect %q (%v)", res.Header.Get("Location"), err)
	}
	return loc.Query().Get("code")
}
