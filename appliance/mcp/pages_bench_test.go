package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// BenchmarkFullPage: openlolo_full_page's own cost per page on the sim (a
// note of 80 lines, five pages, output both, default size, settle 0), the
// tool's run from arguments to encoded images, against one screenshot
// call (capture and encode of one page) in the same run. The sim's clock
// is fixed, so its drags take no time: on a phone each page adds the
// drag (0.8 s: dwell, 0.5 s movement, 0.25 s hold) and the settle (0.7 s
// by default).
func BenchmarkFullPage(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ph, err := sim.New(sim.Options{Clock: sim.FixedClock(time.Date(2026, 1, 2, 9, 41, 0, 0, time.UTC))})
	if err != nil {
		b.Fatal(err)
	}
	defer ph.Close()
	ctl, err := control.New(ctx, control.Config{Store: st, Phone: ph, Limits: control.Limits{CallsPerMinute: -1}})
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(Config{Control: ctl})
	if err != nil {
		b.Fatal(err)
	}
	caller := &oauth.Caller{ClientID: "bench", ClientName: "bench", Scopes: []string{string(api.ScopePhoneRead), string(api.ScopePhoneControl)}}
	c := call{caller: caller, client: control.Client{ID: caller.ClientID, Name: caller.ClientName}}
	run := func(tool api.Tool, args string) rendered {
		c.raw = json.RawMessage(args)
		r := h.tools[string(tool)].run(h, ctx, c)
		if r.outcome.Status != api.StatusOK {
			b.Fatalf("%s: %+v", tool, r.outcome.Error)
		}
		return r
	}
	if _, err := phone.LaunchApp(ctx, ph, phone.App{ID: "com.apple.mobilenotes", Name: "Notes"}); err != nil {
		b.Fatal(err)
	}
	var note strings.Builder
	note.WriteString("Bench")
	for i := 1; i < 80; i++ {
		fmt.Fprintf(&note, "\nLine %d: item %d", i, i*7)
	}
	if _, err := phone.Paste(ctx, ph, note.String()); err != nil {
		b.Fatal(err)
	}
	b.Run("screenshot", func(b *testing.B) {
		for i := range b.N {
			// A new picture each time, as each page is: scroll by a line.
			ph.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.01}, phone.TapHold))
			if i%2 == 1 {
				ph.Touch(ctx, phone.Swipe(phone.Point{X: 0.5, Y: 0.6}, phone.Point{X: 0.5, Y: 0.5}, 0, 100*time.Millisecond, 0, 60))
			}
			run(api.ToolScreenshot, `{}`)
		}
	})
	b.Run("full_page", func(b *testing.B) {
		pages, bytes := 0, 0
		var took time.Duration
		for range b.N {
			ph.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.01}, phone.TapHold)) // to the top
			start := time.Now()
			r := run(api.ToolFullPage, `{"output":"both","settle":0}`)
			took += time.Since(start)
			res := r.answer.(api.Answer[api.FullPageResult]).Result
			pages += res.PageCount
			bytes = len(r.images[len(r.images)-1].Data)
			if b.N == 1 {
				b.Logf("%d pages, stitched %dx%d, %d bytes", res.PageCount, res.Stitched.Width, res.Stitched.Height, bytes)
			}
		}
		b.ReportMetric(float64(took.Milliseconds())/float64(pages), "ms/page")
		b.ReportMetric(float64(bytes), "stitched-bytes")
	})
}
