//go:build clients || browser

package integration

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// startServe starts the binary on the simulated phone (see
// startServeArgs).
func startServe(t *testing.T) (*servedBox, string) {
	t.Helper()
	return startServeArgs(t, "--phone", "sim", "--sim-size", "390x844")
}

// fetch sends one request and reads the whole answer. A form from the
// owner's browser (the client with a cookie jar) carries Origin, as a
// browser's does; the other clients send none.
func fetch(c *http.Client, method, u string, form url.Values) (*http.Response, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return nil, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.Jar != nil {
			pu, _ := url.Parse(u)
			req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
		}
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", u, err)
	}
	return res, string(b), nil
}
