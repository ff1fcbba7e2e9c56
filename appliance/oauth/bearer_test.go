package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

func TestBearerCaller(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("caller", Life24h)
	w := h.whoami(tok.str("access_token"))
	if w.status != http.StatusOK {
		t.Fatalf("whoami = %d %s", w.status, w.raw)
	}
	var c Caller
	if err := json.Unmarshal([]byte(w.raw), &c); err != nil {
		t.Fatal(err)
	}
	if c.ClientID != id || c.ClientName != "caller" || c.Entry != "lan" || c.GrantID == "" ||
		c.Issuer != "https://"+strings.TrimPrefix(h.ts.URL, "https://") ||
		!c.Has(ScopePhoneRead) || !c.Has(ScopePhoneControl) || c.Has(ScopeOwnerAdmin) ||
		!c.GrantExpires.Equal(h.clock.Now().Add(24*time.Hour)) {
		t.Errorf("Caller = %+v", c)
	}
	var nilCaller *Caller
	if nilCaller.Has(ScopePhoneRead) {
		t.Error("nil Caller has a scope")
	}
	if _, ok := CallerFrom(context.Background()); ok {
		t.Error("CallerFrom(empty context) = ok")
	}
}

func TestBearerRefused(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, _ := h.pair("x", LifeForever)
	access := tok.str("access_token")
	tests := []struct {
		name   string
		build  func(r *http.Request)
		path   string
		status int
		code   string
	}{
		{"token in the query", func(r *http.Request) {}, "/whoami?access_token=" + access, 400, "invalid_request"},
		{"token in the query and header", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+access) },
			"/whoami?access_token=" + access, 400, "invalid_request"},
		{"two Authorization headers", func(r *http.Request) {
			r.Header.Add("Authorization", "Bearer "+access)
			r.Header.Add("Authorization", "Bearer "+access)
		}, "/whoami", 400, "invalid_request"},
		{"bearer and session cookie", func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+access)
			r.AddCookie(&http.Cookie{Name: SessionCookie, Value: "s"})
		}, "/whoami", 400, "invalid_request"},
		{"basic scheme", func(r *http.Request) { r.SetBasicAuth("x", access) }, "/whoami", 401, "invalid_token"},
		{"empty bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, "/whoami", 401, "invalid_token"},
		{"unknown token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, "/whoami", 401, "invalid_token"},
		{"refresh token as bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok.str("refresh_token")) },
			"/whoami", 401, "invalid_token"},
	}
	wantMeta := `resource_metadata="` + h.ts.URL + `/.well-known/oauth-protected-resource"`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", h.ts.URL+tt.path, nil)
			tt.build(req)
			a := h.do(req)
			wantError(t, a, tt.status, tt.code)
			www := a.header.Get("WWW-Authenticate")
			if !strings.HasPrefix(www, `Bearer error="`+tt.code+`"`) || !strings.Contains(www, wantMeta) ||
				!strings.Contains(www, `scope="phone:read phone:control"`) {
				t.Errorf("WWW-Authenticate = %q, want error %q, the scopes and %s", www, tt.code, wantMeta)
			}
		})
	}
	// RFC 6750 §3.1: a request without credentials learns where to get
	// them, but is told of no error.
	t.Run("no credentials", func(t *testing.T) {
		a := h.do(must(http.NewRequest("GET", h.ts.URL+"/whoami", nil)))
		www := a.header.Get("WWW-Authenticate")
		if a.status != http.StatusUnauthorized || strings.Contains(www, "error") || a.str("error") != "" ||
			www != `Bearer scope="phone:read phone:control", `+wantMeta {
			t.Errorf("no credentials = %d %s, WWW-Authenticate %q", a.status, a.raw, www)
		}
	})
	// The valid token still works: the refusals were about the request.
	if w := h.whoami(access); w.status != http.StatusOK {
		t.Fatalf("valid token answered %d", w.status)
	}
}

func TestCrossEntryTokenRefused(t *testing.T) {
	lan := newHarness(t, harnessOpt{entry: "lan"})
	tail := newHarness(t, harnessOpt{entry: "tailnet", st: lan.st, clock: lan.clock})
	lanTok, lanID := lan.pair("lan script", Life24h)
	tailTok, tailID := tail.pair("tail script", Life24h)
	for _, c := range []struct {
		name string
		h    *harness
		tok  answer
		id   string
	}{{"lan token on tailnet", tail, lanTok, lanID}, {"tailnet token on lan", lan, tailTok, tailID}} {
		t.Run(c.name, func(t *testing.T) {
			a := c.h.whoami(c.tok.str("access_token"))
			wantError(t, a, http.StatusUnauthorized, "invalid_token")
			wantError(t, c.h.refresh(c.tok.str("refresh_token"), c.id), http.StatusBadRequest, "invalid_grant")
		})
	}
	// Both still work where they were issued (the refused refreshes above
	// did not use them up).
	if lan.whoami(lanTok.str("access_token")).status != 200 || tail.whoami(tailTok.str("access_token")).status != 200 {
		t.Error("tokens stopped working on their own entry")
	}
	if a := lan.refresh(lanTok.str("refresh_token"), lanID); a.status != 200 {
		t.Errorf("lan refresh on lan = %d %s", a.status, a.raw)
	}
	// The owner sees both entries' clients from either Server.
	cs, err := lan.srv.Clients(context.Background())
	if err != nil || len(cs) != 2 {
		t.Fatalf("Clients = %+v, %v; want both entries", cs, err)
	}
	if _, err := New(Config{Store: lan.st, Entry: "wan"}); err == nil {
		t.Error("New(entry wan) succeeded")
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New(no store) succeeded")
	}
}

