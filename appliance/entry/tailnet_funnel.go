package entry

import (
	"net/http"
	"strings"
)

// FunnelAllowed reports whether a path may be reached through Funnel from
// the public internet: /mcp, /.well-known/…, /token and /oauth/… except
// /oauth/authorize, the consent page, which is the owner's and is served
// only to devices on the tailnet (the same host name resolves to the
// tailnet address there, so the browser flow still completes).
func FunnelAllowed(path string) bool {
	switch {
	case path == "/mcp", path == "/token":
		return true
	case path == "/oauth/authorize":
		return false
	case strings.HasPrefix(path, "/.well-known/"), strings.HasPrefix(path, "/oauth/"):
		return true
	}
	return false
}

// FunnelOnly answers 404 with a sentence to every path FunnelAllowed
// refuses, so public requests never reach the box page.
func FunnelOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !FunnelAllowed(r.URL.Path) {
			w.Header().Set("Cache-Control", "no-store")
			msg := "Not found on the public (Funnel) address of this box: only /mcp and OAuth are public."
			if r.URL.Path == "/oauth/authorize" {
				msg = "Approve this connection from a device on your tailnet: the box's consent page is not public. Open this link again on a device signed in to your tailnet."
			}
			http.Error(w, msg, http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}
