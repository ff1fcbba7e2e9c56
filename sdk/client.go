package sdk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

// Options configure a Client. The zero value is valid.
type Options struct {
	// Store is the token store; nil means the per-user default
	// (DefaultStorePath).
	Store *TokenStore
	// HTTPClient, if set, replaces the pinned client built from the
	// store's pin (tests, or a caller with its own transport).
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Client calls one paired box. It is safe for concurrent use.
type Client struct {
	url   string
	store *TokenStore
	hc    *http.Client
	now   func() time.Time

	nextID atomic.Int64

	mu  sync.Mutex // guards box
	box Box
}

// NormalizeURL turns what a person types ("openlolo-1a2b.local",
// "https://openlolo-1a2b.local/", "10.0.0.5:8443") into the store's key:
// https://host[:port] with no path.
func NormalizeURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("openlolo: empty box address; give a host such as openlolo-1a2b.local")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("openlolo: %q is not a box address (want a host like openlolo-1a2b.local or https://host:port)", s)
	}
	if u.Scheme != "https" {
		return "", fmt.Errorf("openlolo: %q: the box is reached over https only", s)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return "", fmt.Errorf("openlolo: %q: give the box's address without a path", s)
	}
	host := strings.ToLower(u.Host)
	if h, p, err := net.SplitHostPort(host); err == nil && p == "443" {
		host = h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
	}
	return "https://" + host, nil
}

// Dial returns a client for a box paired earlier (see Pair). The box is
// looked up in the token store by its normalized URL.
func Dial(ctx context.Context, box string, opts *Options) (*Client, error) {
	if opts == nil {
		opts = &Options{}
	}
	u, err := NormalizeURL(box)
	if err != nil {
		return nil, err
	}
	st := opts.Store
	if st == nil {
		p, err := DefaultStorePath()
		if err != nil {
			return nil, err
		}
		st = &TokenStore{Path: p}
	}
	b, err := st.Get(u)
	if err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc, err = pinnedHTTPClient(u, b.Fingerprint)
		if err != nil {
			return nil, err
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Client{url: u, store: st, hc: hc, now: now, box: b}, nil
}

// URL is the box's normalized URL.
func (c *Client) URL() string { return c.url }

// Box returns the stored entry as the client last saw it.
func (c *Client) Box() Box {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box
}

// pinnedHTTPClient is an *http.Client that accepts only the certificate
// with leaf SHA-256 fp (when fp is empty: normal CA verification, for the
// tailnet entry), follows no redirects, and ignores proxy variables for
// .local hosts and loopback.
func pinnedHTTPClient(boxURL, fp string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if fp != "" {
		cfg, err := boxtls.ClientConfig(fp)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = cfg
	}
	tr.Proxy = func(r *http.Request) (*url.URL, error) {
		h := r.URL.Hostname()
		if strings.HasSuffix(h, ".local") || h == "localhost" {
			return nil, nil
		}
		if ip := net.ParseIP(h); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()) {
			return nil, nil
		}
		return http.ProxyFromEnvironment(r)
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}, nil
}

// pinError returns a *PinMismatch if err comes from a failed pin check.
func pinError(err error) error {
	var pm *boxtls.PinMismatchError
	if errors.As(err, &pm) {
		return &PinMismatch{Want: pm.Want, Got: pm.Got}
	}
	return nil
}

// CallTool calls one tool with args and returns its result. A failed answer
// returns the Result and a *Refused; a JSON-RPC error a *ProtocolError. The
// access token is refreshed first when it has expired, and once more when the
// box answers 401.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (*Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": name, "arguments": args}
	if r, ok := RunFrom(ctx); ok {
		params["_meta"] = runMeta(r)
	}
	raw, err := c.authorized(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	return decodeToolResult(name, raw)
}

// ListTools returns the tools the box offers to this client, as the raw
// tools/list result.
func (c *Client) ListTools(ctx context.Context) ([]map[string]any, error) {
	raw, err := c.authorized(ctx, "tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var out struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := jsonUnmarshal(raw, &out); err != nil {
		return nil, &ProtocolError{Message: "tools/list answer: " + err.Error()}
	}
	return out.Tools, nil
}

// RPC sends any MCP request with the client's bearer (used by the stdio
// bridge, which passes requests through unchanged).
func (c *Client) RPC(ctx context.Context, method string, params any) ([]byte, error) {
	return c.authorized(ctx, method, params)
}

func (c *Client) authorized(ctx context.Context, method string, params any) ([]byte, error) {
	tok, err := c.accessToken(ctx, false)
	if err != nil {
		return nil, err
	}
	raw, err := c.rpc(ctx, tok, method, params)
	var hs *httpStatusError
	if errors.As(err, &hs) && hs.status == http.StatusUnauthorized {
		if strings.Contains(hs.header.Get("WWW-Authenticate"), "another entry") {
			return nil, ErrWrongEntry
		}
		tok, err = c.accessToken(ctx, true)
		if err != nil {
			return nil, err
		}
		raw, err = c.rpc(ctx, tok, method, params)
		if errors.As(err, &hs) && hs.status == http.StatusUnauthorized {
			return nil, ErrGrantRevoked
		}
	}
	return raw, err
}

// accessToken returns a usable access token, refreshing under the store's
// lock when the current one has expired or force is set (after a 401).
func (c *Client) accessToken(ctx context.Context, force bool) (string, error) {
	c.mu.Lock()
	b := c.box
	c.mu.Unlock()
	if !force && !b.Expired(c.now()) {
		return b.AccessToken, nil
	}
	seen := b.AccessToken
	var out Box
	err := c.store.Update(c.url, func(cur Box, ok bool) (Box, error) {
		if !ok {
			return Box{}, fmt.Errorf("%w: %s", ErrUnknownBox, c.url)
		}
		// Another process may have refreshed while we waited for the
		// lock: use its tokens instead of presenting a used refresh token.
		if cur.AccessToken != seen && !cur.Expired(c.now()) {
			out = cur
			return cur, nil
		}
		next, err := c.refresh(ctx, cur)
		if err != nil {
			return Box{}, err
		}
		out = next
		return next, nil // written before it is used
	})
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.box = out
	c.mu.Unlock()
	return out.AccessToken, nil
}

func msDuration(ms float64) time.Duration {
	if ms <= 0 || math.IsNaN(ms) {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}
