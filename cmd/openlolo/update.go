package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

// updateCmd installs an update bundle on a box as its owner: it logs in
// with the owner's passphrase over the pinned HTTPS (a script's grant
// cannot update a box), uploads the bundle to the Settings page's update
// form, and waits for the box to come back.
func updateCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "update", "BOX BUNDLE [flags]")
	older := fs.Bool("allow-older", false, "install a bundle that is not newer than the running version")
	passFile := fs.String("passphrase-file", "", "read the owner's passphrase from this file (else $OPENLOLO_PASSPHRASE, else one line on standard input)")
	fp := fs.String("fingerprint", "", "the box's certificate fingerprint (hex SHA-256), when this user has not paired with it")
	connect := fs.String("connect", "", "dial this host:port instead of the box's address (a port forward)")
	wait := fs.Duration("wait", 5*time.Minute, "wait this long for the box to come back on the new version; 0: do not wait")
	pos, err := interleave(fs, args)
	if err != nil {
		return usagef("%v", err)
	}
	if len(pos) != 2 {
		return usagef("want BOX and BUNDLE, e.g. openlolo update openlolo-1a2b out/openlolo-v2-rpi.update")
	}
	st, err := tokenStore(c)
	if err != nil {
		return clientExit(err)
	}
	boxURL, err := resolveBox(st, pos[0])
	if err != nil {
		return err
	}
	if *fp == "" {
		boxes, err := st.List()
		if err != nil {
			return clientExit(err)
		}
		for _, b := range boxes {
			if b.URL == boxURL {
				*fp = b.Fingerprint
			}
		}
		if *fp == "" {
			return usagef("this user has not paired with %s: pass --fingerprint (the box prints it; openlolo fingerprint https://HOST shows it)", boxURL)
		}
	}
	bundle, err := os.Open(pos[1])
	if err != nil {
		return err
	}
	defer bundle.Close()
	info, err := bundle.Stat()
	if err != nil {
		return err
	}
	pass, err := readPassphrase(c, *passFile)
	if err != nil {
		return err
	}
	oc, err := newOwnerClient(boxURL, *fp, *connect)
	if err != nil {
		return &exitError{exitConnect, err}
	}
	if err := oc.login(ctx, pass); err != nil {
		return &exitError{exitConnect, err}
	}
	fmt.Fprintf(c.Stderr, "openlolo update: logged in to %s as the owner; uploading %s (%d bytes)\n", boxURL, pos[1], info.Size())
	ans, err := oc.upload(ctx, bundle, info.Size(), *older, c.Stderr)
	if err != nil {
		return &exitError{exitConnect, err}
	}
	if ans.Status != "installed" {
		return &exitError{exitRefused, fmt.Errorf("the box refused the update: %s", ans.Message)}
	}
	fmt.Fprintf(c.Stdout, "%s wrote version %s to its other slot and restarts into it; it commits itself after its self-check.\n", boxURL, ans.Version)
	if *wait <= 0 {
		return nil
	}
	got, err := oc.waitVersion(ctx, *wait, ans.Version)
	switch {
	case err != nil:
		return &exitError{exitConnect, fmt.Errorf("the box did not come back within %v: %w", *wait, err)}
	case got != ans.Version:
		return &exitError{exitRefused, fmt.Errorf("the box came back on version %s, not %s: the new version failed its self-check and was rolled back (its Settings page says why)", got, ans.Version)}
	}
	fmt.Fprintf(c.Stdout, "%s runs version %s.\n", boxURL, got)
	return nil
}

func readPassphrase(c *Context, file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	if p := c.Getenv("OPENLOLO_PASSPHRASE"); p != "" {
		return p, nil
	}
	fmt.Fprint(c.Stderr, "owner passphrase: ")
	line, err := bufio.NewReader(c.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", usagef("no passphrase: pass --passphrase-file, set OPENLOLO_PASSPHRASE or type it")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// ownerClient is a browser-like owner session on the box page.
type ownerClient struct {
	base string
	http *http.Client
}

func newOwnerClient(base, fingerprint, connect string) (*ownerClient, error) {
	cfg, err := boxtls.ClientConfig(fingerprint)
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{TLSClientConfig: cfg}
	if connect != "" {
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, connect)
		}
	}
	return &ownerClient{base: strings.TrimSuffix(base, "/"), http: &http.Client{Transport: tr, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}, nil
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the form token of the page at path.
func (o *ownerClient) csrf(ctx context.Context, path string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.base+path, nil)
	res, err := o.http.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	m := csrfField.FindSubmatch(b)
	if res.StatusCode != http.StatusOK || m == nil {
		return "", fmt.Errorf("GET %s: status %d, no form", path, res.StatusCode)
	}
	return string(m[1]), nil
}

func (o *ownerClient) login(ctx context.Context, pass string) error {
	tok, err := o.csrf(ctx, "/login")
	if err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	form := url.Values{"csrf": {tok}, "passphrase": {pass}, "next": {"/settings"}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, o.base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", o.base)
	res, err := o.http.Do(req)
	if err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("log in: the box answered %s: wrong passphrase, or too many tries (wait a minute)", res.Status)
	}
	return nil
}

type updateAnswer struct {
	Status, Version, Code, Message string
}

// upload streams the bundle as the Settings form sends it.
func (o *ownerClient) upload(ctx context.Context, bundle io.Reader, size int64, older bool, progress io.Writer) (*updateAnswer, error) {
	tok, err := o.csrf(ctx, "/settings")
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("csrf", tok)
		if older {
			mw.WriteField("allow_older", "1")
		}
		fw, err := mw.CreateFormFile("bundle", "bundle.update")
		if err == nil {
			_, err = io.Copy(fw, &countingReader{r: bundle, size: size, w: progress})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, o.base+"/settings/update", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", o.base)
	req.Header.Set("Accept", "application/json")
	res, err := o.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	defer res.Body.Close()
	var a updateAnswer
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&a); err != nil {
		return nil, fmt.Errorf("upload: the box answered %s, not the update's JSON", res.Status)
	}
	return &a, nil
}

// waitVersion polls /healthz until the box answers again after its
// restart and returns the version it runs.
func (o *ownerClient) waitVersion(ctx context.Context, wait time.Duration, want string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	time.Sleep(3 * time.Second) // the box restarts a moment after its answer
	var last error = errors.New("no answer yet")
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.base+"/healthz", nil)
		res, err := o.http.Do(req)
		if err == nil {
			var h struct{ Version string }
			err = json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			if err == nil && h.Version != "" {
				if h.Version == want {
					return h.Version, nil
				}
				// the old version answering before the restart, or after a rollback
				last = fmt.Errorf("it answers with version %s", h.Version)
				if rolledBack, _ := o.rolledBack(ctx); rolledBack {
					return h.Version, nil
				}
			}
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return "", last
		case <-time.After(2 * time.Second):
		}
	}
}

// rolledBack reports whether the Settings page says the last update was rolled back.
func (o *ownerClient) rolledBack(ctx context.Context) (bool, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.base+"/settings", nil)
	res, err := o.http.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return strings.Contains(string(b), ": rolled-back"), nil
}

// countingReader prints the upload's progress every 10 %.
type countingReader struct {
	r          io.Reader
	size, n    int64
	w          io.Writer
	lastTenths int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.size > 0 {
		if t := c.n * 10 / c.size; t > c.lastTenths {
			c.lastTenths = t
			fmt.Fprintf(c.w, "openlolo update: sent %d%%\n", t*10)
		}
	}
	return n, err
}
