package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openlolo/openlolo/sdk"
)

// discoverTimeout is how long boxes and pair listen for mDNS answers.
const discoverTimeout = 2 * time.Second

// discover browses the LAN for boxes, merged with the token store.
func discover(ctx context.Context, st *sdk.TokenStore, timeout time.Duration) ([]sdk.Discovered, error) {
	return sdk.DiscoverWith(ctx, sdk.DiscoverOptions{Timeout: timeout, Store: st})
}

// printDiscovered writes the table of boxes found on the LAN, numbered
// from 1 so a person can pick one.
func printDiscovered(w io.Writer, found []sdk.Discovered) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tBOX\tURL\tADDRESS\tVERSION\tPIN (advertised)\tPAIRED")
	for i, d := range found {
		paired := "no"
		if d.Paired != nil {
			paired = "yes, as " + d.Paired.URL
			if d.PinChanged {
				paired += " (PIN CHANGED: stored " + d.Paired.Pin + ")"
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, d.Name, d.URL, d.AddrURL, d.Version, d.Pin, paired)
	}
	return tw.Flush()
}

// chooseDiscovered lists the boxes on the LAN and asks which to pair
// with; yes picks the only one without asking. It returns the URL to use
// (the .local name when this machine resolves it, else the address) and
// the box as advertised.
func chooseDiscovered(ctx context.Context, c *Context, in *bufio.Reader, st *sdk.TokenStore, yes bool) (string, *sdk.Discovered, error) {
	fmt.Fprintf(c.Stderr, "Looking for boxes on this network (%s)…\n", discoverTimeout)
	found, err := discover(ctx, st, discoverTimeout)
	if err != nil {
		return "", nil, clientExit(err)
	}
	if len(found) == 0 {
		return "", nil, usagef("no box answered on this network over mDNS; give its address: openlolo pair openlolo-1a2b.local (or https://IP:PORT)")
	}
	if err := printDiscovered(c.Stderr, found); err != nil {
		return "", nil, err
	}
	pick := 1
	switch {
	case len(found) == 1 && yes:
	default:
		fmt.Fprintf(c.Stderr, "Pair with which box? [1-%d] ", len(found))
		line, _ := in.ReadString('\n')
		n, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || n < 1 || n > len(found) {
			return "", nil, usagef("%q is not one of the boxes listed (1-%d)", strings.TrimSpace(line), len(found))
		}
		pick = n
	}
	d := found[pick-1]
	return reachableURL(ctx, d), &d, nil
}

// reachableURL is the box's .local URL when this machine resolves the
// name, else its address URL.
func reachableURL(ctx context.Context, d sdk.Discovered) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if addrs, err := net.DefaultResolver.LookupHost(ctx, d.Host); err == nil && len(addrs) > 0 {
		return d.URL
	}
	return d.AddrURL
}

// pinHint is the sentence comparing the certificate's pin with the one
// the box advertised over mDNS (a hint: anyone on the LAN can advertise).
func pinHint(d *sdk.Discovered, pin string) string {
	switch {
	case d == nil || d.Pin == "":
		return ""
	case d.Pin == pin:
		return "It matches the pin the box advertised on the LAN (a hint, not a proof: compare with the box)."
	}
	return "WARNING: the box advertised another pin on the LAN (" + d.Pin + "): do not trust it unless the box itself shows this one."
}

// resolveDiscovered is resolveBox that also takes the name of a box
// discovered but not paired (openlolo boxes lists them): a peer tagged
// tag:openlolo on this machine's tailnet is reached at its MagicDNS name,
// else a box answering over mDNS at its .local name or address (with its
// advertised pin, for the hint). A name found nowhere becomes name.local.
func resolveDiscovered(ctx context.Context, c *Context, st *sdk.TokenStore, arg string, tailnet tailnetStatus) (string, *sdk.Discovered, error) {
	if strings.ContainsAny(arg, ".:/") {
		u, err := resolveBox(st, arg)
		return u, nil, err
	}
	paired, err := st.List()
	if err != nil {
		return "", nil, clientExit(err)
	}
	for _, b := range paired {
		if b.Name == arg {
			return b.URL, nil, nil
		}
	}
	if found, err := tailnetBoxes(ctx, tailnet, paired); err == nil {
		for _, b := range found {
			if strings.EqualFold(b.Name, arg) {
				fmt.Fprintf(c.Stderr, "%s is on this tailnet: %s\n", arg, b.URL)
				return b.URL, nil, nil
			}
		}
	}
	if found, err := discover(ctx, st, discoverTimeout); err == nil {
		for _, d := range found {
			if strings.EqualFold(d.Name, arg) {
				u := reachableURL(ctx, d)
				fmt.Fprintf(c.Stderr, "%s answers on this network: %s\n", arg, u)
				return u, &d, nil
			}
		}
	}
	u, err := resolveBox(st, arg)
	return u, nil, err
}
