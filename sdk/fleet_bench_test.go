package sdk_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// BenchmarkFleetBridge is the fleet bridge's added latency per call: each
// iteration makes one call straight to a box with the Go client and the
// same call as a local agent makes it through FleetBridge (a JSON-RPC line
// in, the routed call, the answer line out), alternating so both see the
// same box. It reports both means and their ratio (fleet/direct). The
// call is openlolo_status on a named phone (a read that does no I/O on the
// box, so the bridge's share shows). The box allows each client 120 calls
// a minute: the two paths are two paired clients, and b.N must stay
// under 115.
//
//	go test ./sdk/ -run '^$' -bench FleetBridge -benchtime 100x -count 5
func BenchmarkFleetBridge(b *testing.B) {
	box := startBoxOf("openlolo-bench", 2)
	defer box.Close()
	directStore := &sdk.TokenStore{Path: filepath.Join(b.TempDir(), "direct.json")}
	fleetStore := &sdk.TokenStore{Path: filepath.Join(b.TempDir(), "fleet.json")}
	box.Pair(directStore)
	box.Pair(fleetStore)
	ctx := context.Background()
	direct, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: directStore})
	must(err)
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: fleetStore})
	must(err)
	s := startFleetBridge(b, ctx, f)
	args := func(phone string) map[string]any { return map[string]any{"phone": phone} }
	// Warm both paths: connections, tokens, the bridge's tool list.
	if _, err := direct.CallTool(ctx, string(api.ToolStatus), args("sim-1")); err != nil {
		b.Fatal(err)
	}
	if sc, isErr := s.call(string(api.ToolStatus), args("openlolo-bench/sim-1")); isErr {
		b.Fatal(sc)
	}
	var (
		viaDirect, viaFleet time.Duration
		n                   int
	)
	for b.Loop() {
		if n++; n > 115 {
			b.Fatalf("more than 115 iterations: the box allows 120 calls a minute per client; run with -benchtime 100x")
		}
		t0 := time.Now()
		if _, err := direct.CallTool(ctx, string(api.ToolStatus), args("sim-1")); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if sc, isErr := s.call(string(api.ToolStatus), args("openlolo-bench/sim-1")); isErr {
			b.Fatal(sc)
		}
		viaDirect += t1.Sub(t0)
		viaFleet += time.Since(t1)
	}
	b.ReportMetric(float64(viaDirect.Microseconds())/float64(n), "direct-µs/call")
	b.ReportMetric(float64(viaFleet.Microseconds())/float64(n), "fleet-µs/call")
	b.ReportMetric(float64(viaFleet)/float64(viaDirect), "fleet/direct")
}
