package oauth

import "net/http"

// CORS lets browser-based clients (an MCP inspector in a tab, a web agent)
// call next from any origin: it answers the preflight (OPTIONS) itself,
// before any bearer check, and marks every answer readable. Safe because
// these endpoints take no cookies: a bearer token, a public client_id or a
// form is all they read, and a request carrying the box page's session
// cookie beside a token is refused (see Middleware).
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Protocol-Version, "+
				"Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "600")
			h.Add("Vary", "Origin")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
