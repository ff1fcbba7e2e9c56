package owner

import (
	"net/http"
	"strings"
)

// basePolicy is the Content-Security-Policy of every page: no inline script
// or style, nothing from other origins, no framing.
const basePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// setHeaders puts the security headers on w. formTargets are extra origins
// forms may be sent (and redirected) to: the consent page redirects to the
// client's redirect_uri after its form is posted.
func setHeaders(w http.ResponseWriter, formTargets ...string) {
	h := w.Header()
	csp := basePolicy
	for _, t := range formTargets {
		if t != "" && !strings.ContainsAny(t, ";,'\" \t\r\n") {
			csp += " " + t
		}
	}
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}
