package setupnet

import (
	"net"
	"net/http"
	"strings"
)

// Captive sends every request for another host to the box page, and
// serves the box's own requests with Box.
//
// Because [DNS] answers every name with the box, the phones' captive-portal
// probes arrive here with their own Host: Apple's
// captive.apple.com/hotspot-detect.html, Android's
// connectivitycheck.gstatic.com/generate_204, Windows'
// www.msftconnecttest.com/connecttest.txt, Firefox's
// detectportal.firefox.com/canonical.html. Each expects an exact answer
// ("Success", an empty 204, "Microsoft Connect Test") and, not getting it,
// shows its captive sheet. They are deliberately answered with a
// redirect to the page, not the expected answer: the setup network has no
// internet, and the sheet is what opens the box page by itself, without
// the person typing an address from the card. (The Python box answered
// "Success" so no sheet opened; the person had to open the page.) The
// sheet is a small browser; the box page must work inside it, and tell
// the person which address to open next before the radio leaves the
// setup network.
type Captive struct {
	// Hosts are the box's own names and addresses (e.g. "192.168.4.1",
	// "openlolo-3f2a.local"); requests for them go to Box.
	Hosts []string
	// Page is the box page's address the redirect points at.
	Page string
	// Box serves the box's own requests.
	Box http.Handler
}

// probes are the captive-portal probes of the phones and computers the
// box expects, as "host/path".
var probes = []string{
	"captive.apple.com/hotspot-detect.html",
	"www.apple.com/library/test/success.html",
	"connectivitycheck.gstatic.com/generate_204",
	"clients3.google.com/generate_204",
	"www.msftconnecttest.com/connecttest.txt",
	"www.msftncsi.com/ncsi.txt",
	"detectportal.firefox.com/canonical.html",
}

// Probes returns the captive-portal probes (host/path) the box answers
// with its page.
func Probes() []string { return append([]string(nil), probes...) }

// ServeHTTP implements http.Handler.
func (c *Captive) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, h := range c.Hosts {
		if strings.EqualFold(h, host) {
			c.Box.ServeHTTP(w, r)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", c.Page)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusFound)
	_, _ = w.Write([]byte(`<!doctype html><title>openlolo setup</title><a href="` + htmlEscape(c.Page) + `">Open the openlolo setup page</a>`))
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
