// Command benchbox measures what the box costs in memory, side by side for
// one or more builds of openlolo in one run (these machines are noisy, so
// figures are only compared within a run):
//
//	go run ./cmd/benchbox -bin before=/tmp/openlolo-main -bin after=bin/openlolo
//
// (make build makes bin/openlolo; the baseline is the same build of main,
// e.g. git archive main | tar -x -C /tmp/main, then go build there with
// make build's tags.) It takes about a minute and a half per binary.
//
// For each binary it starts `openlolo serve` on the simulated phone on a
// loopback port, reads the child's resident memory (VmRSS in
// /proc/<pid>/status) and prints:
//
//   - idle: RSS once the box is up and has served one page;
//   - login: RSS right after the claim and an owner login (two argon2id
//     hashes), and -settle later (30 s by default, the figure);
//   - 3,000 idle connections: -idle TLS connections opened and held
//     without a request, RSS then, and how many the box kept;
//   - 200 keep-alive clients: -clients clients each requesting the OAuth
//     metadata in a loop on one kept connection for -load, the peak RSS
//     sampled every 50 ms;
//   - the owner page (GET /status with the owner's session) during both
//     floods: the slowest of its answers, on the owner's own kept
//     connection and on a new one.
//
// With -farm N it measures instead how the box scales with simulated
// phones (issue 27): for each binary, `serve --sims 1` and then
// `serve --sims N`, an SDK client paired for each phone (the box limits
// each client's calls per minute), and every phone
// driven at once for -farm-for (a volume button, then a screenshot, in a
// loop). It prints the calls answered per second, the phones' median
// call time (p50 per phone), their ratio between N phones and one, and
// the resident memory per extra phone:
//
//	go run ./cmd/benchbox -bin after=bin/openlolo -farm 8
//
// Each client may make api.CallsPerMinute calls a minute, so the farm
// pairs one client per phone. Measured once (2-core VM, load about 3;
// -farm 8 -farm-for 20s, each phone pressing a volume button then taking
// a screenshot in a loop): 22.4 calls/s with 8 phones against 2.8 with
// one (8.0 times; each phone as fast as alone), p50 per phone 650 ms
// against 658 ms (0.99), 16.8 MiB more resident memory per extra
// simulated phone with the phones up (the sim draws each screen into a
// 12 MB picture) and 37.8 MiB per extra phone at the peak during calls.
//
// The budget (28): idle at most 40 MiB, 48 MiB 30 s after a
// login, the idle connections at most 24 MiB over idle, 200 clients at
// most 96 MiB, the owner page under 200 ms during both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// build is one binary under test, named for the table's column.
type build struct{ name, path string }

// builds is the repeated -bin flag.
type builds []build

func (b *builds) String() string { return fmt.Sprint(*b) }

func (b *builds) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("-bin %q: want name=path (e.g. after=bin/openlolo)", v)
	}
	*b = append(*b, build{name, path})
	return nil
}

// options are the bench's sizes and waits.
type options struct {
	idleConns int
	clients   int
	load      time.Duration
	settle    time.Duration
	farm      int
	farmFor   time.Duration
}

func main() {
	var bins builds
	var o options
	flag.Var(&bins, "bin", "name=path of an openlolo binary to measure (repeat to compare, e.g. before=… after=…)")
	flag.IntVar(&o.idleConns, "idle", 3000, "idle TLS connections to attempt")
	flag.IntVar(&o.clients, "clients", 200, "keep-alive clients in the load phase")
	flag.DurationVar(&o.load, "load", 10*time.Second, "how long the keep-alive clients run")
	flag.DurationVar(&o.settle, "settle", 30*time.Second, "wait after the login before the second reading")
	flag.IntVar(&o.farm, "farm", 0, "measure a farm instead: 1 simulated phone, then this many, every phone driven at once")
	flag.DurationVar(&o.farmFor, "farm-for", 15*time.Second, "with -farm: how long the phones are driven")
	flag.Parse()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "benchbox: name at least one binary: -bin after=bin/openlolo (see go doc ./cmd/benchbox)")
		os.Exit(2)
	}
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "benchbox:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, bins, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchbox:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bins builds, o options) error {
	if err := raiseFileLimit(2*o.idleConns + 2*o.clients + 256); err != nil {
		return err
	}
	if o.farm > 0 {
		for _, b := range bins {
			fmt.Printf("%s (%s)\n", b.name, b.path)
			if err := farm(ctx, b.path, o); err != nil {
				return fmt.Errorf("%s: %w", b.name, err)
			}
		}
		return nil
	}
	var all []figures
	for _, b := range bins {
		fmt.Fprintf(os.Stderr, "benchbox: measuring %s (%s)\n", b.name, b.path)
		f, err := measure(ctx, b.path, o)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		all = append(all, f)
	}
	return printTable(os.Stdout, bins, all, o)
}

// maxFarm is the most phones -farm takes: serve's --sims limit.
const maxFarm = 32

// check refuses a farm the box cannot run or that compares nothing.
func (o options) check() error {
	if o.farm == 1 || o.farm < 0 || o.farm > maxFarm {
		return fmt.Errorf("-farm %d: give 2 to %d phones (serve --sims' range) to compare with one, or 0 for the memory figures", o.farm, maxFarm)
	}
	if o.farm > 0 && o.farmFor <= 0 {
		return fmt.Errorf("-farm-for %s: give how long the phones are driven, e.g. 15s", o.farmFor)
	}
	return nil
}

// raiseFileLimit lifts the soft open-file limit to n (children inherit
// it), so the floods are not cut short by the limit rather than the box.
func raiseFileLimit(n int) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("read the open-file limit: %w", err)
	}
	if l.Cur >= uint64(n) {
		return nil
	}
	l.Cur = min(uint64(n), l.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("raise the open-file limit to %d: %w", n, err)
	}
	return nil
}

func printTable(w *os.File, bins builds, all []figures, o options) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(f figures) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, f := range all {
			fmt.Fprintf(tw, "%s\t", cell(f))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "\t")
	for _, b := range bins {
		fmt.Fprintf(tw, "%s\t", b.name)
	}
	fmt.Fprintln(tw)
	row("idle RSS", func(f figures) string { return mib(f.idle) })
	row("  of it anonymous (not the binary)", func(f figures) string { return mib(f.idleAnon) })
	row("RSS right after claim+login", func(f figures) string { return mib(f.login) })
	row(fmt.Sprintf("RSS %s after the login", o.settle), func(f figures) string { return mib(f.settled) })
	row(fmt.Sprintf("RSS with %d idle connections", o.idleConns), func(f figures) string { return mib(f.flood) })
	row("  over idle", func(f figures) string { return mib(f.flood - f.settled) })
	row("  connections the box kept", func(f figures) string { return fmt.Sprint(f.kept) })
	row("  owner page, slowest", func(f figures) string { return ms(f.floodOwner) })
	row(fmt.Sprintf("peak RSS, %d keep-alive clients", o.clients), func(f figures) string { return mib(f.loadPeak) })
	row("  requests answered", func(f figures) string { return fmt.Sprint(f.loadRequests) })
	row("  owner page, slowest", func(f figures) string { return ms(f.loadOwner) })
	return tw.Flush()
}

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

func ms(d time.Duration) string {
	if d < 0 {
		return "failed"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}
