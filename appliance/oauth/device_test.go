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
	// A client that already has a pending request may replace it: the
	// number pending does not grow.
	h.ask("script again", "phone:read", first.str("client_id"))
	// Deciding one frees a place.
	if err := h.srv.Deny(context.Background(), handleOf(t, h.ask("x", "", first.str("client_id")))); err != nil {
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
		id = h.ask("script", "phone:read", id).str("client_id") // same client: one pending
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

func TestClientIDReuseReplacesPending(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	old := h.ask("nightly", "phone:read", "")
	id := old.str("client_id")
	h.clock.Advance(time.Minute)
	renewed := h.ask("nightly v2", "phone:read phone:control", id)
	if renewed.str("client_id") != id {
		t.Fatalf("client_id = %q, want the reused %q", renewed.str("client_id"), id)
	}
	pend, err := h.srv.PendingRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pend) != 1 || pend[0].Handle != handleOf(t, renewed) || pend[0].ClientName != "nightly v2" {
		t.Fatalf("PendingRequests = %+v, want only the new request", pend)
	}
	if _, err := h.srv.Pending(ctx, handleOf(t, old)); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Pending(old) err = %v, want ErrNoRequest", err)
	}
	wantError(t, h.poll(old), http.StatusBadRequest, "expired_token")
	// An unknown client_id starts a new entry with a new id.
	fresh := h.ask("other", "", "no-such-client")
	if fresh.str("client_id") == "no-such-client" || fresh.str("client_id") == id {
		t.Errorf("unknown client_id answered client_id %q", fresh.str("client_id"))
	}
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
