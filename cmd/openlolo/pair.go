package main

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

func pairCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "pair", "[BOX | NAME] [--name NAME] [--scope 'phone:read phone:control'] [--pin sha256//…] [--yes]")
	name := fs.String("name", "", "client name the owner sees (default '<program> on <hostname>')")
	scope := fs.String("scope", "phone:read phone:control", "scopes to ask for")
	pin := fs.String("pin", "", "expected certificate pin (leaf SHA-256 or sha256//SPKI); any other certificate is refused")
	yes := fs.Bool("yes", false, "trust the certificate the box presents without asking (trust on first use, unattended)")
	pos, err := interleave(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 1 {
		return usagef("give one box: openlolo pair openlolo-1a2b.local (or https://host:port), or none to choose from the boxes on this network")
	}
	st, err := tokenStore(c)
	if err != nil {
		return clientExit(err)
	}
	in := bufio.NewReader(c.Stdin)
	var (
		boxURL     string
		advertised *sdk.Discovered // the mDNS answer when the box was chosen from a list
	)
	if len(pos) == 0 {
		boxURL, advertised, err = chooseDiscovered(ctx, c, in, st, *yes)
	} else {
		boxURL, advertised, err = resolveDiscovered(ctx, c, st, pos[0], localTailscaled())
	}
	if err != nil {
		return err
	}
	opts := sdk.PairOptions{
		ClientName: *name,
		Scopes:     strings.Fields(*scope),
		Pin:        *pin,
		Store:      st,
		Prompt: func(msg, code, link string) {
			fmt.Fprintln(c.Stderr, msg)
			if link != "" {
				fmt.Fprintf(c.Stderr, "Box page: %s\n", link)
			}
			fmt.Fprintln(c.Stderr, "Waiting for the owner to approve…")
		},
	}
	if *pin == "" {
		opts.Confirm = func(ctx context.Context, cert *x509.Certificate) (bool, error) {
			fmt.Fprintf(c.Stderr, "%s presents this certificate:\n", boxURL)
			fmt.Fprintf(c.Stderr, "  Fingerprint: %s\n  SPKI pin:    %s\n", boxtls.FingerprintHex(cert), boxtls.SPKIPin(cert))
			if hint := pinHint(advertised, boxtls.SPKIPin(cert)); hint != "" {
				fmt.Fprintln(c.Stderr, hint)
			}
			fmt.Fprintln(c.Stderr, "Compare it with the box's console or its box page (Connect).")
			if *yes {
				fmt.Fprintln(c.Stderr, "Trusting it (--yes).")
				return true, nil
			}
			fmt.Fprint(c.Stderr, "Trust this box? [y/N] ")
			line, _ := in.ReadString('\n')
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			}
			return false, nil
		}
	}
	b, err := sdk.Pair(ctx, boxURL, opts)
	if err != nil {
		return clientExit(err)
	}
	fmt.Fprintf(c.Stdout, "Paired with %s as %q.\n", b.URL, b.ClientName)
	fmt.Fprintf(c.Stdout, "  box:         %s\n  pin:         %s\n  fingerprint: %s\n  client_id:   %s\n  scope:       %s\n  entry:       %s\n  stored in:   %s\n",
		b.Name, b.Pin, b.Fingerprint, b.ClientID, b.Scope, b.Entry, st.Path)
	fmt.Fprintf(c.Stdout, "Try: %s call %s openlolo_status\n", selfName(c), strings.TrimPrefix(b.URL, "https://"))
	return nil
}

// parseErr keeps -h quiet and turns other flag errors into usage errors.
func parseErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*usageError); ok {
		return err
	}
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%v", err)
}
