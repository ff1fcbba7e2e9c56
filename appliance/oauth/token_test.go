package oauth

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

func TestGrantLives(t *testing.T) {
	const day = 24 * time.Hour
	type step struct {
		advance time.Duration // before the refresh
		ok      bool          // refresh succeeds
		expires time.Duration // if ok: access token expires_in, at most 15 minutes
	}
	tests := []struct {
		life  Life
		steps []step
	}{
		{Life24h, []step{
			{23 * time.Hour, true, 15 * time.Minute},
			{50 * time.Minute, true, 10 * time.Minute}, // capped by the grant
			{10 * time.Minute, false, 0},               // 24 h after approval: over, refreshes don't extend it
		}},
		{Life30d, []step{
			{29 * day, true, 15 * time.Minute},
			{29 * day, true, 15 * time.Minute}, // day 58: each refresh renewed to now+30 d
			{30 * day, false, 0},               // 30 days without a refresh
		}},
		{LifeForever, []step{
			{400 * day, true, 15 * time.Minute},
			{4000 * day, true, 15 * time.Minute},
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.life), func(t *testing.T) {
			h := newHarness(t, harnessOpt{})
			tok, id := h.pair("lifer", tt.life)
			for i, st := range tt.steps {
				h.clock.Advance(st.advance)
				a := h.refresh(tok.str("refresh_token"), id)
				if !st.ok {
					wantError(t, a, http.StatusBadRequest, "invalid_grant")
					if w := h.whoami(tok.str("access_token")); w.status != http.StatusUnauthorized {
						t.Errorf("step %d: access token of an expired grant answered %d", i, w.status)
					}
					continue
				}
				if a.status != http.StatusOK {
					t.Fatalf("step %d: refresh = %d %s", i, a.status, a.raw)
				}
				if got := time.Duration(a.num("expires_in")) * time.Second; got != st.expires {
					t.Errorf("step %d: expires_in = %v, want %v", i, got, st.expires)
				}
				if w := h.whoami(a.str("access_token")); w.status != http.StatusOK {
					t.Errorf("step %d: new access token answered %d %s", i, w.status, w.raw)
				}
				tok = a
			}
		})
	}
}

