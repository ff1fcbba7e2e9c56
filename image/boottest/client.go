package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

// client talks to the box as a browser and a script would: URLs name the
// box (https://openlolo-xxxx.local) so Host, Origin, cookies and the OAuth
// issuer are the real ones, and every connection goes to the forwarded
// port on the host, with the certificate pinned.
type client struct {
	base string // https://openlolo-xxxx.local
	http *http.Client
}

// newClient pins pin (a fingerprint the box printed) and dials addr for
// every request to the box.
func newClient(name, addr, pin string) (*client, error) {
	cfg, err := boxtls.ClientConfig(pin)
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	var d net.Dialer
	tr := &http.Transport{
		TLSClientConfig: cfg,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		DisableKeepAlives: true,
	}
	return &client{
		base: "https://" + name,
		http: &http.Client{
			Transport: tr, Jar: jar, Timeout: 60 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// script returns a client for the same box without cookies: a script or
// agent holds only its bearer token (the box refuses a request that
// carries both a token and the owner's session cookie).
func (c *client) script() *client {
	h := *c.http
	h.Jar = nil
	return &client{base: c.base, http: &h}
}

// do sends a request and returns the status and body.
func (c *client) do(ctx context.Context, method, path string, body io.Reader, hdr map[string]string) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return res.StatusCode, b, res.Header, nil
}

func (c *client) get(ctx context.Context, path string) (int, []byte, http.Header, error) {
	return c.do(ctx, http.MethodGet, path, nil, nil)
}

// postForm posts a form as the box's own page would (Origin set).
func (c *client) postForm(ctx context.Context, path string, v url.Values) (int, []byte, http.Header, error) {
	return c.do(ctx, http.MethodPost, path, strings.NewReader(v.Encode()), map[string]string{
		"Content-Type": "application/x-www-form-urlencoded",
		"Origin":       c.base,
	})
}

// errNotServed marks a step whose endpoint the box does not serve (404):
// the piece is not built yet.
var errNotServed = errors.New("not served by this box (404)")

// formFields returns the inputs of the first <form> whose action is
// action: hidden inputs with their values, and checked radios.
var (
	formRe  = regexp.MustCompile(`(?s)<form[^>]*action="([^"]*)"[^>]*>(.*?)</form>`)
	inputRe = regexp.MustCompile(`<input([^>]*)>`)
	attrRe  = regexp.MustCompile(`([a-z-]+)(?:="([^"]*)")?`)
)

func formFields(page []byte, action string) (url.Values, bool) {
	for _, m := range formRe.FindAllSubmatch(page, -1) {
		if html.UnescapeString(string(m[1])) != action {
			continue
		}
		v := url.Values{}
		for _, in := range inputRe.FindAllSubmatch(m[2], -1) {
			attrs := map[string]string{}
			for _, a := range attrRe.FindAllSubmatch(in[1], -1) {
				attrs[string(a[1])] = html.UnescapeString(string(a[2]))
			}
			_, checked := attrs["checked"]
			switch attrs["type"] {
			case "hidden":
				v.Set(attrs["name"], attrs["value"])
			case "radio":
				if checked {
					v.Set(attrs["name"], attrs["value"])
				}
			}
		}
		return v, true
	}
	return nil, false
}

// claim claims the box with code and sets passphrase.
func (c *client) claim(ctx context.Context, code, passphrase string) error {
	st, page, _, err := c.get(ctx, "/claim")
	if err != nil {
		return err
	}
	if st == http.StatusNotFound {
		return fmt.Errorf("GET /claim: %w", errNotServed)
	}
	v, ok := formFields(page, "/claim")
	if st != http.StatusOK || !ok {
		return fmt.Errorf("GET /claim: status %d, no claim form", st)
	}
	v.Set("code", code)
	v.Set("passphrase", passphrase)
	v.Set("confirm", passphrase)
	st, body, hdr, err := c.postForm(ctx, "/claim", v)
	if err != nil {
		return err
	}
	if st != http.StatusSeeOther && st != http.StatusFound && st != http.StatusOK {
		return fmt.Errorf("POST /claim: status %d: %s", st, pageText(body))
	}
	if st == http.StatusOK && hdr.Get("Location") == "" && bytes.Contains(body, []byte(`action="/claim"`)) {
		return fmt.Errorf("POST /claim answered the claim form again: %s", pageText(body))
	}
	return nil
}

// login opens an owner session with the passphrase.
func (c *client) login(ctx context.Context, passphrase string) error {
	st, page, _, err := c.get(ctx, "/login")
	if err != nil {
		return err
	}
	if st == http.StatusSeeOther {
		return nil // the claim opened a session already
	}
	v, ok := formFields(page, "/login")
	if st != http.StatusOK || !ok {
		return fmt.Errorf("GET /login: status %d, no login form", st)
	}
	v.Set("passphrase", passphrase)
	st, body, _, err := c.postForm(ctx, "/login", v)
	if err != nil {
		return err
	}
	if st != http.StatusSeeOther && st != http.StatusFound {
		return fmt.Errorf("POST /login: status %d: %s", st, pageText(body))
	}
	return nil
}

// claimed reports whether GET /claim sends the visitor to /login (the box
// has an owner).
func (c *client) claimed(ctx context.Context) (bool, error) {
	st, _, hdr, err := c.get(ctx, "/claim")
	if err != nil {
		return false, err
	}
	return st == http.StatusSeeOther && strings.HasSuffix(hdr.Get("Location"), "/login"), nil
}

// deviceAuth is the answer of POST /oauth/device_authorization.
type deviceAuth struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ClientID                string `json:"client_id"`
	Interval                int    `json:"interval"`
}

// tokens is a /token answer (or its OAuth error).
type tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (c *client) postJSONForm(ctx context.Context, path string, v url.Values, out any) (int, error) {
	st, body, _, err := c.do(ctx, http.MethodPost, path, strings.NewReader(v.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if err != nil {
		return 0, err
	}
	if st == http.StatusNotFound {
		return st, fmt.Errorf("POST %s: %w", path, errNotServed)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return st, fmt.Errorf("POST %s: status %d, not JSON: %.200s", path, st, body)
	}
	return st, nil
}

// startDevice asks for a device authorization.
func (c *client) startDevice(ctx context.Context, name string) (*deviceAuth, error) {
	var d deviceAuth
	st, err := c.postJSONForm(ctx, "/oauth/device_authorization", url.Values{
		"client_name": {name}, "scope": {"phone:read phone:control"}}, &d)
	if err != nil {
		return nil, err
	}
	if st != http.StatusOK || d.DeviceCode == "" || d.VerificationURI == "" {
		return nil, fmt.Errorf("POST /oauth/device_authorization: status %d, %+v", st, d)
	}
	return &d, nil
}

// approve approves the request behind verificationURI as the logged-in
// owner, on the Access page, with the life the page preselects.
func (c *client) approve(ctx context.Context, verificationURI string) error {
	u, err := url.Parse(verificationURI)
	if err != nil {
		return fmt.Errorf("verification_uri %q: %w", verificationURI, err)
	}
	handle := u.Query().Get("r")
	st, page, _, err := c.get(ctx, "/access")
	if err != nil {
		return err
	}
	if st == http.StatusNotFound {
		return fmt.Errorf("GET /access: %w", errNotServed)
	}
	v, ok := formFields(page, "/access/approve")
	if st != http.StatusOK || !ok {
		return fmt.Errorf("GET /access: status %d, no approve form: %s", st, pageText(page))
	}
	v.Set("handle", handle)
	st, body, _, err := c.postForm(ctx, "/access/approve", v)
	if err != nil {
		return err
	}
	if st != http.StatusSeeOther {
		return fmt.Errorf("POST /access/approve: status %d: %s", st, pageText(body))
	}
	return nil
}

// pollToken polls /token for the device code until it is approved.
func (c *client) pollToken(ctx context.Context, d *deviceAuth) (*tokens, error) {
	wait := time.Duration(d.Interval) * time.Second
	if wait <= 0 {
		wait = 5 * time.Second
	}
	for {
		var t tokens
		_, err := c.postJSONForm(ctx, "/token", url.Values{
			"grant_type":  {"urn:ietf:params:oauth:grant-type:device_code"},
			"device_code": {d.DeviceCode}, "client_id": {d.ClientID}}, &t)
		if err != nil {
			return nil, err
		}
		switch t.Error {
		case "":
			if t.AccessToken == "" {
				return nil, errors.New("POST /token: no access_token and no error")
			}
			return &t, nil
		case "authorization_pending":
		case "slow_down":
			wait += 5 * time.Second
		default:
			return nil, fmt.Errorf("POST /token: %s: %s", t.Error, t.Description)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// refresh rotates the refresh token.
func (c *client) refresh(ctx context.Context, clientID, refreshToken string) (*tokens, error) {
	var t tokens
	st, err := c.postJSONForm(ctx, "/token", url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}}, &t)
	if err != nil {
		return nil, err
	}
	if t.Error != "" || st != http.StatusOK || t.AccessToken == "" {
		return nil, fmt.Errorf("refresh: status %d, %s: %s", st, t.Error, t.Description)
	}
	return &t, nil
}

// toolResult is the part of an MCP tools/call result the test reads.
type toolResult struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Content           []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
}

// callTool calls an MCP tool statelessly (no initialize) with the bearer.
func (c *client) callTool(ctx context.Context, access, name string, args map[string]any) (*toolResult, error) {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	st, body, _, err := c.do(ctx, http.MethodPost, "/mcp", bytes.NewReader(req), map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer " + access, "MCP-Protocol-Version": "2025-06-18"})
	if err != nil {
		return nil, err
	}
	if st == http.StatusNotFound {
		return nil, fmt.Errorf("POST /mcp: %w", errNotServed)
	}
	if st != http.StatusOK {
		return nil, fmt.Errorf("POST /mcp %s: status %d: %.300s", name, st, body)
	}
	var res struct {
		Result *toolResult `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, fmt.Errorf("POST /mcp %s: not JSON-RPC: %.300s", name, body)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("POST /mcp %s: JSON-RPC error %d: %s", name, res.Error.Code, res.Error.Message)
	}
	if res.Result == nil {
		return nil, fmt.Errorf("POST /mcp %s: no result", name)
	}
	return res.Result, nil
}

// image returns the decoded image block of a tool result.
func (r *toolResult) image() ([]byte, string, error) {
	for _, c := range r.Content {
		if c.Type == "image" {
			b, err := base64.StdEncoding.DecodeString(c.Data)
			return b, c.MimeType, err
		}
	}
	return nil, "", errors.New("no image content block")
}

// pageText is a page's visible text, shortened, for error messages.
var tagRe = regexp.MustCompile(`(?s)<[^>]*>|\s+`)

func pageText(b []byte) string {
	s := strings.TrimSpace(tagRe.ReplaceAllString(string(b), " "))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
