package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRevokeRFC7009(t *testing.T) {
	for _, which := range []string{"access_token", "refresh_token"} {
		t.Run(which, func(t *testing.T) {
			h := newHarness(t, harnessOpt{})
			tok, id := h.pair("revoker", LifeForever)
			a := h.post("/oauth/revoke", url.Values{"token": {tok.str(which)}, "token_type_hint": {which}})
			if a.status != http.StatusOK {
				t.Fatalf("revoke = %d %s", a.status, a.raw)
			}
			if w := h.whoami(tok.str("access_token")); w.status != http.StatusUnauthorized {
				t.Errorf("access token after revoke answered %d", w.status)
			}
			wantError(t, h.refresh(tok.str("refresh_token"), id), http.StatusBadRequest, "invalid_grant")
			if cs, _ := h.srv.Clients(context.Background()); len(cs) != 0 {
				t.Errorf("Clients after revoke = %+v, want none", cs)
			}
		})
	}
	h := newHarness(t, harnessOpt{})
	if a := h.post("/oauth/revoke", url.Values{"token": {"never-issued"}}); a.status != http.StatusOK {
		t.Errorf("revoke of an unknown token = %d, want 200", a.status)
	}
	wantError(t, h.post("/oauth/revoke", url.Values{}), http.StatusBadRequest, "invalid_request")
	wantError(t, h.post("/oauth/revoke", url.Values{"token": {"x"}, "token_type_hint": {"id_token"}}), http.StatusBadRequest, "unsupported_token_type")

	// Another entry's token is unknown here and stays valid.
	tail := newHarness(t, harnessOpt{entry: "tailnet", st: h.st, clock: h.clock})
	tok, _ := h.pair("lan", LifeForever)
	if a := tail.post("/oauth/revoke", url.Values{"token": {tok.str("access_token")}}); a.status != http.StatusOK {
		t.Errorf("cross-entry revoke = %d, want 200", a.status)
	}
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusOK {
		t.Errorf("lan token after a tailnet revoke attempt answered %d, want 200", w.status)
	}
}

func TestRevokeClient(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("to remove", Life30d)
	keep, _ := h.pair("to keep", Life30d)
	pending := h.ask("to remove", "phone:read", id)
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusOK {
		t.Fatalf("before revoke: %d", w.status)
	}
	cs, _ := h.srv.Clients(ctx)
	var grant string
	for _, c := range cs {
		if c.ClientID == id {
			grant = c.GrantID
		}
	}
	if err := h.srv.RevokeClient(ctx, id); err != nil {
		t.Fatal(err)
	}
	// Next request, no cache.
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusUnauthorized {
		t.Errorf("access token after RevokeClient answered %d, want 401", w.status)
	}
	wantError(t, h.refresh(tok.str("refresh_token"), id), http.StatusBadRequest, "invalid_grant")
	if on, _ := h.srv.GrantActive(ctx, grant); on {
		t.Error("GrantActive after RevokeClient = true")
	}
	if _, err := h.srv.Pending(ctx, handleOf(t, pending)); !errors.Is(err, ErrNoRequest) {
		t.Errorf("the removed client's pending request is still pending: %v", err)
	}
	if w := h.whoami(keep.str("access_token")); w.status != http.StatusOK {
		t.Errorf("the other client's token answered %d", w.status)
	}
	if cs, _ := h.srv.Clients(ctx); len(cs) != 1 || cs[0].Name != "to keep" {
		t.Errorf("Clients = %+v, want only the kept one", cs)
	}
	if err := h.srv.RevokeClient(ctx, "nope"); !errors.Is(err, ErrNoClient) {
		t.Errorf("RevokeClient(unknown) err = %v, want ErrNoClient", err)
	}
}

// TestRevokeOtherClient pins issue 22 D6: a token presented with another
// client's client_id was revoked. RFC 7009 §2.1 has the box check the
// token was issued to the requesting client and refuse otherwise:
// invalid_client, and nothing revoked. Its own client_id, in the form or
// as HTTP Basic, revokes it.
func TestRevokeOtherClient(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tokA, idA := h.pair("A", LifeForever)
	_, idB := h.pair("B", LifeForever)
	for _, which := range []string{"access_token", "refresh_token"} {
		for _, id := range []string{idB, "never-registered"} {
			a := h.post("/oauth/revoke", url.Values{"token": {tokA.str(which)}, "client_id": {id}})
			wantError(t, a, http.StatusUnauthorized, "invalid_client")
		}
		req, _ := http.NewRequest("POST", h.ts.URL+"/oauth/revoke", strings.NewReader(url.Values{"token": {tokA.str(which)}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(idB, "")
		wantError(t, h.do(req), http.StatusUnauthorized, "invalid_client")
	}
	if w := h.whoami(tokA.str("access_token")); w.status != http.StatusOK {
		t.Fatalf("A's token after B's revoke attempts answered %d, want 200", w.status)
	}
	if a := h.post("/oauth/revoke", url.Values{"token": {tokA.str("refresh_token")}, "client_id": {idA}}); a.status != http.StatusOK {
		t.Fatalf("A's own revoke = %d %s", a.status, a.raw)
	}
	if w := h.whoami(tokA.str("access_token")); w.status != http.StatusUnauthorized {
		t.Errorf("A's token after A's revoke answered %d, want 401", w.status)
	}
}