func TestAccessTokenExpires(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, _ := h.pair("x", LifeForever)
	h.clock.Advance(AccessTokenLife - time.Millisecond)
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusOK {
		t.Fatalf("just before expiry: %d %s", w.status, w.raw)
	}
	h.clock.Advance(time.Millisecond)
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusUnauthorized {
		t.Fatalf("at expiry: %d, want 401", w.status)
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("rotator", Life30d)
	_, other := h.pair("other", Life30d)

	// Another client's id is refused and revokes nothing.
	wantError(t, h.refresh(tok.str("refresh_token"), other), http.StatusBadRequest, "invalid_grant")
	wantError(t, h.post("/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.str("refresh_token")}}),
		http.StatusBadRequest, "invalid_request")
	// An access token is not a refresh token.
	wantError(t, h.refresh(tok.str("access_token"), id), http.StatusBadRequest, "invalid_grant")

	next := h.refresh(tok.str("refresh_token"), id)
	if next.status != http.StatusOK || next.str("refresh_token") == tok.str("refresh_token") {
		t.Fatalf("refresh = %d %s; want a new refresh token", next.status, next.raw)
	}
	// The previous pair's access token dies with its refresh token.
	if w := h.whoami(tok.str("access_token")); w.status != http.StatusUnauthorized {
		t.Errorf("old access token after rotation answered %d", w.status)
	}
	if w := h.whoami(next.str("access_token")); w.status != http.StatusOK {
		t.Fatalf("new access token answered %d %s", w.status, w.raw)
	}
	// Presenting the used refresh token again revokes the whole grant.
	wantError(t, h.refresh(tok.str("refresh_token"), id), http.StatusBadRequest, "invalid_grant")
	if w := h.whoami(next.str("access_token")); w.status != http.StatusUnauthorized {
		t.Errorf("access token after reuse answered %d, want 401", w.status)
	}
	wantError(t, h.refresh(next.str("refresh_token"), id), http.StatusBadRequest, "invalid_grant")
	if cs, _ := h.srv.Clients(context.Background()); len(cs) != 1 || cs[0].Name != "other" {
		t.Errorf("Clients after reuse = %+v, want only the other client", cs)
	}
}

func TestTokenRequestRefused(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tests := []struct {
		name   string
		form   url.Values
		status int
		code   string
	}{
		{"no grant_type", url.Values{"client_id": {"x"}}, 400, "invalid_request"},
		{"unknown grant_type", url.Values{"grant_type": {"password"}, "client_id": {"x"}}, 400, "unsupported_grant_type"},
		{"no client_id", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}}, 400, "invalid_request"},
		{"no device_code", url.Values{"grant_type": {DeviceCodeGrantType}, "client_id": {"x"}}, 400, "invalid_request"},
		{"no refresh_token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"x"}}, 400, "invalid_request"},
		{"unknown refresh_token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {"x"}}, 400, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, h.post("/token", tt.form), tt.status, tt.code) })
	}
	t.Run("client secret", func(t *testing.T) {
		req, _ := http.NewRequest("POST", h.ts.URL+"/token", nil)
		req.SetBasicAuth("x", "secret")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		wantError(t, h.do(req), http.StatusUnauthorized, "invalid_client")
	})
	t.Run("body over 64 KiB", func(t *testing.T) {
		big := url.Values{"grant_type": {"refresh_token"}, "client_id": {"x"}, "refresh_token": {string(make([]byte, 70<<10))}}
		wantError(t, h.post("/token", big), http.StatusRequestEntityTooLarge, "invalid_request")
	})
	t.Run("store closed", func(t *testing.T) {
		h2 := newHarness(t, harnessOpt{})
		h2.st.Close()
		wantError(t, h2.refresh("x", "y"), http.StatusInternalServerError, "server_error")
	})
}

// TestConcurrentRefresh: of concurrent refreshes with one token, one
// rotates; the others are answered as retries of a lost answer with the
// same pair, so exactly one new pair exists and it works.
func TestConcurrentRefresh(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	tok, id := h.pair("racer", Life30d)
	const n = 20
	var wg sync.WaitGroup
	answers := make([]answer, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = h.refresh(tok.str("refresh_token"), id)
		}()
	}
	close(start)
	wg.Wait()
	pairs := map[string]string{}
	for _, a := range answers {
		if a.status != http.StatusOK {
			t.Errorf("concurrent refresh answered %d %s", a.status, a.raw)
			continue
		}
		pairs[a.str("refresh_token")] = a.str("access_token")
	}
	if len(pairs) != 1 {
		t.Fatalf("concurrent refreshes made %d pairs, want exactly 1", len(pairs))
	}
	for rt, at := range pairs {
		if w := h.whoami(at); w.status != http.StatusOK {
			t.Errorf("the one new access token answered %d", w.status)
		}
		if next := h.refresh(rt, id); next.status != http.StatusOK {
			t.Errorf("the one new refresh token answered %d %s", next.status, next.raw)
		}
	}
	if err := h.st.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshRetryWindow: the refresh token just used is accepted again
// for RefreshRetryWindow while the pair it got is unused, and answered
// with that same pair (the answer was lost); any other reuse revokes the
// grant as before.
func TestRefreshRetryWindow(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// between runs after the refresh whose answer is "lost", before
		// the retry; it returns whether the retry must work.
		between func(h *harness, id string, next answer) bool
	}{
		{"retry at once", func(h *harness, id string, next answer) bool { return true }},
		{"retry at 59 s", func(h *harness, id string, next answer) bool {
			h.clock.Advance(RefreshRetryWindow - time.Second)
			return true
		}},
		{"retry at 60 s", func(h *harness, id string, next answer) bool {
			h.clock.Advance(RefreshRetryWindow)
			return false
		}},
		{"new access token used", func(h *harness, id string, next answer) bool {
			if w := h.whoami(next.str("access_token")); w.status != http.StatusOK {
				h.t.Fatalf("whoami = %d", w.status)
			}
			return false
		}},
		{"new refresh token used", func(h *harness, id string, next answer) bool {
			if a := h.refresh(next.str("refresh_token"), id); a.status != http.StatusOK {
				h.t.Fatalf("refresh = %d %s", a.status, a.raw)
			}
			return false
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpt{})
			tok, id := h.pair("retrier", Life30d)
			next := h.refresh(tok.str("refresh_token"), id) // its answer is lost
			if next.status != http.StatusOK {
				t.Fatalf("refresh = %d %s", next.status, next.raw)
			}
			works := tt.between(h, id, next)
			again := h.refresh(tok.str("refresh_token"), id)
			if !works {
				wantError(t, again, http.StatusBadRequest, "invalid_grant")
				if cs, _ := h.srv.Clients(ctx); len(cs) != 0 {
					t.Errorf("grant not revoked by the reuse: %+v", cs)
				}
				return
			}
			if again.status != http.StatusOK || again.str("refresh_token") != next.str("refresh_token") ||
				again.str("access_token") != next.str("access_token") || again.num("expires_in") > next.num("expires_in") {
				t.Fatalf("retry = %d %s, want the same pair as %s", again.status, again.raw, next.raw)
			}
			if w := h.whoami(again.str("access_token")); w.status != http.StatusOK {
				t.Fatalf("the retried pair's access token = %d", w.status)
			}
			third := h.refresh(again.str("refresh_token"), id)
			if third.status != http.StatusOK {
				t.Fatalf("refresh with the retried pair = %d %s", third.status, third.raw)
			}
			// Two rotations back is no retry: the grant is revoked.
			wantError(t, h.refresh(tok.str("refresh_token"), id), http.StatusBadRequest, "invalid_grant")
			if w := h.whoami(third.str("access_token")); w.status != http.StatusUnauthorized {
				t.Errorf("access token after the reuse = %d, want 401", w.status)
			}
		})
	}
}
