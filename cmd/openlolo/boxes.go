package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/openlolo/openlolo/sdk"
)

// boxesCmd lists the boxes this user has paired with, their pins and the
// state of each grant, then the boxes on this network and on the tailnet.
func boxesCmd(ctx context.Context, c *Context, args []string) (err error) {
	fs := flags(c, "boxes", "[--discover[=2s]]")
	wait := discoverFlag(discoverTimeout)
	fs.Var(&wait, "discover", "also list the boxes answering on this network over mDNS (listening this long) and the peers tagged "+boxTag+" on this machine's tailnet (=0: do not look)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("boxes takes no arguments")
	}
	st, err := tokenStore(c)
	if err != nil {
		return clientExit(err)
	}
	boxes, err := st.List()
	if err != nil {
		return clientExit(err)
	}
	if wait > 0 {
		defer func() {
			if err == nil {
				err = printLAN(ctx, c, st, time.Duration(wait))
			}
			if err == nil {
				err = printTailnetSection(ctx, c, localTailscaled(), boxes)
			}
		}()
	}
	if len(boxes) == 0 {
		fmt.Fprintf(c.Stdout, "No paired boxes in %s. Pair with: openlolo pair openlolo-xxxx.local\n", st.Path)
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOX\tURL\tENTRY\tCLIENT\tGRANT\tPIN")
	now := time.Now()
	for _, b := range boxes {
		grant := "paired"
		switch {
		case b.RefreshToken == "":
			grant = "no grant: pair again"
		case !b.Expired(now):
			grant = "active (token valid " + b.Expiry.Sub(now).Round(time.Minute).String() + ")"
		default:
			grant = "paired (refreshes on next call)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", b.Name, b.URL, b.Entry, b.ClientName, grant, b.Pin)
	}
	return tw.Flush()
}

// printLAN lists the boxes answering on this network over mDNS.
func printLAN(ctx context.Context, c *Context, st *sdk.TokenStore, wait time.Duration) error {
	found, err := discover(ctx, st, wait)
	if err != nil {
		// The paired boxes are listed already; not finding others is
		// not this command's failure.
		fmt.Fprintf(c.Stderr, "\nCould not look for boxes on this network: %v\n", err)
		return nil
	}
	if len(found) == 0 {
		fmt.Fprintln(c.Stdout, "\nNo box answered on this network over mDNS.")
		return nil
	}
	fmt.Fprintln(c.Stdout, "\nOn this network (mDNS; pins are what each box advertises: compare before trusting):")
	return printDiscovered(c.Stdout, found)
}

// printTailnetSection lists the boxes on this machine's tailnet.
func printTailnetSection(ctx context.Context, c *Context, src tailnetStatus, paired []sdk.Box) error {
	found, err := tailnetBoxes(ctx, src, paired)
	if err != nil {
		// Not every machine is on a tailnet: say why, fail nothing.
		fmt.Fprintf(c.Stderr, "\nNo tailnet boxes listed: %v\n", err)
		return nil
	}
	if len(found) == 0 {
		fmt.Fprintf(c.Stdout, "\nNo peer on this tailnet is tagged %s.\n", boxTag)
		return nil
	}
	fmt.Fprintf(c.Stdout, "\nOn this tailnet (peers tagged %s; certificates from the tailnet's CA):\n", boxTag)
	return printTailnet(c.Stdout, found)
}

// discoverFlag is --discover: a duration to listen for mDNS answers, or
// given bare, the default (2 s); =0 turns discovery off.
type discoverFlag time.Duration

func (d *discoverFlag) String() string   { return time.Duration(*d).String() }
func (d *discoverFlag) IsBoolFlag() bool { return true }

// Set takes true (the default wait), false or a duration.
func (d *discoverFlag) Set(s string) error {
	switch s {
	case "true":
		*d = discoverFlag(discoverTimeout)
		return nil
	case "false":
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("give a wait such as 2s, or 0 to not look")
	}
	*d = discoverFlag(v)
	return nil
}
