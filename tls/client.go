package tls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
)

// PinMismatchError is the handshake error of a [ClientConfig] connection
// when the server's certificate is not the pinned one. It names both: the
// pin that was expected and the certificate that came.
type PinMismatchError struct {
	// Want is the expected pin as given to ClientConfig (normalized: hex
	// for a leaf pin, sha256//<base64> for a key pin).
	Want string
	// Got is the presented leaf certificate's SHA-256 (hex); GotSPKI is its
	// SPKI pin. Both are empty when the server sent no certificate.
	Got, GotSPKI string
}

func (e *PinMismatchError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("boxtls: server sent no certificate; want pin %s", e.Want)
	}
	return fmt.Sprintf("boxtls: certificate does not match the pin: want %s, got leaf SHA-256 %s (SPKI %s); "+
		"the box's certificate was rotated or this is not the box you paired with: compare with `openlolo fingerprint` on the box",
		e.Want, e.Got, e.GotSPKI)
}

// ClientConfig returns a client *tls.Config that accepts exactly the
// certificate pin names (see [ParsePin] for the spellings). Chain and
// hostname are not consulted; any other certificate fails the handshake
// with a *[PinMismatchError] (find it with errors.As). The config is a new
// value the caller may change further (ServerName, NextProtos).
func ClientConfig(pin string) (*tls.Config, error) {
	p, err := ParsePin(pin)
	if err != nil {
		return nil, err
	}
	return PinnedConfig(p), nil
}

// PinnedConfig is [ClientConfig] for an already parsed pin.
func PinnedConfig(p Pin) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The pin replaces chain and name verification; VerifyConnection
		// runs on every handshake, including resumed ones.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			return verifyPin(p, cs.PeerCertificates)
		},
	}
}

func verifyPin(p Pin, chain []*x509.Certificate) error {
	if len(chain) == 0 {
		return &PinMismatchError{Want: p.String()}
	}
	leaf := chain[0]
	if p.Matches(leaf) {
		return nil
	}
	return &PinMismatchError{Want: p.String(), Got: FingerprintHex(leaf), GotSPKI: SPKIPin(leaf)}
}

// FetchCertificate connects to addr ("host:port"), completes a TLS
// handshake without verifying anything, and returns the server's leaf
// certificate. It makes no trust decision: show the result to a person.
func FetchCertificate(ctx context.Context, addr string) (*x509.Certificate, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("boxtls: fetch certificate: address %q: %w", addr, err)
	}
	d := &tls.Dialer{Config: &tls.Config{
		InsecureSkipVerify: true, // fetching to show, not to trust
		ServerName:         host,
	}}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("boxtls: fetch certificate from %s: %w", addr, err)
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, errors.New("boxtls: fetch certificate from " + addr + ": server sent no certificate")
	}
	return certs[0], nil
}
