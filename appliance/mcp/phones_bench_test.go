package mcp_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
)

// BenchmarkPhones8vs1: one box of 8 simulated phones against one of 1, in
// the same run: each phone has its own client polling
// openlolo_screenshot (max_size 512) on it, all at once, b.N calls each
// (rate limits off). Reports calls/s of the box, p50 per phone, their
// ratios, and the heap each extra phone costs.
func BenchmarkPhones8vs1(b *testing.B) {
	rate1, p501, heap1 := phonesRun(b, 1, b.N)
	rate8, p508, heap8 := phonesRun(b, 8, b.N)
	b.ReportMetric(rate1, "calls/s-1")
	b.ReportMetric(rate8, "calls/s-8")
	b.ReportMetric(float64(p501.Microseconds()), "p50-µs-1")
	b.ReportMetric(float64(p508.Microseconds()), "p50-µs-8")
	b.ReportMetric(float64(p508)/float64(p501), "p50-ratio")
	b.ReportMetric(float64(int64(heap8)-int64(heap1))/7/(1<<20), "MiB/extra-phone")
}

// phonesRun runs n phones with calls calls each; it returns the box's
// calls per second, the p50 of every call and the heap the box holds.
func phonesRun(b *testing.B, n, calls int) (rate float64, p50 time.Duration, heap uint64) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	box := newSimsBoxWith(b, n, nil, control.Limits{CallsPerMinute: -1})
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = box.tokenFor(b, fmt.Sprint("bench ", i), "phone:read phone:control")
	}
	lats := make([][]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		args := fmt.Sprintf(`{"max_size":512,"phone":"sim-%d"}`, i+1)
		if n == 1 {
			args = `{"max_size":512}` // a box of one phone, as its clients call it
		}
		body := toolBody("openlolo_screenshot", args)
		wg.Go(func() {
			for range calls {
				t0 := time.Now()
				if errs[i] = postCall(box.srv.Client(), box.srv.URL+"/mcp", tokens[i], body); errs[i] != nil {
					return
				}
				lats[i] = append(lats[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	total := time.Since(start)
	runtime.GC() // the box and its phones, each having rendered and encoded its screen
	runtime.ReadMemStats(&after)
	var all []time.Duration
	for i, l := range lats {
		if errs[i] != nil {
			b.Fatal(errs[i])
		}
		all = append(all, l...)
	}
	slices.Sort(all)
	return float64(len(all)) / total.Seconds(), all[len(all)/2], after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// postCall posts one tools/call and reads its answer; a failed answer is
// an error.
func postCall(hc *http.Client, url, token, body string) error {
	resp, err := hc.Do(toolRequest(url, token, body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(out), `"status":"ok"`) {
		return fmt.Errorf("status %d, %v: %.300s", resp.StatusCode, err, out)
	}
	return nil
}
