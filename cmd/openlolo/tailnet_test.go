package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tailscale.com/ipn/ipnstate"
	"tailscale.com/types/key"
	"tailscale.com/types/views"

	"github.com/openlolo/openlolo/sdk"
)

// fixedStatus is a tailscaled that answers with one status (or error).
type fixedStatus struct {
	st  *ipnstate.Status
	err error
}

func (f fixedStatus) Status(context.Context) (*ipnstate.Status, error) { return f.st, f.err }

// statusOf is a running tailnet with these peers.
func statusOf(peers ...*ipnstate.PeerStatus) *ipnstate.Status {
	st := &ipnstate.Status{BackendState: "Running", Peer: map[key.NodePublic]*ipnstate.PeerStatus{}}
	for _, p := range peers {
		st.Peer[key.NewNode().Public()] = p
	}
	return st
}

func peerStatus(dnsName string, online bool, tags ...string) *ipnstate.PeerStatus {
	p := &ipnstate.PeerStatus{DNSName: dnsName, Online: online}
	if tags != nil {
		v := views.SliceOf(tags)
		p.Tags = &v
	}
	return p
}

func TestTailnetBoxesFilter(t *testing.T) {
	paired := []sdk.Box{{URL: "https://openlolo-bb02.tail1.ts.net", Name: "openlolo-bb02"}}
	for _, tc := range []struct {
		name    string
		src     fixedStatus
		want    []string // name url online paired
		wantErr string
	}{
		{"tagged peers only, by name", fixedStatus{st: statusOf(
			peerStatus("openlolo-bb02.tail1.ts.net.", false, "tag:openlolo"),
			peerStatus("laptop.tail1.ts.net.", true),
			peerStatus("server.tail1.ts.net.", true, "tag:server"),
			peerStatus("openlolo-aa01.tail1.ts.net.", true, "tag:server", "tag:openlolo"),
			peerStatus("", true, "tag:openlolo"),
		)}, []string{
			"openlolo-aa01 https://openlolo-aa01.tail1.ts.net true false",
			"openlolo-bb02 https://openlolo-bb02.tail1.ts.net false true",
		}, ""},
		{"no peers", fixedStatus{st: statusOf()}, nil, ""},
		{"not running", fixedStatus{st: &ipnstate.Status{BackendState: "NeedsLogin"}}, nil, "NeedsLogin, not connected"},
		{"no tailscaled", fixedStatus{err: errors.New("dial unix /var/run/tailscale/tailscaled.sock: no such file")}, nil, "is Tailscale running here?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, err := tailnetBoxes(context.Background(), tc.src, paired)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(found); !slices.Equal(got, tc.want) {
				t.Fatalf("found %q, want %q", got, tc.want)
			}
		})
	}
}

// describe is each box as "name url online paired".
func describe(found []tailnetBox) []string {
	var out []string
	for _, b := range found {
		out = append(out, strings.Join([]string{b.Name, b.URL, boolWord(b.Online), boolWord(b.Paired != nil)}, " "))
	}
	return out
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// openlolo pair NAME takes a box discovered on the tailnet by its name; a
// paired box's name and an address need no discovery.
func TestPairResolvesDiscoveredName(t *testing.T) {
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	if err := st.Put(sdk.Box{URL: "https://10.0.0.7:8443", Name: "openlolo-cc03", Entry: "lan"}); err != nil {
		t.Fatal(err)
	}
	src := fixedStatus{st: statusOf(peerStatus("openlolo-aa01.tail1.ts.net.", true, "tag:openlolo"))}
	var stderr bytes.Buffer
	c := &Context{Stderr: &stderr}
	for _, tc := range []struct{ arg, want string }{
		{"openlolo-aa01", "https://openlolo-aa01.tail1.ts.net"},
		{"openlolo-cc03", "https://10.0.0.7:8443"},
		{"openlolo-aa01.local", "https://openlolo-aa01.local"},
	} {
		got, _, err := resolveDiscovered(context.Background(), c, st, tc.arg, src)
		if err != nil || got != tc.want {
			t.Errorf("resolveDiscovered(%q) = %q, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
	if !strings.Contains(stderr.String(), "openlolo-aa01 is on this tailnet") {
		t.Errorf("pair did not say where it found the box: %q", stderr.String())
	}
}

func TestDiscoverFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		bad  bool
	}{
		{nil, "2s", false},
		{[]string{"--discover"}, "2s", false},
		{[]string{"--discover=5s"}, "5s", false},
		{[]string{"--discover=0"}, "0s", false},
		{[]string{"--discover=soon"}, "", true},
	} {
		var out bytes.Buffer
		fs := flags(&Context{Stderr: &out}, "boxes", "")
		d := discoverFlag(discoverTimeout)
		fs.Var(&d, "discover", "")
		err := parse(fs, tc.args)
		if (err != nil) != tc.bad || !tc.bad && d.String() != tc.want {
			t.Errorf("%v: %v %v, want %s (bad %v)", tc.args, d.String(), err, tc.want, tc.bad)
		}
	}
}
