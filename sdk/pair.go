package sdk

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	boxtls "github.com/openlolo/openlolo/tls"
)

// PairOptions configure Pair. The zero value pairs with trust on first use
// and asks nothing (Confirm nil accepts): interactive callers set Confirm.
type PairOptions struct {
	// ClientName is shown to the owner; default "<program> on <hostname>".
	ClientName string
	// Scopes to ask for; default phone:read and phone:control.
	Scopes []string
	// Pin, when set (leaf SHA-256 hex/colon-hex or sha256//<base64>), is
	// the only certificate accepted: no question is asked.
	Pin string
	// Confirm is asked, with the box's certificate, whether to trust it
	// (trust on first use). Returning false stops pairing.
	Confirm func(ctx context.Context, c *x509.Certificate) (bool, error)
	// Prompt receives the sentence for the person, with the user code and
	// the link to open ("Approve '<name>' on the box page (Access). Code XXXX-XXXX.").
	Prompt func(message, userCode, link string)
	// Store is the token store; nil means the per-user default.
	Store *TokenStore
	// HTTPClient replaces the pinned client (tests only).
	HTTPClient *http.Client
	// Now and Sleep are the clock; nil means the real one.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultClientName is "<program> on <hostname>".
func DefaultClientName() string {
	prog := filepath.Base(os.Args[0])
	host, err := os.Hostname()
	if err != nil || host == "" {
		return prog
	}
	return prog + " on " + host
}

type deviceAnswer struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
	ClientID                string `json:"client_id"`
}

// Pair runs the whole pairing with a box: it fetches the certificate and
// has the caller confirm it (or checks it against opts.Pin), reads the
// OAuth metadata, asks for approval with the device grant, waits for the
// owner's decision honouring interval and slow_down, and stores the grant.
// An earlier pairing with the same box is reused for its client_id (the
// Access entry is replaced, not duplicated).
func Pair(ctx context.Context, box string, opts PairOptions) (Box, error) {
	u, err := NormalizeURL(box)
	if err != nil {
		return Box{}, err
	}
	now, sleep := opts.Now, opts.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	st := opts.Store
	if st == nil {
		p, err := DefaultStorePath()
		if err != nil {
			return Box{}, err
		}
		st = &TokenStore{Path: p}
	}

	// 1. The certificate. A tailnet entry (*.ts.net) has a CA-issued
	// certificate that is renewed every few months: it is verified like
	// any website's and never pinned. A LAN box is pinned: up front, or
	// trusted on first use.
	var fp, spki, boxLabel string
	if entryOf(u) == "tailnet" && opts.Pin == "" {
		boxLabel, _, _ = strings.Cut(strings.TrimPrefix(u, "https://"), ".")
	} else {
		cert, err := confirmCertificate(ctx, u, opts)
		if err != nil {
			return Box{}, err
		}
		fp, spki, boxLabel = boxtls.FingerprintHex(cert), boxtls.SPKIPin(cert), boxName(cert)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc, err = pinnedHTTPClient(u, fp)
		if err != nil {
			return Box{}, err
		}
	}

	// 2. Metadata.
	md, err := fetchMetadata(ctx, hc, u)
	if err != nil {
		return Box{}, err
	}
	if !md.SupportsDeviceGrant() {
		return Box{}, fmt.Errorf("openlolo: %s does not offer the device grant: the box is too old for scripts; update it", u)
	}

	// 3. Device authorization.
	name := opts.ClientName
	if name == "" {
		name = DefaultClientName()
	}
	scopes := opts.Scopes
	if len(scopes) == 0 {
		for _, s := range api.ClientScopes() {
			scopes = append(scopes, string(s))
		}
	}
	form := url.Values{"client_name": {name}, "scope": {strings.Join(scopes, " ")}}
	if prev, err := st.Get(u); err == nil && prev.ClientID != "" {
		form.Set("client_id", prev.ClientID)
	}
	endpoint := md.DeviceAuthorizationEndpoint
	if endpoint == "" {
		endpoint = u + "/oauth/device_authorization"
	}
	var da deviceAnswer
	if err := postForm(ctx, hc, endpoint, form, &da); err != nil {
		if oe, ok := err.(*oauthError); ok && (oe.Status == http.StatusTooManyRequests || oe.Code == "slow_down") {
			return Box{}, fmt.Errorf("%w: the box has too many pairing requests waiting; approve or deny them on the box page, or wait a minute", ErrSlowDown)
		}
		return Box{}, mapTokenError(err)
	}
	link := da.VerificationURIComplete
	if link == "" {
		link = da.VerificationURI
	}
	link = onEntry(u, link)
	msg := fmt.Sprintf("Approve '%s' on the box page (Access). Code %s.", name, da.UserCode)
	if opts.Prompt != nil {
		opts.Prompt(msg, da.UserCode, link)
	}

	// 4. Poll.
	interval := time.Duration(da.Interval) * time.Second
	if interval <= 0 {
		interval = 5 * time.Second
	}
	deadline := now().Add(time.Duration(da.ExpiresIn) * time.Second)
	tokenURL := md.TokenEndpoint
	if tokenURL == "" {
		tokenURL = u + "/token"
	}
	for {
		if err := sleep(ctx, interval); err != nil {
			return Box{}, err
		}
		var ans tokenAnswer
		err := postForm(ctx, hc, tokenURL, url.Values{
			"grant_type":  {DeviceCodeGrant},
			"device_code": {da.DeviceCode},
			"client_id":   {da.ClientID},
		}, &ans)
		switch e := mapTokenError(err); {
		case err == nil:
			b := Box{
				URL: u, Fingerprint: fp, Pin: spki,
				Entry: entryOf(u), Issuer: md.Issuer, ClientID: da.ClientID, ClientName: name,
				Scope: ans.Scope, AccessToken: ans.AccessToken, RefreshToken: ans.RefreshToken,
				Expiry: now().Add(time.Duration(ans.ExpiresIn) * time.Second), PairedAt: now().UTC(),
				Name: boxLabel,
			}
			if err := st.Put(b); err != nil {
				return Box{}, err
			}
			return b, nil
		case e == ErrAuthorizationPending:
		case e == ErrSlowDown:
			interval += 5 * time.Second
		case isTransport(err):
			// A dropped poll is retried at the next interval.
		default:
			return Box{}, e
		}
		if da.ExpiresIn > 0 && now().After(deadline) {
			return Box{}, ErrExpiredToken
		}
	}
}

