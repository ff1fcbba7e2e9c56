package owner_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// routeURL is a path that matches pattern's path: wildcards become "x".
func routeURL(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	path = strings.ReplaceAll(path, "{$}", "")
	for _, w := range []string{"{id}", "{topic}"} {
		path = strings.ReplaceAll(path, w, "x")
	}
	return method, path
}

// TestRouteTableGuards sends every route of the table what its access
// must refuse: the owner's routes without a session, every POST without
// an Origin, and every POST a browser marks cross-site (Sec-Fetch-Site),
// even with the right Origin and token.
func TestRouteTableGuards(t *testing.T) {
	t.Parallel()
	b, c := claimedBox(t, boxOpts{})
	anon := noRedirect(ownertest.NewClient(t, b.srv))
	tok := ownertest.CSRF(t, c, b.url)
	table := owner.RouteAccess(b.pages)
	if len(table) < 50 {
		t.Fatalf("the route table has %d routes; want every path of the box page", len(table))
	}
	post := func(cl *http.Client, path string, header ...string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(url.Values{"csrf": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return ownertest.Do(t, cl, req)
	}
	for pattern, who := range table {
		method, path := routeURL(pattern)
		switch {
		case method == http.MethodGet && who == "owner":
			res, _ := ownertest.Do(t, anon, mustRequest(t, method, b.url+path))
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=") {
				t.Errorf("%s without a session: %d to %q, want 303 to the login page", pattern, res.StatusCode, res.Header.Get("Location"))
			}
		case method == http.MethodGet && who == "asset":
			if res, _ := ownertest.Do(t, anon, mustRequest(t, method, b.url+path)); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s without a session: %d, want 403", pattern, res.StatusCode)
			}
		case method == http.MethodPost && (who == "owner" || who == "upload"):
			if res, body := post(anon, path, "Origin", b.url); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "Log in") {
				t.Errorf("%s without a session: %d %q, want 403 asking to log in", pattern, res.StatusCode, ownertest.Text(body))
			}
		}
		if method != http.MethodPost {
			continue
		}
		if res, body := post(c, path); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "no Origin") {
			t.Errorf("%s without an Origin: %d %q, want 403 saying so", pattern, res.StatusCode, ownertest.Text(body))
		}
		if res, body := post(c, path, "Origin", b.url, "Sec-Fetch-Site", "cross-site"); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "came from another site") {
			t.Errorf("%s marked cross-site: %d %q, want 403 saying so", pattern, res.StatusCode, ownertest.Text(body))
		}
		if res, body := post(c, path, "Origin", "https://evil.example", "Sec-Fetch-Site", "same-origin"); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "came from https://evil.example") {
			t.Errorf("%s from another origin: %d %q, want 403 saying so", pattern, res.StatusCode, ownertest.Text(body))
		}
	}
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
