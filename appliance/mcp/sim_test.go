package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"image"
	"image/draw"
	_ "image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// simBox is the real stack on the simulated phone: the oauth server's
// routes and bearer check in front of /mcp, over HTTPS.
type simBox struct {
	srv   *httptest.Server
	oa    *oauth.Server
	sim   *sim.Phone   // the first phone
	sims  []*sim.Phone // every phone, sim-1 first (newSimsBox)
	ctl   *control.Service
	store *store.Store
	// grantChecks receives a grant ID each time control asks whether the
	// grant is active while a test waits on it (a held watch asks every
	// watchPoll).
	grantChecks chan string
}

// checkedGrants is the oauth server as control's Grants, telling
// grantChecks when it is asked.
type checkedGrants struct {
	*oauth.Server
	checks chan<- string
}

func (g checkedGrants) GrantActive(ctx context.Context, grantID string) (bool, error) {
	select {
	case g.checks <- grantID:
	default:
	}
	return g.Server.GrantActive(ctx, grantID)
}

func newSimBox(t *testing.T) *simBox { return newSimBoxB(t) }

func newSimBoxB(t testing.TB) *simBox { return newSimBoxWith(t, nil, control.Limits{}) }

// newSimBoxWith is the sim box with the phone wrapped (wrap nil: the sim
// itself) and the rules' limits lim.
func newSimBoxWith(t testing.TB, wrap func(*sim.Phone) phone.Phone, lim control.Limits) *simBox {
	return newSimsBoxWith(t, 1, wrap, lim)
}

// newSimsBox is a box of n simulated phones, sim-1 .. sim-n.
func newSimsBox(t testing.TB, n int) *simBox { return newSimsBoxWith(t, n, nil, control.Limits{}) }

