package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	boxtls "github.com/openlolo/openlolo/tls"
)

func fingerprint(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "fingerprint", "--state DIR | https://host[:port]")
	state := fs.String("state", "", "state directory of a box on this machine")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *state != "" && fs.NArg() == 0:
		cert, err := boxtls.Read(*state)
		if err != nil {
			return err
		}
		printPins(c.Stdout, cert.Leaf)
		return nil
	case *state == "" && fs.NArg() == 1:
		addr, err := hostPort(fs.Arg(0))
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		leaf, err := boxtls.FetchCertificate(ctx, addr)
		if err != nil {
			return err
		}
		printPins(c.Stdout, leaf)
		fmt.Fprintf(c.Stderr, "These are the pins %s presents now. Trust them only if they match what the box itself shows (its console or box page).\n", addr)
		return nil
	}
	return usagef("give either --state DIR or one address https://host[:port], not both")
}

// hostPort turns "https://host[:port][/…]" or "host[:port]" into
// "host:port", port 443 by default.
func hostPort(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Scheme != "https" {
		return "", usagef("%q is not an address like https://openlolo-ab12.local or https://192.168.1.20:8443", s)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func printPins(w io.Writer, leaf *x509.Certificate) {
	fmt.Fprintf(w, "Fingerprint:  %s\n", boxtls.FingerprintHex(leaf))
	fmt.Fprintf(w, "Colon form:   %s\n", boxtls.FingerprintColon(leaf))
	fmt.Fprintf(w, "SPKI pin:     %s\n", boxtls.SPKIPin(leaf))
	names := append([]string{}, leaf.DNSNames...)
	for _, ip := range leaf.IPAddresses {
		names = append(names, ip.String())
	}
	fmt.Fprintf(w, "Names:        %s\n", strings.Join(names, " "))
	fmt.Fprintf(w, "Valid until:  %s\n", leaf.NotAfter.UTC().Format(time.DateOnly))
}
