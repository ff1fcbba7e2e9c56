// Package ownertest lets an end-to-end test be the box's owner: it drives
// the real box page over HTTP with a cookie jar, the way a browser would
// (Origin header, the page's CSRF token), to claim the box, log in, and
// approve, deny or revoke clients on the Access page.
//
// The client passed in must trust the server (for an httptest TLS server:
// [NewClient]) and have a cookie jar.
package ownertest

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Lives a grant may be given on the Access page.
const (
	Life24h     = "24h"
	Life30d     = "30d"
	LifeForever = "forever"
)

// NewClient returns an HTTP client with a fresh cookie jar that trusts
// srv's certificate.
func NewClient(t testing.TB, srv *httptest.Server) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := *srv.Client() // a copy: srv.Client returns the same client each time
	c.Jar = jar
	return &c
}

// Claim claims an unclaimed box with its setup code and sets passphrase;
// the client is logged in afterwards.
func Claim(t testing.TB, c *http.Client, baseURL, setupCode, passphrase string) {
	t.Helper()
	tok := formToken(t, c, baseURL+"/claim")
	res, body := PostForm(t, c, baseURL, "/claim", url.Values{
		"csrf": {tok}, "code": {setupCode}, "passphrase": {passphrase}, "confirm": {passphrase},
	})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" {
		t.Fatalf("ownertest: claim: status %d at %s, want 200 at /status: %s", res.StatusCode, res.Request.URL.Path, Text(body))
	}
}

// Login logs the client in with passphrase.
func Login(t testing.TB, c *http.Client, baseURL, passphrase string) {
	t.Helper()
	tok := formToken(t, c, baseURL+"/login")
	res, body := PostForm(t, c, baseURL, "/login", url.Values{"csrf": {tok}, "passphrase": {passphrase}, "next": {"/status"}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" {
		t.Fatalf("ownertest: login: status %d at %s, want 200 at /status: %s", res.StatusCode, res.Request.URL.Path, Text(body))
	}
}

// CSRF returns the logged-in session's form token, read from the Status
// page.
func CSRF(t testing.TB, c *http.Client, baseURL string) string {
	t.Helper()
	return formToken(t, c, baseURL+"/status")
}

// Approve approves the pending request whose user code is userCode
// ("XXXX-XXXX") on the Access page, for life (Life24h, Life30d,
// LifeForever).
func Approve(t testing.TB, c *http.Client, baseURL, userCode, life string) {
	t.Helper()
	handle, tok := pendingHandle(t, c, baseURL, userCode)
	res, body := PostForm(t, c, baseURL, "/access/approve", url.Values{"csrf": {tok}, "handle": {handle}, "life": {life}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
		t.Fatalf("ownertest: approve %s: status %d at %s: %s", userCode, res.StatusCode, res.Request.URL.Path, Text(body))
	}
}

// ApproveOn approves the pending request whose user code is userCode for
// life with the phone boxes of phones ticked (a box of several phones).
func ApproveOn(t testing.TB, c *http.Client, baseURL, userCode, life string, phones ...string) (*http.Response, string) {
	t.Helper()
	handle, tok := pendingHandle(t, c, baseURL, userCode)
	return PostForm(t, c, baseURL, "/access/approve", url.Values{"csrf": {tok}, "handle": {handle}, "life": {life},
		"phones_shown": {"1"}, "phone": phones})
}

// Deny denies the pending request whose user code is userCode.
func Deny(t testing.TB, c *http.Client, baseURL, userCode string) {
	t.Helper()
	handle, tok := pendingHandle(t, c, baseURL, userCode)
	res, body := PostForm(t, c, baseURL, "/access/deny", url.Values{"csrf": {tok}, "handle": {handle}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
		t.Fatalf("ownertest: deny %s: status %d at %s: %s", userCode, res.StatusCode, res.Request.URL.Path, Text(body))
	}
}

// Revoke revokes the approved client clientID on the Access page.
func Revoke(t testing.TB, c *http.Client, baseURL, clientID string) {
	t.Helper()
	tok := CSRF(t, c, baseURL)
	res, body := PostForm(t, c, baseURL, "/access/revoke", url.Values{"csrf": {tok}, "client_id": {clientID}, "confirm": {"yes"}})
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/access" {
		t.Fatalf("ownertest: revoke %s: status %d at %s: %s", clientID, res.StatusCode, res.Request.URL.Path, Text(body))
	}
}

// PostForm posts form to baseURL+path as the box page's own form would
// (Origin = baseURL), follows redirects, and returns the final response
// with its body read.
func PostForm(t testing.TB, c *http.Client, baseURL, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, baseURL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", baseURL)
	return Do(t, c, req)
}

// Get fetches baseURL+path and returns the response with its body read.
func Get(t testing.TB, c *http.Client, baseURL, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, baseURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Do(t, c, req)
}

// Do sends req and returns the response with its body read.
func Do(t testing.TB, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("ownertest: %s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("ownertest: read %s: %v", req.URL, err)
	}
	return res, string(b)
}

var (
	csrfRE    = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	tagRE     = regexp.MustCompile(`<[^>]*>`)
	spaceRE   = regexp.MustCompile(`\s+`)
	requestRE = regexp.MustCompile(`data-user-code="([^"]+)" data-handle="([^"]+)"`)
)

// FormToken returns the CSRF token of the first form in html.
func FormToken(html string) string {
	m := csrfRE.FindStringSubmatch(html)
	if m == nil {
		return ""
	}
	return m[1]
}

func formToken(t testing.TB, c *http.Client, u string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, body := Do(t, c, req)
	tok := FormToken(body)
	if res.StatusCode != http.StatusOK || tok == "" {
		t.Fatalf("ownertest: GET %s: status %d, token %q: %s", u, res.StatusCode, tok, Text(body))
	}
	return tok
}

// pendingHandle finds the request with userCode on the Access page.
func pendingHandle(t testing.TB, c *http.Client, baseURL, userCode string) (handle, csrf string) {
	t.Helper()
	res, body := Get(t, c, baseURL, "/access")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("ownertest: GET /access: status %d: %s", res.StatusCode, Text(body))
	}
	for _, m := range requestRE.FindAllStringSubmatch(body, -1) {
		if strings.EqualFold(html.UnescapeString(m[1]), userCode) {
			return html.UnescapeString(m[2]), FormToken(body)
		}
	}
	t.Fatalf("ownertest: no pending request with code %s on the Access page: %s", userCode, Text(body))
	return "", ""
}

// Text is a page's visible text on one line, for failure messages.
func Text(page string) string {
	s := FullText(page)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// FullText is the page's main text as [Text] gives it, whole: what a
// check that the page says something looks in (Text is cut for messages).
func FullText(page string) string {
	if i := strings.Index(page, "<main>"); i >= 0 {
		page = page[i:]
	}
	return strings.TrimSpace(spaceRE.ReplaceAllString(html.UnescapeString(tagRE.ReplaceAllString(page, " ")), " "))
}
