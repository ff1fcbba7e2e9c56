package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

// figures are one binary's readings; memory in KiB, -1 ms for a page
// that failed.
type figures struct {
	idle, idleAnon int64
	login, settled int64
	flood          int64
	kept           int
	floodOwner     time.Duration
	loadPeak       int64
	loadRequests   int64
	loadOwner      time.Duration
}

const passphrase = "benchbox owner passphrase"

// measure runs the whole sequence against one binary.
func measure(ctx context.Context, bin string, o options) (figures, error) {
	var f figures
	dir, err := os.MkdirTemp("", "benchbox-")
	if err != nil {
		return f, fmt.Errorf("state dir: %w", err)
	}
	defer os.RemoveAll(dir)
	box, err := startBox(ctx, bin, dir)
	if err != nil {
		return f, err
	}
	defer box.stop()
	conf, err := boxtls.ClientConfig(box.pin)
	if err != nil {
		return f, fmt.Errorf("the box's pin: %w", err)
	}

	// Idle: up, one page served.
	if _, err := page(ctx, newClient(conf, nil), box.url+"/login"); err != nil {
		return f, err
	}
	time.Sleep(2 * time.Second)
	if f.idle, err = box.rss(); err != nil {
		return f, err
	}
	if f.idleAnon, err = box.anon(); err != nil {
		return f, err
	}

	// The claim and a login by a second browser: two argon2id hashes.
	owner, err := ownerSession(ctx, box, conf)
	if err != nil {
		return f, err
	}
	if f.login, err = box.rss(); err != nil {
		return f, err
	}
	time.Sleep(o.settle)
	if f.settled, err = box.rss(); err != nil {
		return f, err
	}
	fresh := func() *http.Client { return newClient(conf, owner.Jar) } // the owner's next tab

	// Idle connections: handshaken, then silent.
	conns, kept := openIdle(ctx, box.url, conf, o.idleConns)
	time.Sleep(2 * time.Second)
	f.flood, err = box.rss()
	f.kept = kept.alive()
	f.floodOwner = ownerSlowest(ctx, owner, fresh, box.url, 5)
	for _, c := range conns {
		c.Close()
	}
	if err != nil {
		return f, err
	}
	time.Sleep(2 * time.Second)

	// Keep-alive clients, the owner's page sampled as they run.
	f.loadPeak, f.loadRequests, f.loadOwner, err = loadClients(ctx, box, conf, owner, fresh, o)
	return f, err
}

// ownerSession claims the box in one browser and logs the owner in with
// another, whose client it returns.
func ownerSession(ctx context.Context, box *child, conf *tls.Config) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	if err := form(ctx, newClient(conf, jar), box.url, "/claim", url.Values{
		"code": {box.setup}, "passphrase": {passphrase}, "confirm": {passphrase},
	}); err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	jar, _ = cookiejar.New(nil)
	owner := newClient(conf, jar)
	if err := form(ctx, owner, box.url, "/login", url.Values{"passphrase": {passphrase}, "next": {"/status"}}); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	return owner, nil
}

// newClient is a browser that pins the box (and keeps cookies in jar).
func newClient(conf *tls.Config, jar http.CookieJar) *http.Client {
	return &http.Client{
		Jar:       jar,
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: conf.Clone(), MaxIdleConnsPerHost: 1},
	}
}

// page GETs u and returns the body; a status other than 200 is an error.
func page(ctx context.Context, c *http.Client, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", u, err)
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: status %d", u, res.StatusCode)
	}
	return string(b), nil
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// form posts v to path as the page's own form does (its CSRF token, the
// Origin), expecting to land on /status.
func form(ctx context.Context, c *http.Client, base, path string, v url.Values) error {
	body, err := page(ctx, c, base+path)
	if err != nil {
		return err
	}
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		return fmt.Errorf("no form token on %s", path)
	}
	v.Set("csrf", m[1])
	return post(ctx, c, base, path, v, "/status")
}

// post posts v to path as the box page's forms do (with the Origin),
// expecting to land on want.
func post(ctx context.Context, c *http.Client, base, path string, v url.Values, want string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != want {
		return fmt.Errorf("POST %s: status %d at %s, want 200 at %s", path, res.StatusCode, res.Request.URL.Path, want)
	}
	return nil
}

// ownerSlowest asks for the owner's Status page n times on its kept
// connection and n times on a new one, and returns the slowest answer
// (-1 if one failed).
func ownerSlowest(ctx context.Context, owner *http.Client, fresh func() *http.Client, base string, n int) time.Duration {
	var worst time.Duration
	for range n {
		for _, c := range []*http.Client{owner, fresh()} {
			start := time.Now()
			body, err := page(ctx, c, base+"/status")
			if err != nil || !strings.Contains(body, "csrf") {
				return -1
			}
			worst = max(worst, time.Since(start))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return worst
}

// idleSet counts the idle connections the box still holds open.
type idleSet struct{ conns []*tls.Conn }

// alive reports how many of the connections the box has not closed.
func (s idleSet) alive() int {
	n := 0
	buf := make([]byte, 1)
	for _, c := range s.conns {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		_, err := c.Read(buf)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			n++
		}
	}
	return n
}

// openIdle attempts n TLS connections (64 at a time) and keeps those the
// box accepted, without sending a request.
func openIdle(ctx context.Context, base string, conf *tls.Config, n int) ([]net.Conn, idleSet) {
	addr := strings.TrimPrefix(base, "https://")
	var mu sync.Mutex
	var all []net.Conn
	var set idleSet
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			d := tls.Dialer{Config: conf, NetDialer: &net.Dialer{Timeout: 10 * time.Second}}
			for range work {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					continue
				}
				mu.Lock()
				all = append(all, c)
				set.conns = append(set.conns, c.(*tls.Conn))
				mu.Unlock()
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	return all, set
}

// loadClients runs o.clients keep-alive clients for o.load and returns
// the peak RSS, the requests answered and the owner page's slowest
// answer meanwhile.
func loadClients(ctx context.Context, box *child, conf *tls.Config, owner *http.Client, fresh func() *http.Client, o options) (peak, requests int64, slowest time.Duration, err error) {
	lctx, cancel := context.WithTimeout(ctx, o.load)
	defer cancel()
	var answered atomic.Int64
	var wg sync.WaitGroup
	for range o.clients {
		wg.Go(func() {
			c := newClient(conf, nil)
			defer c.CloseIdleConnections()
			for lctx.Err() == nil {
				if _, err := page(lctx, c, box.url+"/.well-known/oauth-authorization-server"); err == nil {
					answered.Add(1)
				}
			}
		})
	}
	ownerDone := make(chan time.Duration, 1)
	go func() {
		time.Sleep(o.load / 4)
		ownerDone <- ownerSlowest(ctx, owner, fresh, box.url, 5)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for lctx.Err() == nil {
		<-tick.C
		r, rerr := box.rss()
		if rerr != nil {
			err = rerr
			break
		}
		peak = max(peak, r)
	}
	cancel()
	wg.Wait()
	return peak, answered.Load(), <-ownerDone, err
}
