package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"
)

// boxesCmd lists the boxes this user has paired with, their pins and the
// state of each grant.
func boxesCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "boxes", "")
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
