package owner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
)

// approvedClient asks for access as name and approves it for life.
func approvedClient(t *testing.T, b *box, c *http.Client, name, life string) (device, tokenAnswer) {
	t.Helper()
	d := askAccess(t, b, name)
	ownertest.Approve(t, c, b.url, d.UserCode, life)
	b.clock.Add(10 * time.Second)
	a := pollToken(t, b, d)
	if a.AccessToken == "" {
		t.Fatalf("poll after approval: %+v", a)
	}
	return d, a
}

// clientCard is the Access page's card of clientID.
func clientCard(t *testing.T, body, clientID string) string {
	t.Helper()
	i := strings.Index(body, `data-client-id="`+clientID+`"`)
	if i < 0 {
		t.Fatalf("Access page does not list %s: %s", clientID, ownertest.Text(body))
	}
	card := body[i:]
	if j := strings.Index(card[1:], `class="client"`); j >= 0 {
		card = card[:j+1]
	}
	return card
}

// TestAccessChangeLife: a client approved for 24 hours is changed to
// "until removed" on the page; the grant then outlives the 24 hours (its
// refresh token still works a day later).
func TestAccessChangeLife(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, a := approvedClient(t, b, c, "life script", ownertest.Life24h)
	if card := clientCard(t, mustGet(t, c, b.url, "/access"), d.ClientID); !strings.Contains(card, "24 hours") {
		t.Fatalf("card does not name the grant life: %s", ownertest.Text(card))
	}
	tok := ownertest.CSRF(t, c, b.url)
	res, body := ownertest.PostForm(t, c, b.url, "/access/life", url.Values{"csrf": {tok}, "client_id": {d.ClientID}, "life": {ownertest.LifeForever}})
	if res.StatusCode != 200 || !strings.Contains(body, "Changed.") {
		t.Fatalf("change life: %d %q", res.StatusCode, ownertest.Text(body))
	}
	if card := clientCard(t, body, d.ClientID); !strings.Contains(card, "<dd>until removed</dd>") {
		t.Errorf("after the change the card does not say until removed: %s", ownertest.Text(card))
	}
	b.clock.Add(25 * time.Hour)
	if r := postToken(t, b, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {a.RefreshToken}, "client_id": {d.ClientID}}); r.AccessToken == "" {
		t.Fatalf("refresh 25 h later with the grant until removed: %+v, want tokens", r)
	}
}

// TestAccessChangeLifeRefusals: a bad life, an unknown client, no token.
func TestAccessChangeLifeRefusals(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, _ := approvedClient(t, b, c, "life script", ownertest.Life24h)
	tok := ownertest.CSRF(t, c, b.url)
	for _, tc := range []struct {
		form   url.Values
		status int
		says   string
	}{
		{url.Values{"csrf": {tok}, "client_id": {d.ClientID}, "life": {"1y"}}, 400, "Choose how long"},
		{url.Values{"csrf": {tok}, "client_id": {"nope"}, "life": {ownertest.Life30d}}, 404, "no client"},
		{url.Values{"client_id": {d.ClientID}, "life": {ownertest.Life30d}}, 403, "security token"},
	} {
		res, body := ownertest.PostForm(t, c, b.url, "/access/life", tc.form)
		if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%v: %d %q, want %d saying %q", tc.form, res.StatusCode, ownertest.Text(body), tc.status, tc.says)
		}
	}
	if card := clientCard(t, mustGet(t, c, b.url, "/access"), d.ClientID); !strings.Contains(card, "2026-11-30 12:00") {
		t.Errorf("a refused change changed the expiry: %s", ownertest.Text(card))
	}
}

// TestAccessRevokeConfirms: the first post only asks; the token works
// until the confirmation is sent.
func TestAccessRevokeConfirms(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, a := approvedClient(t, b, c, "revoke script", ownertest.Life30d)
	tok := ownertest.CSRF(t, c, b.url)
	res, body := ownertest.PostForm(t, c, b.url, "/access/revoke", url.Values{"csrf": {tok}, "client_id": {d.ClientID}})
	if res.StatusCode != 200 || !strings.Contains(body, "Revoke revoke script?") || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("revoke without confirm: %d %q, want the confirmation", res.StatusCode, ownertest.Text(body))
	}
	if got := probe(t, b, a.AccessToken); got != http.StatusOK {
		t.Fatalf("token after the unconfirmed revoke: %d, want 200", got)
	}
	if res, _ := ownertest.PostForm(t, c, b.url, "/access/revoke", url.Values{"csrf": {tok}, "client_id": {"nope"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("confirmation for an unknown client: %d, want 404", res.StatusCode)
	}
	ownertest.Revoke(t, c, b.url, d.ClientID)
	if got := probe(t, b, a.AccessToken); got != http.StatusUnauthorized {
		t.Fatalf("token after the confirmed revoke: %d, want 401", got)
	}
}

// TestAccessCallsToday counts a client's operations and logged calls
// since midnight, not yesterday's nor another client's.
func TestAccessCallsToday(t *testing.T) {
	b, c := claimedBox(t, boxOpts{})
	d, _ := approvedClient(t, b, c, "busy script", ownertest.Life30d)
	now := b.clock.Now()
	err := b.st.Update(context.Background(), func(tx *store.Tx) error {
		for i, at := range []time.Time{now, now.Add(-time.Minute), now.Add(-24 * time.Hour)} {
			op := store.Operation{ID: "op" + itoa(i), ClientID: d.ClientID, ClientName: "busy script", Tool: "openlolo_tap", Fingerprint: "f", State: "succeeded", Created: at, Updated: at}
			if err := tx.InsertOperation(op); err != nil {
				return err
			}
		}
		if err := tx.InsertOperation(store.Operation{ID: "other", ClientID: "someone else", ClientName: "x", Tool: "openlolo_tap", Fingerprint: "f", State: "succeeded", Created: now, Updated: now}); err != nil {
			return err
		}
		return tx.InsertAction(store.Action{At: now, Actor: "busy script", ClientID: d.ClientID, Action: "call", Tool: "openlolo_screenshot", Outcome: "succeeded"})
	})
	if err != nil {
		t.Fatal(err)
	}
	card := clientCard(t, mustGet(t, c, b.url, "/access"), d.ClientID)
	if !strings.Contains(card, `<dd class="calls-today">3</dd>`) {
		t.Errorf("calls today: card %s, want 3", ownertest.Text(card))
	}
}