// newSimsBoxWith is newSimsBox with each phone wrapped and the limits
// lim; a box of one phone is configured as a single-phone box is.
func newSimsBoxWith(t testing.TB, n int, wrap func(*sim.Phone) phone.Phone, lim control.Limits) *simBox {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &simBox{store: st, grantChecks: make(chan string)}
	var attached []control.Attached
	for i := range n {
		ph, err := sim.New(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b.sims = append(b.sims, ph)
		var driven phone.Phone = ph
		if wrap != nil {
			driven = wrap(ph)
		}
		attached = append(attached, control.Attached{ID: fmt.Sprintf("sim-%d", i+1), Phone: driven})
	}
	b.sim = b.sims[0]
	cfg := control.Config{Store: st, Phone: attached[0].Phone, OCR: ocr.Tesseract{}, Limits: lim}
	if n > 1 {
		cfg.Phones = attached
	}
	if b.oa, err = oauth.New(oauth.Config{Store: st, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	cfg.Grants = checkedGrants{b.oa, b.grantChecks}
	if b.ctl, err = control.New(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	h, err := mcp.New(mcp.Config{Control: b.ctl})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	b.oa.Routes(mux)
	h.Routes(mux, b.oa.Middleware)
	b.srv = httptest.NewTLSServer(mux)
	t.Cleanup(func() {
		b.srv.Close()
		cancel()
		for _, ph := range b.sims {
			ph.Close()
		}
		st.Close()
	})
	return b
}

// token runs the device flow by hand (as docs/wire.md describes it) and has
// the owner approve the request: a real access token.
func (b *simBox) token(t *testing.T, name, scope string) string { return b.tokenFor(t, name, scope) }

func (b *simBox) tokenB(t testing.TB) string {
	return b.tokenFor(t, "bench", "phone:read phone:control")
}

func (b *simBox) tokenFor(t testing.TB, name, scope string) string {
	return b.tokenOn(t, name, scope, nil)
}

// tokenOn is tokenFor of a grant that reaches only phones (nil: every
// phone).
func (b *simBox) tokenOn(t testing.TB, name, scope string, phones []string) string {
	hc := b.srv.Client()
	resp, err := hc.PostForm(b.srv.URL+"/oauth/device_authorization", url.Values{"client_name": {name}, "scope": {scope}})
	if err != nil {
		t.Fatal(err)
	}
	var da struct {
		DeviceCode      string `json:"device_code"`
		VerificationURI string `json:"verification_uri"`
		ClientID        string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&da)
	resp.Body.Close()
	u, err := url.Parse(da.VerificationURI)
	if err != nil || da.DeviceCode == "" {
		t.Fatalf("device authorization: %d %+v", resp.StatusCode, da)
	}
	if err := b.oa.ApproveOn(context.Background(), u.Query().Get("r"), oauth.Life24h, phones); err != nil {
		t.Fatal(err)
	}
	resp, err = hc.PostForm(b.srv.URL+"/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
		"device_code": {da.DeviceCode}, "client_id": {da.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if tok.AccessToken == "" {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	return tok.AccessToken
}

func (b *simBox) session(t *testing.T, token string) *sdk.ClientSession {
	hc := &http.Client{Transport: bearer{token: token, base: b.srv.Client().Transport}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: b.srv.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func decodeImage(t *testing.T, res *sdk.CallToolResult) image.Image {
	t.Helper()
	for _, c := range res.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			pic, _, err := image.Decode(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatal(err)
			}
			return pic
		}
	}
	t.Fatal("no image block")
	return nil
}

func rgba(img image.Image) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// TestSimJourney is the acceptance journey: a real token from the
// device flow, the go-sdk client over HTTPS, the simulated iPhone.
func TestSimJourney(t *testing.T) {
	b := newSimBox(t)
	ctx := context.Background()
	cs := b.session(t, b.token(t, "e2e agent", "phone:read phone:control"))
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 28 { // the sim has a clipboard: send_text and clipboard too
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	res, shot := call(t, cs, "openlolo_screenshot", nil)
	mustOK(t, "screenshot", shot)
	if pic := decodeImage(t, res); pic.Bounds().Dy() != 1536 || shot["native_width"] != float64(1179) {
		t.Fatalf("screenshot %v, fields %v", pic.Bounds(), shot)
	}
	notes, ok := b.sim.IconCenter("Notes")
	if !ok {
		t.Fatal("the sim has no Notes icon")
	}
	_, tap := call(t, cs, "openlolo_tap", frameArgs(shot, notes.X, notes.Y))
	mustOK(t, "tap Notes", tap)
	if b.sim.Screen() != "notes" {
		t.Fatalf("after tapping Notes the sim shows %q", b.sim.Screen())
	}
	_, typed := call(t, cs, "openlolo_type_text", map[string]any{"text": "Hello, box!", "observe": false})
	mustOK(t, "type", typed)
	if got := b.sim.NoteText(); got != "Hello, box!" {
		t.Fatalf("note text %q", got)
	}
	// The next screenshot, lossless at native size, is exactly the sim's
	// own rendering of the note.
	res, shot2 := call(t, cs, "openlolo_screenshot", map[string]any{"format": "png", "max_size": 4096})
	mustOK(t, "screenshot", shot2)
	got := rgba(decodeImage(t, res))
	own, err := b.sim.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, rgba(own.Image).Pix) {
		t.Fatal("the screenshot's pixels differ from the sim's own rendering")
	}
	_, home := call(t, cs, "openlolo_button", map[string]any{"button": "home", "observe": false})
	mustOK(t, "home", home)
	if b.sim.Screen() != "home" {
		t.Fatalf("after Home the sim shows %q", b.sim.Screen())
	}

	// Idempotent replay: the phone saw the input once.
	args := map[string]any{"key": "a", "observe": false, "operation_id": opA}
	_, first := call(t, cs, "openlolo_key", args)
	mustOK(t, "key", first)
	before := b.sim.ReportCount(hid.KindKeyboard)
	_, again := call(t, cs, "openlolo_key", args)
	if again["replayed"] != true || b.sim.ReportCount(hid.KindKeyboard) != before {
		t.Fatalf("replay %v sent %d more keyboard reports", again, b.sim.ReportCount(hid.KindKeyboard)-before)
	}

	// launch_app through Spotlight, open_url through Safari's address bar.
	_, la := call(t, cs, "openlolo_launch_app", map[string]any{"bundle_id": "com.apple.mobilenotes", "observe": false})
	mustOK(t, "launch Notes", la)
	if b.sim.Screen() != "notes" {
		t.Fatalf("launch_app Notes shows %q", b.sim.Screen())
	}
	_, ou := call(t, cs, "openlolo_open_url", map[string]any{"url": "https://example.com/box", "observe": false})
	mustOK(t, "open url", ou)
	if b.sim.Screen() != "safari" || !strings.Contains(b.sim.URL(), "example.com/box") {
		t.Fatalf("open_url shows %q at %q", b.sim.Screen(), b.sim.URL())
	}
}

// TestSimPauseMidSwipe: another client's pause interrupts a running swipe
// on the sim; the swipe ends OUTCOME_UNKNOWN and input stays blocked.
func TestSimPauseMidSwipe(t *testing.T) {
	b := newSimBox(t)
	agent := b.session(t, b.token(t, "swiper", "phone:read phone:control"))
	watcher := b.session(t, b.token(t, "watcher", "phone:read"))
	_, shot := call(t, agent, "openlolo_screenshot", map[string]any{"max_size": 256})
	args := frameArgs(shot, 0.5, 0.8)
	args["x2"], args["y2"], args["seconds"], args["hold"] = 0.5, 0.2, 2.0, 2.0
	done := make(chan answerOrErr, 1)
	go func() { done <- tryCall(agent, "openlolo_swipe", args) }()
	// Pause once the swipe is on the wire.
	eventually(t, func() bool {
		ops, _ := b.ctl.Recent(context.Background(), 1)
		return len(ops) == 1 && ops[0].Tool == "openlolo_swipe" && ops[0].State == store.OpDispatched
	})
	_, p := call(t, watcher, "openlolo_pause", nil)
	mustOK(t, "pause", p)
	select {
	case r := <-done:
		sc := r.must(t)
		if code(sc) != api.CodeOutcomeUnknown || sc["dispatched"] != true {
			t.Fatalf("interrupted swipe %v", sc)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("pause did not stop the swipe")
	}
	_, k := call(t, agent, "openlolo_key", map[string]any{"key": "a", "observe": false})
	if code(k) != api.CodePaused {
		t.Fatalf("input after pause %v", k)
	}
}

// TestSimRevokeEndsWatch: the owner removing a client ends its held watch
// within a second.
func TestSimRevokeEndsWatch(t *testing.T) {
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "watcher", "phone:read"))
	clients, err := b.oa.Clients(context.Background())
	if err != nil || len(clients) != 1 {
		t.Fatalf("clients %v, %v", clients, err)
	}
	done := make(chan answerOrErr, 1)
	go func() {
		done <- tryCall(cs, "openlolo_watch", map[string]any{"wait_ms": 30000, "kinds": []string{"operation"}})
	}()
	// The watch must be past the bearer check and held before the revoke:
	// a held watch asks whether its grant is still active.
	select {
	case <-b.grantChecks:
	case r := <-done:
		t.Fatalf("the watch answered before the revoke: %+v", r)
	case <-time.After(10 * time.Second):
		t.Fatal("the watch was not held after 10 s")
	}
	start := time.Now()
	if err := b.oa.RevokeClient(context.Background(), clients[0].ClientID); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		sc := r.must(t)
		evs, _ := sc["events"].([]any)
		if sc["ended"] != "grant_revoked" || len(evs) != 1 {
			t.Fatalf("watch answer %v", sc)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("the watch ended %v after the revoke", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a revoked client's watch was still held after 5 s")
	}
}

// TestSimSwipeReportsCadence: a swipe's answer says how it was paced on the
// monotonic clock (the sim runs on the real clock here).
func TestSimSwipeReportsCadence(t *testing.T) {
	b := newSimBox(t)
	agent := b.session(t, b.token(t, "pacer", "phone:read phone:control"))
	_, shot := call(t, agent, "openlolo_screenshot", map[string]any{"max_size": 256})
	args := frameArgs(shot, 0.5, 0.6)
	args["x2"], args["y2"], args["seconds"], args["observe"] = 0.5, 0.4, 0.3, false
	_, sc := call(t, agent, "openlolo_swipe", args)
	mustOK(t, "swipe", sc)
	cad, ok := sc["cadence"].(map[string]any)
	if !ok {
		t.Fatalf("swipe answer has no cadence: %v", sc)
	}
	med, _ := cad["median_interval_ms"].(float64)
	gap, _ := cad["max_gap_ms"].(float64)
	// 60 points/s is a 16.7 ms interval; allow for a loaded machine.
	if med < 5 || med > 100 || gap < med {
		t.Fatalf("cadence %v: want a median interval near 16.7 ms and max gap >= median", cad)
	}
	if n, _ := sc["reports"].(float64); n < 10 {
		t.Fatalf("a 0.3 s swipe at 60 points/s wrote %v reports", sc["reports"])
	}
	// A tap has no movement: no cadence.
	_, shot = call(t, agent, "openlolo_screenshot", map[string]any{"max_size": 256})
	tap := frameArgs(shot, 0.5, 0.05)
	tap["observe"] = false
	_, tc := call(t, agent, "openlolo_tap", tap)
	mustOK(t, "tap", tc)
	if _, ok := tc["cadence"]; ok {
		t.Fatalf("a tap reported a cadence: %v", tc)
	}
}

// answerOrErr is a tool call's structured answer or why there is none,
// for calls made off the test goroutine (which must not call t.Fatal).
type answerOrErr struct {
	sc  map[string]any
	err error
}

func (r answerOrErr) must(t *testing.T) map[string]any {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.sc
}

// tryCall is call without t: safe on any goroutine.
func tryCall(cs *sdk.ClientSession, name string, args map[string]any) answerOrErr {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return answerOrErr{err: fmt.Errorf("%s: %w", name, err)}
	}
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return answerOrErr{err: fmt.Errorf("%s: structuredContent is %T", name, res.StructuredContent)}
	}
	return answerOrErr{sc: sc}
}

// eventually waits, up to 5 s, until cond holds.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("condition not reached in 5 s")
		}
	}
}
