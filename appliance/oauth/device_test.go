package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

func TestDeviceAuthorizationAnswer(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	a := h.ask("nightly.py on mac-mini", "phone:read phone:control", "")
	if !regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`).MatchString(a.str("user_code")) {
		t.Errorf("user_code = %q, want XXXX-XXXX from the RFC 8628 alphabet", a.str("user_code"))
	}
	if a.num("expires_in") != 600 || a.num("interval") != 5 {
		t.Errorf("expires_in, interval = %d, %d; want 600, 5", a.num("expires_in"), a.num("interval"))
	}
	if len(a.str("device_code")) < 43 || a.str("client_id") == "" {
		t.Errorf("device_code %q or client_id %q too short", a.str("device_code"), a.str("client_id"))
	}
	host := strings.TrimPrefix(h.ts.URL, "https://")
	host = host[:strings.LastIndex(host, ":")]
	handle := handleOf(t, a)
	if want := "http://" + host + "/access?r=" + handle; a.str("verification_uri") != want || a.str("verification_uri_complete") != want {
		t.Errorf("verification_uri = %q, complete %q; want %q", a.str("verification_uri"), a.str("verification_uri_complete"), want)
	}
	if cc := a.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
	p, err := h.srv.Pending(context.Background(), handle)
	if err != nil {
		t.Fatal(err)
	}
	if p.UserCode != a.str("user_code") || p.ClientName != "nightly.py on mac-mini" || p.ClientID != a.str("client_id") ||
		strings.Join(p.Scopes, " ") != "phone:read phone:control" || p.Entry != "lan" || !p.Expires.Equal(p.Created.Add(10*time.Minute)) {
		t.Errorf("Pending = %+v", p)
	}
	// The device code is stored hashed only.
	var n int
	if err := h.st.View(context.Background(), func(tx *store.Tx) error {
		_, err := tx.DeviceRequestByHash(a.str("device_code"))
		if err == nil {
			n++
		}
		return nil
	}); err != nil || n != 0 {
		t.Errorf("device_code found in clear in the store (err %v)", err)
	}
}

func TestDeviceAuthorizationRefused(t *testing.T) {
	tests := []struct {
		name string
		form url.Values
		code string
	}{
		{"no client_name", url.Values{"scope": {"phone:read"}}, "invalid_request"},
		{"blank client_name", url.Values{"client_name": {"   "}}, "invalid_request"},
		{"101 characters", url.Values{"client_name": {strings.Repeat("é", 101)}}, "invalid_request"},
		{"control character", url.Values{"client_name": {"a\x07b"}}, "invalid_request"},
		{"owner:admin", url.Values{"client_name": {"x"}, "scope": {"phone:read owner:admin"}}, "invalid_scope"},
		{"unknown scope", url.Values{"client_name": {"x"}, "scope": {"phone:write"}}, "invalid_scope"},
		{"repeated parameter", url.Values{"client_name": {"x", "y"}}, "invalid_request"},
	}
	h := newHarness(t, harnessOpt{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, h.post("/oauth/device_authorization", tt.form), http.StatusBadRequest, tt.code)
		})
	}
	t.Run("json body", func(t *testing.T) {
		wantError(t, h.postJSON("/oauth/device_authorization", `{"client_name":"x"}`), http.StatusBadRequest, "invalid_request")
	})
	t.Run("100 characters accepted", func(t *testing.T) {
		h.ask(strings.Repeat("é", 100), "phone:read", "")
	})
}

func TestPendingLimit(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	var first answer
	for i := range MaxPendingRequests {
		a := h.ask("script", "phone:read", "")
		if i == 0 {
			first = a
		}
	}
	wantError(t, h.post("/oauth/device_authorization", url.Values{"client_name": {"sixth"}}), http.StatusTooManyRequests, "slow_down")
	// A request with a known client_id counts like any other: it replaces
	// nothing until the owner approves it.
	wantError(t, h.post("/oauth/device_authorization", url.Values{"client_name": {"script again"},
		"client_id": {first.str("client_id")}}), http.StatusTooManyRequests, "slow_down")
	// Deciding one frees a place.
	if err := h.srv.Deny(context.Background(), handleOf(t, first)); err != nil {
		t.Fatal(err)
	}
	h.ask("sixth", "phone:read", "")
	wantError(t, h.post("/oauth/device_authorization", url.Values{"client_name": {"seventh"}}), http.StatusTooManyRequests, "slow_down")
	// Expired requests do not count.
	h.clock.Advance(DeviceCodeLife)
	h.ask("after expiry", "phone:read", "")
}

func TestDeviceRequestRateLimit(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tail := newHarness(t, harnessOpt{entry: "tailnet", st: h.st, clock: h.clock})
	id := ""
	for range DeviceRequestsLimit - 1 {
		a := h.ask("script", "phone:read", id)
		id = a.str("client_id")
		// Denied at once, so the pending limit stays out of the way.
		if err := h.srv.Deny(context.Background(), handleOf(t, a)); err != nil {
			t.Fatal(err)
		}
		// Refused requests write nothing and do not count.
		wantError(t, h.post("/oauth/device_authorization", url.Values{"client_name": {""}}), http.StatusBadRequest, "invalid_request")
	}
	tail.ask("tailnet script", "phone:read", "")
	// The limit is the box's, across entries.
	wantError(t, tail.post("/oauth/device_authorization", url.Values{"client_name": {"x"}}), http.StatusTooManyRequests, "slow_down")
	a := h.post("/oauth/device_authorization", url.Values{"client_name": {"script"}, "client_id": {id}})
	wantError(t, a, http.StatusTooManyRequests, "slow_down")
	if a.header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After = %q, want 60", a.header.Get("Retry-After"))
	}
	h.clock.Advance(59 * time.Second)
	wantError(t, h.post("/oauth/device_authorization", url.Values{"client_name": {"script"}}), http.StatusTooManyRequests, "slow_down")
	h.clock.Advance(time.Second)
	h.ask("script", "phone:read", id)
}

func TestClientIDReuse(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	old := h.ask("nightly", "phone:read", "")
	id := old.str("client_id")
	h.clock.Advance(time.Minute)
	renewed := h.ask("nightly v2", "phone:read phone:control", id)
	if renewed.str("client_id") != id {
		t.Fatalf("client_id = %q, want the reused %q", renewed.str("client_id"), id)
	}
	// Both wait: the second request changed nothing about the client.
	pend, err := h.srv.PendingRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pend) != 2 || pend[0].ClientName != "nightly" || pend[1].ClientName != "nightly v2" ||
		pend[0].KnownAs != "" || pend[1].KnownAs != "" {
		t.Fatalf("PendingRequests = %+v, want both requests, by the names they asked in", pend)
	}
	wantError(t, h.poll(old), http.StatusBadRequest, "authorization_pending")
	// Approving one replaces the client's others and names the client.
	if err := h.srv.Approve(ctx, handleOf(t, renewed), Life24h); err != nil {
		t.Fatal(err)
	}
	if _, err := h.srv.Pending(ctx, handleOf(t, old)); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Pending(old) err = %v, want ErrNoRequest", err)
	}
	h.clock.Advance(DevicePollInterval)
	wantError(t, h.poll(old), http.StatusBadRequest, "expired_token")
	if tok := h.poll(renewed); tok.status != http.StatusOK {
		t.Fatalf("poll = %d %s", tok.status, tok.raw)
	}
	if cs, _ := h.srv.Clients(ctx); len(cs) != 1 || cs[0].Name != "nightly v2" || cs[0].ClientID != id {
		t.Errorf("Clients = %+v, want nightly v2 under %s", cs, id)
	}
}

// TestDeviceRequestRenamesNothing pins the unauthenticated rename: a device
// request with an approved client's client_id (no secret: it shows in the
// Access page's markup and the logs) and another client_name used to rename
// that client on Access and in its callers, and to replace its pending
// request. Now it changes nothing until the owner approves it, and Access
// names it as a new request in the known client's name.
func TestDeviceRequestRenamesNothing(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("nightly", Life30d)
	waiting := h.ask("nightly", "phone:read", id) // the real client asks again
	evil := h.ask("evil", "phone:read phone:control", id)
	if evil.str("client_id") != id {
		t.Fatalf("client_id = %q, want %q", evil.str("client_id"), id)
	}
	if cs, _ := h.srv.Clients(ctx); len(cs) != 1 || cs[0].Name != "nightly" {
		t.Errorf("Clients = %+v, want nightly unchanged", cs)
	}
	w := h.whoami(tok.str("access_token"))
	if w.status != http.StatusOK || w.body["ClientName"] != "nightly" {
		t.Errorf("whoami = %d %s, want the client still named nightly", w.status, w.raw)
	}
	p, err := h.srv.Pending(ctx, handleOf(t, evil))
	if err != nil || p.ClientName != "evil" || p.KnownAs != "nightly" {
		t.Errorf("Pending(evil) = %+v, %v; want ClientName evil, KnownAs nightly", p, err)
	}
	if p, err := h.srv.Pending(ctx, handleOf(t, waiting)); err != nil || p.KnownAs != "nightly" {
		t.Errorf("the real client's request was touched: %+v, %v", p, err)
	}
	// The owner denies it: still nothing changed.
	if err := h.srv.Deny(ctx, handleOf(t, evil)); err != nil {
		t.Fatal(err)
	}
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusOK {
		t.Errorf("the real client's token after the denied request = %d", w.status)
	}
	if next := h.refresh(tok.str("refresh_token"), id); next.status != http.StatusOK {
		t.Errorf("the real client's refresh = %d %s", next.status, next.raw)
	}
}

// TestDeviceClientID covers RFC 8628 §3.1's client_id: a CLI's fixed id
// (golang.org/x/oauth2 sends only client_id and scope), a client registered
// through /oauth/register, and one of the other entry.
func TestDeviceClientID(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	t.Run("fixed id without a name", func(t *testing.T) {
		a := h.post("/oauth/device_authorization", url.Values{"client_id": {"openlolo-cli"}, "scope": {"phone:read"}})
		if a.status != http.StatusOK || a.str("client_id") != "openlolo-cli" {
			t.Fatalf("device authorization = %d %s", a.status, a.raw)
		}
		p, err := h.srv.Pending(ctx, handleOf(t, a))
		if err != nil || p.ClientName != "openlolo-cli" || p.KnownAs != "" {
			t.Fatalf("Pending = %+v, %v; want it named by its id", p, err)
		}
		if err := h.srv.Approve(ctx, p.Handle, Life24h); err != nil {
			t.Fatal(err)
		}
		if tok := h.poll(a); tok.status != http.StatusOK {
			t.Fatalf("poll with the fixed id = %d %s", tok.status, tok.raw)
		}
	})
	t.Run("fixed id with a name", func(t *testing.T) {
		a := h.ask("my tool", "", "tool-fixed-id")
		if p, err := h.srv.Pending(ctx, handleOf(t, a)); err != nil || p.ClientName != "my tool" || a.str("client_id") != "tool-fixed-id" {
			t.Fatalf("Pending = %+v, %v; answer %s", p, err, a.raw)
		}
	})
	t.Run("registered client", func(t *testing.T) {
		reg := h.postJSON("/oauth/register", `{"client_name":"MCP CLI Proxy","grant_types":["`+DeviceCodeGrantType+`","refresh_token"]}`)
		if reg.status != http.StatusCreated {
			t.Fatalf("register = %d %s", reg.status, reg.raw)
		}
		a := h.post("/oauth/device_authorization", url.Values{"client_id": {reg.str("client_id")}})
		if a.status != http.StatusOK || a.str("client_id") != reg.str("client_id") {
			t.Fatalf("device authorization = %d %s", a.status, a.raw)
		}
		if p, err := h.srv.Pending(ctx, handleOf(t, a)); err != nil || p.ClientName != "MCP CLI Proxy" {
			t.Errorf("Pending = %+v, %v", p, err)
		}
		// A pending device request keeps an unapproved registration.
		h.clock.Advance(UnapprovedRegistrationLife - time.Minute)
		h.register(testRedirect) // prunes
		if _, err := h.srv.Pending(ctx, handleOf(t, a)); err != nil {
			t.Errorf("the registration was pruned under its pending request: %v", err)
		}
	})
	t.Run("other entry's client", func(t *testing.T) {
		tail := newHarness(t, harnessOpt{entry: "tailnet", st: h.st, clock: h.clock})
		h.clock.Advance(time.Minute)
		tid := tail.ask("tail script", "", "").str("client_id")
		a := h.ask("lan script", "", tid)
		if a.str("client_id") == tid || a.str("client_id") == "" {
			t.Errorf("a tailnet client_id on the LAN answered client_id %q, want a new one", a.str("client_id"))
		}
	})
	t.Run("bad client_id", func(t *testing.T) {
		for _, id := range []string{"a b", strings.Repeat("x", 101), "tab\there", "é"} {
			wantError(t, h.post("/oauth/device_authorization", url.Values{"client_id": {id}}), http.StatusBadRequest, "invalid_request")
		}
	})
}

func TestDevicePolling(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	a := h.ask("poller", "phone:read", "")
	wantError(t, h.poll(a), http.StatusBadRequest, "authorization_pending")
	// Polling faster than the interval raises it by 5 s for that code.
	h.clock.Advance(2 * time.Second)
	wantError(t, h.poll(a), http.StatusBadRequest, "slow_down")
	h.clock.Advance(6 * time.Second) // fine at 5 s, too fast at 10 s
	wantError(t, h.poll(a), http.StatusBadRequest, "slow_down")
	h.clock.Advance(15 * time.Second) // the interval is now 15 s
	wantError(t, h.poll(a), http.StatusBadRequest, "authorization_pending")
	h.clock.Advance(15 * time.Second)
	// Another code keeps its own interval.
	b := h.ask("other", "phone:read", "")
	wantError(t, h.poll(b), http.StatusBadRequest, "authorization_pending")
	h.clock.Advance(5 * time.Second)
	wantError(t, h.poll(b), http.StatusBadRequest, "authorization_pending")

	// Another client's id does not unlock the code.
	wrong := h.post("/token", url.Values{"grant_type": {DeviceCodeGrantType}, "device_code": {a.str("device_code")}, "client_id": {b.str("client_id")}})
	wantError(t, wrong, http.StatusBadRequest, "invalid_grant")
	wantError(t, h.post("/token", url.Values{"grant_type": {DeviceCodeGrantType}, "device_code": {a.str("device_code")}}),
		http.StatusBadRequest, "invalid_request")
	wantError(t, h.post("/token", url.Values{"grant_type": {DeviceCodeGrantType}, "device_code": {"nope"}, "client_id": {"x"}}),
		http.StatusBadRequest, "invalid_grant")

	if err := h.srv.Approve(ctx, handleOf(t, a), Life24h); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(15 * time.Second)
	tok := h.poll(a)
	if tok.status != http.StatusOK || tok.str("token_type") != "Bearer" || tok.num("expires_in") != 900 ||
		tok.str("scope") != "phone:read" || tok.str("refresh_token") == "" {
		t.Fatalf("token answer = %d %s", tok.status, tok.raw)
	}
	if tok.header.Get("Cache-Control") != "no-store" {
		t.Errorf("token answer Cache-Control = %q", tok.header.Get("Cache-Control"))
	}
	h.clock.Advance(15 * time.Second)
	wantError(t, h.poll(a), http.StatusBadRequest, "invalid_grant") // single use

	// Denied.
	if err := h.srv.Deny(ctx, handleOf(t, b)); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(5 * time.Second)
	wantError(t, h.poll(b), http.StatusBadRequest, "access_denied")

	// Expired.
	c := h.ask("late", "phone:read", "")
	h.clock.Advance(DeviceCodeLife)
	wantError(t, h.poll(c), http.StatusBadRequest, "expired_token")
	if err := h.srv.Approve(ctx, handleOf(t, c), Life24h); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Approve(expired) err = %v, want ErrNoRequest", err)
	}
}

func TestOwnerDecisions(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	a := h.ask("x", "phone:read", "")
	if err := h.srv.Approve(ctx, handleOf(t, a), Life("1y")); !errors.Is(err, ErrBadLife) {
		t.Errorf("Approve(life 1y) err = %v, want ErrBadLife", err)
	}
	if err := h.srv.Approve(ctx, "no-such-handle", Life24h); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Approve(unknown) err = %v, want ErrNoRequest", err)
	}
	if err := h.srv.Deny(ctx, "no-such-handle"); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Deny(unknown) err = %v, want ErrNoRequest", err)
	}
	if err := h.srv.Approve(ctx, handleOf(t, a), Life30d); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.Deny(ctx, handleOf(t, a)); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Deny(approved) err = %v, want ErrNoRequest", err)
	}
	if _, err := h.srv.Pending(ctx, handleOf(t, a)); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Pending(approved) err = %v, want ErrNoRequest", err)
	}
	clients, err := h.srv.Clients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := h.clock.Now()
	if len(clients) != 1 || clients[0].ClientID != a.str("client_id") || clients[0].Life != Life30d ||
		!clients[0].Expires.Equal(now.Add(30*24*time.Hour)) || !clients[0].LastUsed.IsZero() || clients[0].Entry != "lan" {
		t.Fatalf("Clients = %+v", clients)
	}
	// Approving the same client again keeps one Access entry.
	b := h.ask("x again", "phone:read", a.str("client_id"))
	if err := h.srv.Approve(ctx, handleOf(t, b), LifeForever); err != nil {
		t.Fatal(err)
	}
	clients, _ = h.srv.Clients(ctx)
	if len(clients) != 1 || clients[0].Life != LifeForever || !clients[0].Expires.IsZero() || clients[0].Name != "x again" {
		t.Fatalf("Clients after re-approval = %+v", clients)
	}
	if on, err := h.srv.GrantActive(ctx, clients[0].GrantID); err != nil || !on {
		t.Errorf("GrantActive(new) = %v, %v", on, err)
	}
	if on, err := h.srv.GrantActive(ctx, "nope"); err != nil || on {
		t.Errorf("GrantActive(unknown) = %v, %v; want false", on, err)
	}
}

func TestUserCodeAlphabet(t *testing.T) {
	seen := map[rune]bool{}
	for range 500 {
		c := newUserCode()
		if len(c) != 8 {
			t.Fatalf("newUserCode() = %q, want 8 characters", c)
		}
		for _, r := range c {
			if !strings.ContainsRune(userCodeAlphabet, r) {
				t.Fatalf("newUserCode() = %q has %q outside the alphabet", c, r)
			}
			seen[r] = true
		}
	}
	if len(seen) != len(userCodeAlphabet) {
		t.Errorf("500 codes used %d of %d letters", len(seen), len(userCodeAlphabet))
	}
}
