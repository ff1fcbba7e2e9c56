package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// farmFigures are one box's readings with n simulated phones driven at
// once: every call's answer time per phone, and the box's memory.
type farmFigures struct {
	phones   int
	calls    int
	failed   int
	wall     time.Duration
	perPhone []time.Duration // each phone's median call
	idle     int64           // KiB, all phones up, before the calls
	peak     int64           // KiB, sampled during the calls
	firstErr error           // the first failed call's error, if any
}

// callsPerSecond is the calls answered per second, all phones together.
func (f farmFigures) callsPerSecond() float64 { return float64(f.calls) / f.wall.Seconds() }

// p50 is the median of the phones' medians.
func (f farmFigures) p50() time.Duration { return median(f.perPhone) }

// worstP50 is the slowest phone's median.
func (f farmFigures) worstP50() time.Duration { return slices.Max(f.perPhone) }

// farm measures bin with one simulated phone and then with o.farm, each
// driven at once for o.farmFor, and prints the comparison.
func farm(ctx context.Context, bin string, o options) error {
	var all []farmFigures
	for _, n := range []int{1, o.farm} {
		fmt.Fprintf(os.Stderr, "benchbox: farm of %d (%s)\n", n, bin)
		f, err := measureFarm(ctx, bin, n, o.farmFor)
		if err != nil {
			return fmt.Errorf("farm of %d: %w", n, err)
		}
		all = append(all, f)
	}
	return printFarm(os.Stdout, all[0], all[1])
}

