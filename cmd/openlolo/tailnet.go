package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"tailscale.com/client/local"
	"tailscale.com/ipn/ipnstate"

	"github.com/openlolo/openlolo/sdk"
)

// boxTag is the ACL tag a box's node carries on the tailnet: discovery
// lists the peers that have it.
const boxTag = "tag:openlolo"

// tailnetStatus is the machine's own tailscaled as discovery reads it;
// *local.Client implements it.
type tailnetStatus interface {
	Status(ctx context.Context) (*ipnstate.Status, error)
}

// localTailscaled is this machine's tailscaled, through its local API
// socket.
func localTailscaled() tailnetStatus { return &local.Client{} }

// tailnetBox is a peer on the tailnet tagged as a box.
type tailnetBox struct {
	// Name is the peer's host name (openlolo-1a2b), Host its MagicDNS
	// name without the trailing dot, URL the remote entry's address.
	Name, Host, URL string
	// Online is the coordination server's view of the peer.
	Online bool
	// Paired is the token store's entry for the URL, nil when not paired.
	Paired *sdk.Box
}

// tailnetBoxes lists the peers of src's tailnet tagged tag:openlolo,
// sorted by name, merged with the paired boxes. A tailnet that is not up
// is an error that says so; a tagged peer without a MagicDNS name (the
// remote entry's certificate needs one) is left out.
func tailnetBoxes(ctx context.Context, src tailnetStatus, paired []sdk.Box) ([]tailnetBox, error) {
	st, err := src.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("read this machine's tailnet status (is Tailscale running here?): %w", err)
	}
	if st.BackendState != "Running" {
		return nil, fmt.Errorf("this machine's Tailscale is %s, not connected: run tailscale up", st.BackendState)
	}
	var out []tailnetBox
	for _, p := range st.Peer {
		if p.Tags == nil || !slices.Contains(p.Tags.AsSlice(), boxTag) {
			continue
		}
		host := strings.TrimSuffix(p.DNSName, ".")
		if host == "" {
			continue
		}
		name, _, _ := strings.Cut(host, ".")
		b := tailnetBox{Name: name, Host: host, URL: "https://" + host, Online: p.Online}
		for i := range paired {
			if paired[i].URL == b.URL {
				b.Paired = &paired[i]
			}
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b tailnetBox) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// printTailnet writes the table of boxes on the tailnet.
func printTailnet(w io.Writer, found []tailnetBox) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOX\tURL\tONLINE\tPAIRED")
	for _, b := range found {
		online, paired := "no", "no"
		if b.Online {
			online = "yes"
		}
		if b.Paired != nil {
			paired = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.Name, b.URL, online, paired)
	}
	return tw.Flush()
}
