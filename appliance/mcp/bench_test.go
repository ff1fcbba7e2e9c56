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
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// toolRequest is a POST of body to the MCP endpoint url with token.
func toolRequest(url, token, body string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	return req
}

// benchCalls posts body b.N times over one keep-alive HTTPS connection and
// reports calls/s and the p50/p99 latency.
func benchCalls(b *testing.B, url string, hc *http.Client, token, body string) {
	post := func() {
		resp, err := hc.Do(toolRequest(url, token, body))
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
	srv := bareSDKServer(b)
	benchCalls(b, srv.URL, srv.Client(), "x", statusBody)
}

func bareSDKServer(b *testing.B) *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "openlolo_status", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}, StructuredContent: map[string]any{"status": "ok"}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewTLSServer(h)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStatusRealAuthVsBareSDK alternates one openlolo_status call
// with the real bearer check on the sim and one call to the bare go-sdk
// server, so both see the same load on a shared machine, and reports
// both p50s and their ratio (issue 12's target: at most 1.3).
func BenchmarkStatusRealAuthVsBareSDK(b *testing.B) {
	box := newSimBoxB(b)
	token := box.tokenB(b)
	bare := bareSDKServer(b)
	real := func() { benchPost(b, box.srv.URL+"/mcp", box.srv.Client(), token, statusBody) }
	base := func() { benchPost(b, bare.URL, bare.Client(), "x", statusBody) }
	real()
	base() // warm both connections
	lr := make([]time.Duration, 0, b.N)
	lb := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		first, second, l1, l2 := real, base, &lr, &lb
		if i%2 == 1 { // alternate who goes first
			first, second, l1, l2 = base, real, &lb, &lr
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		*l1 = append(*l1, t1.Sub(t0))
		*l2 = append(*l2, time.Since(t1))
	}
	b.StopTimer()
	slices.Sort(lr)
	slices.Sort(lb)
	pr, pb := lr[len(lr)/2], lb[len(lb)/2]
	b.ReportMetric(float64(pr.Microseconds()), "real-p50-µs")
	b.ReportMetric(float64(pb.Microseconds()), "bare-p50-µs")
	b.ReportMetric(float64(pr)/float64(pb), "p50-ratio")
}

// benchPost is one call of benchCalls.
func benchPost(b *testing.B, url string, hc *http.Client, token, body string) {
	resp, err := hc.Do(toolRequest(url, token, body))
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || n == 0 {
		b.Fatalf("status %d", resp.StatusCode)
	}
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

// ocrOnly is the sim without its tree: elements come from OCR, as on a
// phone whose backend has no element tree.
type ocrOnly struct{ *sim.Phone }

func (o ocrOnly) Info() phone.Info {
	i := o.Phone.Info()
	i.Can.Elements = false
	return i
}

func toolBody(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// BenchmarkElementsSim: openlolo_elements on the sim's home screen
// through the real stack (rate limits off): the tree read between two
// looks at the screen, kept, placed and rendered (target: 20 ms a call).
func BenchmarkElementsSim(b *testing.B) {
	box := newSimBoxWith(b, nil, control.Limits{CallsPerMinute: -1})
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), box.tokenB(b), toolBody("openlolo_elements", `{}`))
}

// BenchmarkElementsOCR and BenchmarkFindTextOCR: the sim's home screen
// read by tesseract, as OCR elements and as openlolo_find_text, side by
// side in one run (go test -bench 'OCR$' -benchtime 5x).
func BenchmarkElementsOCR(b *testing.B) {
	box := newSimBoxWith(b, func(p *sim.Phone) phone.Phone { return ocrOnly{p} }, control.Limits{CallsPerMinute: -1})
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), box.tokenB(b), toolBody("openlolo_elements", `{}`))
}

func BenchmarkFindTextOCR(b *testing.B) {
	box := newSimBoxWith(b, func(p *sim.Phone) phone.Phone { return ocrOnly{p} }, control.Limits{CallsPerMinute: -1})
	benchCalls(b, box.srv.URL+"/mcp", box.srv.Client(), box.tokenB(b), toolBody("openlolo_find_text", `{}`))
}