// measureFarm starts bin with n sims, pairs a client for each, and has every phone pressed and looked at concurrently for d: each
// round is a volume button (a new picture: the HUD) then a screenshot.
func measureFarm(ctx context.Context, bin string, n int, d time.Duration) (farmFigures, error) {
	f := farmFigures{phones: n}
	dir, err := os.MkdirTemp("", "benchbox-farm-")
	if err != nil {
		return f, fmt.Errorf("state dir: %w", err)
	}
	defer os.RemoveAll(dir)
	box, err := startBox(ctx, bin, dir, "--sims", fmt.Sprint(n))
	if err != nil {
		return f, err
	}
	defer box.stop()
	conf, err := boxtls.ClientConfig(box.pin)
	if err != nil {
		return f, fmt.Errorf("the box's pin: %w", err)
	}
	owner, err := ownerSession(ctx, box, conf)
	if err != nil {
		return f, err
	}
	// One client per phone, as one agent per phone would be: the box
	// limits each client's calls per minute (api.CallsPerMinute).
	ids := make([]string, n)
	clients := make([]*sdk.Client, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("sim-%d", i+1)
		store := filepath.Join(dir, ids[i]+".json")
		if clients[i], err = pairClient(ctx, box, owner, store, ids[i]); err != nil {
			return f, err
		}
		// A first call per phone, so the farm's figures leave out
		// first-use costs (fonts, icons, the picture cache).
		if _, err := clients[i].CallTool(ctx, string(api.ToolScreenshot), map[string]any{"phone": ids[i]}); err != nil {
			return f, fmt.Errorf("screenshot of %s: %w", ids[i], err)
		}
	}
	time.Sleep(2 * time.Second)
	if f.idle, err = box.rss(); err != nil {
		return f, err
	}

	dctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	times := make([][]time.Duration, n)
	fails := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, id := range ids {
		wg.Go(func() { times[i], fails[i], errs[i] = drivePhone(dctx, clients[i], id) })
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for dctx.Err() == nil {
		select {
		case <-dctx.Done():
		case <-tick.C:
		}
		r, rerr := box.rss()
		if rerr != nil {
			cancel()
			wg.Wait()
			return f, rerr
		}
		f.peak = max(f.peak, r)
	}
	wg.Wait()
	f.wall = time.Since(start)
	for i := range ids {
		if len(times[i]) == 0 {
			return f, fmt.Errorf("%s answered no call in %s", ids[i], d)
		}
		f.calls += len(times[i])
		f.failed += fails[i]
		f.perPhone = append(f.perPhone, median(times[i]))
		if f.firstErr == nil && errs[i] != nil {
			f.firstErr = fmt.Errorf("%s: %w", ids[i], errs[i])
		}
	}
	return f, nil
}

// drivePhone presses volume up and down in turn on phone id, with a
// screenshot after each press, until ctx ends; it returns each answered
// call's time, how many calls failed and the first failure.
func drivePhone(ctx context.Context, c *sdk.Client, id string) (times []time.Duration, failed int, first error) {
	buttons := []api.Button{api.ButtonVolumeUp, api.ButtonVolumeDown}
	for i := 0; ctx.Err() == nil; i++ {
		for _, call := range []func() error{
			func() error {
				_, err := c.Mutate(ctx, string(api.ToolButton), map[string]any{"phone": id, "button": buttons[i%2]})
				return err
			},
			func() error {
				_, err := c.CallTool(ctx, string(api.ToolScreenshot), map[string]any{"phone": id})
				return err
			},
		} {
			start := time.Now()
			err := call()
			switch {
			case ctx.Err() != nil:
				return times, failed, first
			case err != nil:
				failed++
				if first == nil {
					first = err
				}
			default:
				times = append(times, time.Since(start))
			}
		}
	}
	return times, failed, first
}

var requestRE = regexp.MustCompile(`data-user-code="([^"]+)" data-handle="([^"]+)"`)

// pairClient pairs an SDK client with the box, the owner approving it on
// the Access page for phone, and dials it.
func pairClient(ctx context.Context, box *child, owner *http.Client, store, phone string) (*sdk.Client, error) {
	st := &sdk.TokenStore{Path: store}
	var approveErr error
	_, err := sdk.Pair(ctx, box.url, sdk.PairOptions{
		ClientName: "benchbox farm " + phone,
		Store:      st,
		Pin:        box.pin,
		Prompt: func(_, code, _ string) {
			approveErr = approve(ctx, owner, box.url, code, phone)
		},
	})
	if approveErr != nil {
		return nil, fmt.Errorf("approve the farm's client: %w", approveErr)
	}
	if err != nil {
		return nil, fmt.Errorf("pair: %w", err)
	}
	c, err := sdk.Dial(ctx, box.url, &sdk.Options{Store: st})
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	return c, nil
}

// approve approves the pending request with user code on the Access
// page for 30 days on phone.
func approve(ctx context.Context, owner *http.Client, base, code, phone string) error {
	body, err := page(ctx, owner, base+"/access")
	if err != nil {
		return err
	}
	tok := csrfRE.FindStringSubmatch(body)
	if tok == nil {
		return fmt.Errorf("no form token on /access")
	}
	for _, m := range requestRE.FindAllStringSubmatch(body, -1) {
		if !strings.EqualFold(m[1], code) {
			continue
		}
		v := url.Values{"csrf": {tok[1]}, "handle": {m[2]}, "life": {"30d"}, "phones_shown": {"1"}, "phone": {phone}}
		return post(ctx, owner, base, "/access/approve", v, "/access")
	}
	return fmt.Errorf("no pending request with code %s on /access", code)
}

// median is the middle of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func printFarm(w io.Writer, one, many farmFigures) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t1 phone\t%d phones\tratio\t\n", many.phones)
	fmt.Fprintf(tw, "calls/s, all phones\t%.1f\t%.1f\t%.2f\t\n", one.callsPerSecond(), many.callsPerSecond(), many.callsPerSecond()/one.callsPerSecond())
	fmt.Fprintf(tw, "calls/s per phone\t%.1f\t%.1f\t%.2f\t\n", one.callsPerSecond(), many.callsPerSecond()/float64(many.phones),
		many.callsPerSecond()/float64(many.phones)/one.callsPerSecond())
	fmt.Fprintf(tw, "p50 per phone (median of the phones')\t%s\t%s\t%.2f\t\n", ms(one.p50()), ms(many.p50()), float64(many.p50())/float64(one.p50()))
	fmt.Fprintf(tw, "  slowest phone's p50\t%s\t%s\t\t\n", ms(one.worstP50()), ms(many.worstP50()))
	fmt.Fprintf(tw, "calls answered (failed)\t%d (%d)\t%d (%d)\t\t\n", one.calls, one.failed, many.calls, many.failed)
	fmt.Fprintf(tw, "RSS, phones up, before the calls\t%s\t%s\t\t\n", mib(one.idle), mib(many.idle))
	fmt.Fprintf(tw, "  per extra phone\t\t%s\t\t\n", mib((many.idle-one.idle)/int64(many.phones-1)))
	fmt.Fprintf(tw, "peak RSS during the calls\t%s\t%s\t\t\n", mib(one.peak), mib(many.peak))
	fmt.Fprintf(tw, "  per extra phone\t\t%s\t\t\n", mib((many.peak-one.peak)/int64(many.phones-1)))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range []farmFigures{one, many} {
		if f.firstErr != nil {
			fmt.Fprintf(w, "first failed call with %d phones: %v\n", f.phones, f.firstErr)
		}
	}
	return nil
}