func TestLastUsedAtMostOncePerMinute(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, harnessOpt{})
	tok, _ := h.pair("user", LifeForever)
	issued := h.clock.Now() // issuing tokens counts as use
	lastUsed := func() time.Time {
		cs, err := h.srv.Clients(ctx)
		if err != nil || len(cs) != 1 {
			t.Fatalf("Clients = %+v, %v", cs, err)
		}
		return cs[0].LastUsed
	}
	if !lastUsed().Equal(issued) {
		t.Fatalf("LastUsed = %v, want %v", lastUsed(), issued)
	}
	h.clock.Advance(30 * time.Second)
	h.whoami(tok.str("access_token"))
	if !lastUsed().Equal(issued) {
		t.Errorf("LastUsed rewritten within a minute: %v", lastUsed())
	}
	h.clock.Advance(31 * time.Second)
	h.whoami(tok.str("access_token"))
	if want := h.clock.Now(); !lastUsed().Equal(want) {
		t.Errorf("LastUsed = %v, want %v", lastUsed(), want)
	}
}

func TestBearerStoreFailure(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, _ := h.pair("x", LifeForever)
	h.st.Close()
	if a := h.whoami(tok.str("access_token")); a.status != http.StatusServiceUnavailable {
		t.Errorf("bearer check with the store closed = %d, want 503", a.status)
	}
}

// TestBearerCacheInvalidatedAtOnce: bearer checks are cached, but every
// way a token stops working or its client changes name takes effect on
// the very next call, whichever Server (entry) or package made the change.
func TestBearerCacheInvalidatedAtOnce(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		change func(t *testing.T, h *harness, tok answer, id string)
		want   int
	}{
		{"owner revokes the client", func(t *testing.T, h *harness, tok answer, id string) {
			if err := h.srv.RevokeClient(ctx, id); err != nil {
				t.Fatal(err)
			}
		}, http.StatusUnauthorized},
		{"RFC 7009 revoke", func(t *testing.T, h *harness, tok answer, id string) {
			h.post("/oauth/revoke", url.Values{"token": {tok.str("refresh_token")}, "client_id": {id}})
		}, http.StatusUnauthorized},
		{"refresh rotation", func(t *testing.T, h *harness, tok answer, id string) {
			if a := h.refresh(tok.str("refresh_token"), id); a.status != http.StatusOK {
				t.Fatalf("refresh = %d", a.status)
			}
		}, http.StatusUnauthorized},
		{"factory reset in the store", func(t *testing.T, h *harness, tok answer, id string) {
			if err := h.st.Update(ctx, func(tx *store.Tx) error { _, err := tx.FactoryReset(); return err }); err != nil {
				t.Fatal(err)
			}
		}, http.StatusUnauthorized},
		{"grant revoked by another package's transaction", func(t *testing.T, h *harness, tok answer, id string) {
			cs, _ := h.srv.Clients(ctx)
			if err := h.st.Update(ctx, func(tx *store.Tx) error { return tx.RevokeGrant(cs[0].GrantID, h.clock.Now()) }); err != nil {
				t.Fatal(err)
			}
		}, http.StatusUnauthorized},
		{"revoked through the other entry's Server", func(t *testing.T, h *harness, tok answer, id string) {
			tail := newHarness(t, harnessOpt{entry: "tailnet", st: h.st, clock: h.clock})
			if err := tail.srv.RevokeClient(ctx, id); err != nil {
				t.Fatal(err)
			}
		}, http.StatusUnauthorized},
		{"grant expires", func(t *testing.T, h *harness, tok answer, id string) {
			h.clock.Advance(24 * time.Hour)
		}, http.StatusUnauthorized},
		{"client renamed by an approved request", func(t *testing.T, h *harness, tok answer, id string) {
			a := h.ask("renamed", "phone:read phone:control", id)
			if err := h.srv.Approve(ctx, handleOf(t, a), Life24h); err != nil {
				t.Fatal(err)
			}
		}, http.StatusUnauthorized}, // approving again revokes the earlier grant
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpt{})
			tok, id := h.pair("cached", Life24h)
			for range 3 { // the first fills the cache, the others hit it
				if w := h.whoami(tok.str("access_token")); w.status != http.StatusOK {
					t.Fatalf("whoami = %d", w.status)
				}
			}
			tt.change(t, h, tok, id)
			if w := h.whoami(tok.str("access_token")); w.status != tt.want {
				t.Errorf("the very next call = %d %s, want %d", w.status, w.raw, tt.want)
			}
		})
	}
}
