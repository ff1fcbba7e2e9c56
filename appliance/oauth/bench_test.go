package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkRefresh measures one refresh_token grant through the /token
// handler: form parsing, the rotation transaction on SQLite (synchronous=FULL
// commit) and the JSON answer.
func BenchmarkRefresh(b *testing.B) {
	h := newHarness(b, harnessOpt{})
	tok, id := h.pair("bench", LifeForever)
	mux := h.mux()
	rt := tok.str("refresh_token")
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/token", strings.NewReader(url.Values{"grant_type": {"refresh_token"},
			"refresh_token": {rt}, "client_id": {id}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("refresh = %d %s", rec.Code, rec.Body)
		}
		var resp tokenResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			b.Fatal(err)
		}
		rt = resp.RefreshToken
	}
}

// BenchmarkBearerCheck measures the bearer check of one request (a read
// transaction that joins token, grant and client), and BenchmarkNoAuth the
// same handler without it, as the baseline.
func BenchmarkBearerCheck(b *testing.B) {
	h := newHarness(b, harnessOpt{})
	tok, _ := h.pair("bench", LifeForever)
	handler := h.srv.Middleware(http.HandlerFunc(okHandler))
	benchHandler(b, handler, "Bearer "+tok.str("access_token"))
}

func BenchmarkNoAuth(b *testing.B) {
	benchHandler(b, http.HandlerFunc(okHandler), "Bearer x")
}

func okHandler(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }

func benchHandler(b *testing.B, h http.Handler, auth string) {
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Authorization", auth)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNoContent {
			b.Fatalf("answer %d %s", rec.Code, rec.Body)
		}
	}
}
