package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/appliance/control"
)

// benchCalls posts body b.N times over one keep-alive HTTPS connection and
// reports calls/s and the p50/p99 latency.
func benchCalls(b *testing.B, url string, hc *http.Client, token, body string) {
	post := func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n == 0 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	post() // warm the connection
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		post()
		lat = append(lat, time.Since(t0))
	}
	total := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/total.Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

const statusBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}`

// BenchmarkStatus: openlolo_status through the whole endpoint (test
// bearer middleware, rate limits off), fake phone.
func BenchmarkStatus(b *testing.B) {
	box := newBox(b, boxOpts{limits: control.Limits{CallsPerMinute: -1}})
	box.addCaller("bench", bothScopes)
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), "bench", statusBody)
}

// BenchmarkStatusRealAuth: the same with the real oauth bearer check
// (token hash lookup in SQLite) in front, on the sim.
func BenchmarkStatusRealAuth(b *testing.B) {
	box := newSimBoxB(b)
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), box.tokenB(b), statusBody)
}

// BenchmarkBareSDK is the baseline: a bare go-sdk stateless JSON server
// with one trivial tool, over the same kind of HTTPS server.
func BenchmarkBareSDK(b *testing.B) {
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "openlolo_status", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}, StructuredContent: map[string]any{"status": "ok"}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	benchCalls(b, srv.URL, srv.Client(), "x", statusBody)
}

// BenchmarkScreenshotTool: openlolo_screenshot at max_size 1536 JPEG on
// the sim's 1179×2556 frame through the real stack. The picture does not
// change between calls, so after the first call the encoding comes from
// the cache: this is the tool's own cost; BenchmarkEncode1536JPEG is the
// cost of a new picture.
func BenchmarkScreenshotTool(b *testing.B) {
	box := newSimBoxB(b)
	token := box.tokenB(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_screenshot","arguments":{"max_size":1536,"format":"jpeg"}}}`
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), token, body)
}