// confirmCertificate fetches the LAN box's certificate and checks it
// against opts.Pin, or has the caller confirm it (trust on first use).
func confirmCertificate(ctx context.Context, u string, opts PairOptions) (*x509.Certificate, error) {
	hostport := strings.TrimPrefix(u, "https://")
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), "443")
	}
	cert, err := boxtls.FetchCertificate(ctx, hostport)
	if err != nil {
		return nil, fmt.Errorf("openlolo: reach %s: %w", u, err)
	}
	if opts.Pin != "" {
		p, err := boxtls.ParsePin(opts.Pin)
		if err != nil {
			return nil, err
		}
		if !p.Matches(cert) {
			return nil, &PinMismatch{Want: p.String(), Got: boxtls.FingerprintHex(cert)}
		}
		return cert, nil
	}
	if opts.Confirm != nil {
		ok, err := opts.Confirm(ctx, cert)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("openlolo: pairing stopped: the certificate was not confirmed")
		}
	}
	return cert, nil
}

// entryOf guesses the entry from the URL: tailnet names end in .ts.net.
func entryOf(u string) string {
	if strings.HasSuffix(strings.TrimSuffix(u, "/"), ".ts.net") || strings.Contains(u, ".ts.net:") {
		return "tailnet"
	}
	return "lan"
}

// boxName is the box's name from its certificate (openlolo-xxxx).
func boxName(c *x509.Certificate) string {
	for _, n := range c.DNSNames {
		if strings.HasSuffix(n, ".local") {
			return strings.TrimSuffix(n, ".local")
		}
	}
	return c.Subject.CommonName
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// onEntry is the box page link the person is shown, on the HTTPS entry the
// client pairs with. The box's verification_uri is plain http:// on port
// 80 (short to type on a phone; it only redirects to HTTPS), so its path
// and query are moved onto the pinned https:// URL, port included; an
// https:// link (or one that does not parse) is kept.
func onEntry(boxURL, link string) string {
	l, err := url.Parse(link)
	if err != nil || l.Scheme != "http" {
		return link
	}
	b, err := url.Parse(boxURL)
	if err != nil {
		return link
	}
	b.Path, b.RawPath, b.RawQuery, b.Fragment = l.Path, l.RawPath, l.RawQuery, l.Fragment
	return b.String()
}
