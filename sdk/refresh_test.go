package sdk

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// lossyBox is a /token endpoint that rotates like the box (with its retry
// window: the used token again, while the new pair is unused, gets the
// same pair) and drops the answer of the first refresh it rotates: the
// connection closes after the rotation, as after a Wi-Fi blip.
type lossyBox struct {
	mu      sync.Mutex
	current string            // the live refresh token
	prev    map[string]string // used token -> the refresh token its rotation issued
	n       int
	drop    bool
	served  int
}

func (b *lossyBox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.served++
	rt := r.PostFormValue("refresh_token")
	next := ""
	switch {
	case rt == b.current:
		b.n++
		next = fmt.Sprintf("rt-%d", b.n)
		b.prev[rt], b.current = next, next
	case b.prev[rt] == b.current: // the retry window
		next = b.current
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"invalid_grant","error_description":"used refresh token; grant revoked"}`)
		return
	}
	if b.drop {
		b.drop = false
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":"at-%s","refresh_token":%q,"expires_in":900,"token_type":"Bearer"}`, next, next)
}

// TestRefreshRetriesLostAnswer: the Go SDK retries a refresh once after a
// dropped answer, with the same refresh token, and stores what the retry
// answered.
func TestRefreshRetriesLostAnswer(t *testing.T) {
	lb := &lossyBox{current: "rt-0", prev: map[string]string{}, drop: true}
	srv := httptest.NewTLSServer(lb)
	defer srv.Close()
	st := &TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	if err := st.Put(Box{URL: srv.URL, ClientID: "c", AccessToken: "old", RefreshToken: "rt-0", Expiry: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), srv.URL, &Options{Store: st, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	at, err := c.accessToken(context.Background(), false)
	if err != nil {
		t.Fatalf("accessToken after a dropped answer: %v", err)
	}
	b, _ := st.Get(srv.URL)
	if at != "at-rt-1" || b.RefreshToken != "rt-1" || lb.served != 2 {
		t.Errorf("access %q, stored refresh %q after %d requests; want at-rt-1, rt-1 after 2", at, b.RefreshToken, lb.served)
	}
	// A refused refresh is not retried.
	lb.mu.Lock()
	lb.current, lb.served = "rt-other", 0
	lb.mu.Unlock()
	if _, err := c.accessToken(context.Background(), true); err == nil || lb.served != 1 {
		t.Errorf("refused refresh: err %v after %d requests, want an error after 1", err, lb.served)
	}
}
