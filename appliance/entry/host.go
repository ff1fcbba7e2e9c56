package entry

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Hosts says which Host headers an entry answers to. The zero value
// answers only to IP literals.
type Hosts struct {
	// Names are the DNS names the entry answers to (compared without case
	// and without a trailing dot), e.g. the certificate's DNS names.
	Names []string
	// Any accepts every Host; for an entry bound to loopback only.
	Any bool
}

// Allowed reports whether host (a Host header, with or without a port)
// names this entry.
func (h Hosts) Allowed(host string) bool {
	if h.Any {
		return true
	}
	name := hostname(host)
	if name == "" {
		return false
	}
	if net.ParseIP(name) != nil {
		return true
	}
	for _, n := range h.Names {
		if strings.EqualFold(strings.TrimSuffix(n, "."), name) {
			return true
		}
	}
	return false
}

// hostname strips the port, IPv6 brackets and a trailing dot from a Host
// header.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	return strings.TrimSuffix(host, ".")
}

// HostCheck answers 421 Misdirected Request, with a sentence saying which
// names to use, to every request whose Host is not allowed by h, and passes
// the rest to next.
func HostCheck(h Hosts, next http.Handler) http.Handler {
	hint := "its IP address"
	if len(h.Names) > 0 {
		hint = h.Names[0] + " or its IP address"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.Allowed(r.Host) {
			msg := fmt.Sprintf("This box does not answer to the host name %q: open it as %s. "+
				"Requests under other names are refused to protect the box from DNS rebinding.", r.Host, hint)
			http.Error(w, msg, http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// SecurityHeaders sets the headers every response of the box carries:
// X-Content-Type-Options: nosniff and Referrer-Policy: same-origin. Pages
// set their own Content-Security-Policy.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// Redirect is the plain-HTTP entry's handler: every request is sent to the
// box's HTTPS home page on the same host name, except /access (the link in a
// device-pairing request), which keeps its path and query. httpsPort is the
// HTTPS port; "443" or "" leaves it out of the URL. Hosts that h does not
// allow get the HostCheck answer, so the box never redirects to a name it
// does not own.
func Redirect(h Hosts, httpsPort string) http.Handler {
	return HostCheck(h, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := hostname(r.Host)
		if host == "" {
			http.Error(w, "The request has no Host header; open the box by its name or IP address.", http.StatusBadRequest)
			return
		}
		switch {
		case httpsPort != "" && httpsPort != "443":
			host = net.JoinHostPort(host, httpsPort)
		case strings.Contains(host, ":"):
			host = "[" + host + "]" // IPv6 literal
		}
		target := "https://" + host + "/"
		if r.URL.Path == "/access" {
			target = "https://" + host + "/access"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, target, http.StatusFound)
	}))
}
