package entry_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/openlolo/openlolo/appliance/entry"
)

// The entry middleware against the bare handler on the same request.
func BenchmarkMiddleware(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	hosts := entry.Hosts{Names: []string{"openlolo-ab12.local", "openlolo-ab12", "localhost"}}
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", ok},
		{"host+headers", entry.SecurityHeaders(entry.HostCheck(hosts, ok))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/healthz", nil)
			r.Host = "openlolo-ab12.local:443"
			for b.Loop() {
				w := httptest.NewRecorder()
				bc.h.ServeHTTP(w, r)
			}
		})
	}
}
