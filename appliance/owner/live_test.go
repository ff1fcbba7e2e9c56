package owner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/phone"
)

// openStream opens the live stream and returns the response and a part
// reader; the stream ends when ctx does.
func openStream(t testing.TB, ctx context.Context, c *http.Client, base string) (*http.Response, *multipart.Reader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/status/live.mjpeg", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		return res, nil
	}
	mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/x-mixed-replace" || params["boundary"] == "" {
		t.Fatalf("stream Content-Type %q (%v), want multipart/x-mixed-replace with a boundary", res.Header.Get("Content-Type"), err)
	}
	return res, multipart.NewReader(res.Body, params["boundary"])
}

// nextPicture reads the stream's next part and checks it is a JPEG.
func nextPicture(t *testing.T, mr *multipart.Reader) []byte {
	t.Helper()
	part, err := mr.NextPart()
	if err != nil {
		t.Fatalf("next part: %v", err)
	}
	if ct := part.Header.Get("Content-Type"); ct != "image/jpeg" {
		t.Fatalf("part Content-Type %q, want image/jpeg", ct)
	}
	b, err := io.ReadAll(part)
	if err != nil {
		t.Fatal(err)
	}
	// A part's headers go out before its picture exists (livePartHead),
	// so it has no Content-Length; one it had would have to be right.
	if n := part.Header.Get("Content-Length"); n != "" && n != strconv.Itoa(len(b)) {
		t.Fatalf("part Content-Length %q, body %d bytes", n, len(b))
	}
	if _, err := jpeg.DecodeConfig(bytes.NewReader(b)); err != nil {
		t.Fatalf("part is no JPEG: %v", err)
	}
	return b
}

// waitWatching waits (up to 5 s) until the box page's stream has want
// viewers and captures exactly when want > 0.
func waitWatching(t *testing.T, b *box, want int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		v, capturing, _ := b.pages.LiveWatching()
		if v == want && capturing == (want > 0) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("live stream: %d viewers, capturing %v; want %d", v, capturing, want)
		}
	}
}

// The stream: multipart JPEG parts at once and after every change of the
// screen; nothing captures before a viewer comes or after it leaves.
func TestLiveStream(t *testing.T) {
	ph := simPhone(t)
	b, c := claimedBox(t, boxOpts{phone: ph, control: &fakeControl{}})
	if _, _, caps := b.pages.LiveWatching(); caps != 0 {
		t.Fatalf("the box captured %d pictures before anyone watched", caps)
	}
	ctx, cancel := context.WithCancel(t.Context())
	res, mr := openStream(t, ctx, c, b.url)
	if mr == nil {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("stream Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	checkHeaders(t, "live.mjpeg", res)
	first := nextPicture(t, mr)
	cfg, _ := jpeg.DecodeConfig(bytes.NewReader(first))
	// The sim's 1179×2556 screen in whole 3×3 blocks: the largest block
	// reduction within DefaultLiveSize (960) that keeps 7/8 of it.
	if n := ph.Info().Native; cfg.Width != n.X/3 || cfg.Height != n.Y/3 || 8*cfg.Height < 7*owner.DefaultLiveSize || cfg.Height > owner.DefaultLiveSize {
		t.Errorf("picture %dx%d, want a third of the phone's %v", cfg.Width, cfg.Height, n)
	}
	waitWatching(t, b, 1)
	if _, err := ph.Press(t.Context(), phone.Lock); err != nil {
		t.Fatal(err)
	}
	if next := nextPicture(t, mr); bytes.Equal(next, first) {
		t.Error("the picture after locking the phone equals the one before")
	}
	cancel()
	waitWatching(t, b, 0)
	_, _, caps := b.pages.LiveWatching()
	// For 300 ms, checked every 10 ms (TestLiveHubCapturesOnlyWhileWatched
	// checks the same on the bubble's clock).
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	quiet := time.After(300 * time.Millisecond)
	for more := true; more; {
		select {
		case <-tick.C:
		case <-quiet:
			more = false
		}
		if _, _, now := b.pages.LiveWatching(); now != caps {
			t.Errorf("the box took %d screenshots after the viewer left", now-caps)
			break
		}
	}
}

// Each picture of the stream is followed at once by the boundary and
// the next part's headers, with no change of the screen: Chromium shows
// a part only when it has read the next part's headers, and a stream
// that sent only the boundary left the owner's live view one picture
// behind after the owner's own input until the screen changed again.
func TestLiveStreamPartHeadsNext(t *testing.T) {
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/status/live.mjpeg", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	head := "--openlolo-frame\r\nContent-Type: image/jpeg\r\n\r\n"
	r := bufio.NewReader(res.Body)
	// readHead reads the next part's boundary and headers; on a still
	// phone nothing else comes, so a stream that holds them back fails
	// here when ctx ends.
	readHead := func(what string) {
		t.Helper()
		got := make([]byte, len(head))
		if _, err := io.ReadFull(r, got); err != nil || string(got) != head {
			t.Fatalf("%s: read %q (%v), want %q right away", what, got, err, head)
		}
	}
	readHead("the stream's start")
	var pic []byte
	for !bytes.HasSuffix(pic, []byte("\r\n--openlolo-frame\r\n")) {
		ch, err := r.ReadByte()
		if err != nil {
			t.Fatalf("the first picture: %v after %d bytes", err, len(pic))
		}
		pic = append(pic, ch)
	}
	if _, err := jpeg.DecodeConfig(bytes.NewReader(pic)); err != nil {
		t.Fatalf("the first part is no JPEG: %v", err)
	}
	r = bufio.NewReader(io.MultiReader(strings.NewReader("--openlolo-frame\r\n"), r))
	readHead("after the first picture, on a still phone")
}

func TestLiveStreamNeedsOwner(t *testing.T) {
	b := newBox(t, boxOpts{phone: simPhone(t)})
	anon := ownertest.NewClient(t, b.srv)
	if res, _ := openStream(t, t.Context(), anon, b.url); res.StatusCode != http.StatusForbidden {
		t.Fatalf("stream of an unclaimed box: %d, want 403", res.StatusCode)
	}
	ownertest.Claim(t, ownertest.NewClient(t, b.srv), b.url, b.code(t), testPass)
	res, _ := openStream(t, t.Context(), anon, b.url)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("stream without a session: %d, want 403", res.StatusCode)
	}
	if v, capturing, caps := b.pages.LiveWatching(); v != 0 || capturing || caps != 0 {
		t.Fatalf("a refused stream left %d viewers, capturing %v, %d screenshots", v, capturing, caps)
	}
}

func TestLiveStreamViewerLimits(t *testing.T) {
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), live: owner.LiveOptions{PerSession: 1, Viewers: 2}})
	res, mr := openStream(t, t.Context(), c, b.url)
	if mr == nil {
		t.Fatalf("first stream: %d", res.StatusCode)
	}
	nextPicture(t, mr)
	for _, tc := range []struct {
		name   string
		client *http.Client
		want   int
		text   string
	}{
		{"the same session again", c, http.StatusTooManyRequests, "tabs"},
		{"another session", nil, http.StatusOK, ""},
		{"a third session", nil, http.StatusTooManyRequests, "as many viewers"},
	} {
		cl := tc.client
		if cl == nil {
			cl = ownertest.NewClient(t, b.srv)
			ownertest.Login(t, cl, b.url, testPass)
		}
		res, mr := openStream(t, t.Context(), cl, b.url)
		if res.StatusCode != tc.want {
			t.Fatalf("%s: %d, want %d", tc.name, res.StatusCode, tc.want)
		}
		if tc.want == http.StatusOK {
			nextPicture(t, mr)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		if !strings.Contains(string(body), tc.text) || res.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: refusal %q (Retry-After %q) does not say %q", tc.name, body, res.Header.Get("Retry-After"), tc.text)
		}
	}
	waitWatching(t, b, 2)
}

// fakeDriver records the owner's inputs; err, when set, is every answer.
type fakeDriver struct {
	mu     sync.Mutex
	inputs []owner.Input
	takes  int
	gives  int
	err    error
}

func (d *fakeDriver) Input(ctx context.Context, in owner.Input) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inputs = append(d.inputs, in)
	return d.err
}

func (d *fakeDriver) TakeOver(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.takes++
	return d.err
}

func (d *fakeDriver) GiveBack(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gives++
	return d.err
}

func (d *fakeDriver) got() []owner.Input {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]owner.Input(nil), d.inputs...)
}

// postJSON posts form as the page's script does (Accept: application/json).
func postJSON(t *testing.T, c *http.Client, base, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Accept", "application/json")
	res, body := ownertest.Do(t, c, req)
	var a map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatalf("%s: %v in %q", path, err, body)
		}
	}
	return res.StatusCode, a
}

// The script's inputs: fractions and the page's epoch reach the driver;
// bad numbers, a missing token and refusals answer without reaching it
// (or with the refusal's code).
func TestOwnerInputScript(t *testing.T) {
	d := &fakeDriver{}
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{}, driver: d})
	tok := ownertest.CSRF(t, c, b.url)
	cases := []struct {
		path string
		form url.Values
		want owner.Input
	}{
		{"/status/tap", url.Values{"x": {"0.25"}, "y": {"0.5"}, "epoch": {"3"}}, owner.Input{Kind: owner.InputTap, X: 0.25, Y: 0.5, Epoch: "3"}},
		{"/status/long_press", url.Values{"x": {"0.1"}, "y": {"0.9"}, "seconds": {"1.2"}}, owner.Input{Kind: owner.InputLongPress, X: 0.1, Y: 0.9, Seconds: 1.2}},
		{"/status/swipe", url.Values{"x": {"0.5"}, "y": {"0.8"}, "x2": {"0.5"}, "y2": {"0.2"}, "seconds": {"0.3"}},
			owner.Input{Kind: owner.InputSwipe, X: 0.5, Y: 0.8, X2: 0.5, Y2: 0.2, Seconds: 0.3}},
		{"/status/text", url.Values{"text": {"hello"}}, owner.Input{Kind: owner.InputText, Text: "hello"}},
		{"/status/button", url.Values{"button": {"home"}}, owner.Input{Kind: owner.InputButton, Button: "home"}},
		{"/status/key", url.Values{"key": {"enter"}}, owner.Input{Kind: owner.InputKey, Key: "enter"}},
	}
	for _, tc := range cases {
		tc.form.Set("csrf", tok)
		code, a := postJSON(t, c, b.url, tc.path, tc.form)
		if code != http.StatusOK || a["ok"] != true {
			t.Fatalf("%s: %d %v", tc.path, code, a)
		}
		got := d.got()
		if last := got[len(got)-1]; last != tc.want {
			t.Fatalf("%s: driver got %+v, want %+v", tc.path, last, tc.want)
		}
	}
	n := len(d.got())
	for _, bad := range []url.Values{
		{"x": {"2"}, "y": {"0.5"}},
		{"x": {"NaN"}, "y": {"0.5"}},
		{"y": {"0.5"}},
	} {
		bad.Set("csrf", tok)
		if code, a := postJSON(t, c, b.url, "/status/tap", bad); code != http.StatusBadRequest || a["code"] != string(api.CodeInvalidArguments) || a["message"] == "" {
			t.Fatalf("tap %v: %d %v, want 400 INVALID_ARGUMENTS", bad, code, a)
		}
	}
	if code, _ := postJSON(t, c, b.url, "/status/tap", url.Values{"x": {"0.5"}, "y": {"0.5"}}); code != http.StatusForbidden {
		t.Fatalf("tap without the token: %d, want 403", code)
	}
	if len(d.got()) != n {
		t.Fatal("a refused form reached the driver")
	}
	d.mu.Lock()
	d.err = api.Errorf(api.CodeControlBusy, "%q holds control", "nightly.py")
	d.mu.Unlock()
	code, a := postJSON(t, c, b.url, "/status/tap", url.Values{"csrf": {tok}, "x": {"0.5"}, "y": {"0.5"}})
	if code != http.StatusConflict || a["code"] != string(api.CodeControlBusy) || !strings.Contains(a["message"].(string), "Take over") {
		t.Fatalf("busy tap: %d %v, want 409 CONTROL_BUSY saying Take over", code, a)
	}
}

// Without JavaScript the buttons, the typing field, Take over and giving
// back are plain forms: they act and come back to Status saying so, or
// show a page saying why not.
func TestOwnerInputForms(t *testing.T) {
	d := &fakeDriver{}
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{holder: "nightly.py"}, driver: d})
	tok := ownertest.CSRF(t, c, b.url)
	for _, tc := range []struct {
		path string
		form url.Values
		want string
	}{
		{"/status/button", url.Values{"button": {"lock"}}, "Pressed."},
		{"/status/text", url.Values{"text": {"hi"}}, "Typed."},
		{"/status/key", url.Values{"key": {"backspace"}}, "Pressed."},
		{"/status/take-over", nil, "You hold control."},
		{"/status/give-back", nil, "Control is back with the agents."},
	} {
		if tc.form == nil {
			tc.form = url.Values{}
		}
		tc.form.Set("csrf", tok)
		res, body := ownertest.PostForm(t, c, b.url, tc.path, tc.form)
		if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/status" || !strings.Contains(body, tc.want) {
			t.Fatalf("%s: %d at %s: %s", tc.path, res.StatusCode, res.Request.URL, ownertest.Text(body))
		}
	}
	if d.takes != 1 || d.gives != 1 || len(d.got()) != 3 {
		t.Fatalf("driver: %d take overs, %d give backs, inputs %+v", d.takes, d.gives, d.got())
	}
	d.mu.Lock()
	d.err = api.Errorf(api.CodeControlBusy, "%q holds control", "nightly.py")
	d.mu.Unlock()
	res, body := ownertest.PostForm(t, c, b.url, "/status/button", url.Values{"csrf": {tok}, "button": {"home"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "Take over") {
		t.Fatalf("busy button: %d %s", res.StatusCode, ownertest.Text(body))
	}
	res, body = ownertest.PostForm(t, c, b.url, "/status/text", url.Values{"csrf": {tok}, "text": {""}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "type some text") {
		t.Fatalf("empty text: %d %s", res.StatusCode, ownertest.Text(body))
	}
}

// Without a driver (no control service) the page offers no input and the
// routes say why.
func TestOwnerInputWithoutDriver(t *testing.T) {
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: &fakeControl{holder: "nightly.py"}})
	body := mustGet(t, c, b.url, "/status")
	for _, hook := range []string{`id="take-over"`, `id="owner-text"`, `data-button=`, `data-drive`} {
		if strings.Contains(body, hook) {
			t.Errorf("Status without a driver has %s", hook)
		}
	}
	tok := ownertest.CSRF(t, c, b.url)
	if code, a := postJSON(t, c, b.url, "/status/tap", url.Values{"csrf": {tok}, "x": {"0.5"}, "y": {"0.5"}}); code != http.StatusServiceUnavailable || a["code"] != string(api.CodeUnsupported) {
		t.Fatalf("tap without a driver: %d %v", code, a)
	}
}

// The DOM hooks the browser tests rely on.
func TestStatusLiveHooks(t *testing.T) {
	ph := simPhone(t)
	ctl := &fakeControl{holder: "nightly.py"}
	b, c := claimedBox(t, boxOpts{phone: ph, control: ctl, driver: &fakeDriver{}})
	body := mustGet(t, c, b.url, "/status")
	for _, hook := range []string{
		`<img id="phone-live" src="/status/screen.jpg" data-stream="/status/live.mjpeg"`,
		`id="control-holder"`, "<strong>nightly.py</strong> holds control",
		`<form id="take-over" method="post" action="/status/take-over">`,
		`data-button="home"`, `data-button="lock"`, `data-button="volume_up"`, `data-button="volume_down"`,
		`<form id="owner-type" method="post" action="/status/text">`, `<input id="owner-text" name="text"`,
	} {
		if !strings.Contains(body, hook) {
			t.Errorf("Status lacks %s", hook)
		}
	}
	// The simulated iPhone has no Back button: the page offers none.
	if strings.Contains(body, `data-button="back"`) {
		t.Error("Status offers Back on an iPhone")
	}
	// Nobody holds control: no Take over; the text says so.
	ctl.mu.Lock()
	ctl.holder = ""
	ctl.mu.Unlock()
	body = mustGet(t, c, b.url, "/status")
	if strings.Contains(body, `id="take-over"`) || !strings.Contains(body, "Nobody holds control") {
		t.Errorf("Status with control free: %s", ownertest.Text(body))
	}
	// The script's control state follows the lease.
	res, js := ownertest.Get(t, c, b.url, "/status/control.json")
	var cs struct {
		Holder string `json:"holder"`
		State  string `json:"state"`
	}
	if err := json.Unmarshal([]byte(js), &cs); err != nil || res.StatusCode != http.StatusOK || cs.State != "free" {
		t.Fatalf("control.json: %d %q %v", res.StatusCode, js, err)
	}
	if res, _ := ownertest.Get(t, ownertest.NewClient(t, b.srv), b.url, "/status/control.json"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("control.json without a session: %d", res.StatusCode)
	}
}

// EndStreams (the box stops) ends an open stream at once and refuses
// new ones with 503.
func TestLiveStreamEnds(t *testing.T) {
	b, c := claimedBox(t, boxOpts{phone: simPhone(t)})
	res, mr := openStream(t, t.Context(), c, b.url)
	if mr == nil {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	nextPicture(t, mr)
	b.pages.EndStreams()
	// The next part's headers went out with the last picture
	// (livePartHead): what must not come is a picture in it.
	sent := make(chan int64, 1)
	go func() {
		var n int64
		for p, err := mr.NextPart(); err == nil && n == 0; p, err = mr.NextPart() {
			n, _ = io.Copy(io.Discard, p)
		}
		sent <- n
	}()
	select {
	case n := <-sent:
		if n > 0 {
			t.Fatal("the stream sent another picture after EndStreams")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream still runs 5 s after EndStreams")
	}
	waitWatching(t, b, 0)
	if res, _ := openStream(t, t.Context(), c, b.url); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a stream after EndStreams: %d, want 503", res.StatusCode)
	}
}

// Status's control block followed the lease only on a reload: after the
// owner's tap took control, Give control back showed only after one, and
// a "Control is back with the agents." notice stayed above "You hold
// control". control.json carries the block as Status draws it now (the
// page's script swaps it in), and Status drops a notice the lease
// contradicts.
func TestControlBlockFollowsLease(t *testing.T) {
	ctl := &fakeControl{}
	b, c := claimedBox(t, boxOpts{phone: simPhone(t), control: ctl, driver: &fakeDriver{}})
	block := func() (state, html string) {
		t.Helper()
		res, js := ownertest.Get(t, c, b.url, "/status/control.json")
		var cs struct{ State, HTML string }
		if err := json.Unmarshal([]byte(js), &cs); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("control.json: %d %q %v", res.StatusCode, js, err)
		}
		return cs.State, cs.HTML
	}
	if st, h := block(); st != "free" || !strings.Contains(h, "Nobody holds control") || strings.Contains(h, "Give control back") {
		t.Fatalf("control free: %s %s", st, h)
	}
	ctl.mu.Lock()
	ctl.holder, ctl.owner = "owner", true // the owner's tap on the live view took control
	ctl.mu.Unlock()
	st, h := block()
	tok := ownertest.CSRF(t, c, b.url)
	for _, want := range []string{`data-control-state="owner"`, `id="control-holder"`, "<strong>You</strong> hold control until", `<time class="local" datetime="2026-11-29T12:01:30Z">`,
		`action="/status/give-back"`, `name="csrf" value="` + tok + `"`, "Give control back"} {
		if !strings.Contains(h, want) {
			t.Errorf("the owner holds control (%s), the block lacks %s:\n%s", st, want, h)
		}
	}
	body := mustGet(t, c, b.url, "/status?done=given")
	if strings.Contains(body, "Control is back with the agents.") || !strings.Contains(body, "Give control back") {
		t.Errorf("Status with ?done=given while the owner holds control: %s", ownertest.Text(body))
	}
	ctl.mu.Lock()
	ctl.holder, ctl.owner = "", false
	ctl.mu.Unlock()
	if body := mustGet(t, c, b.url, "/status?done=given"); !strings.Contains(body, "Control is back with the agents.") {
		t.Errorf("Status after giving control back lacks the notice: %s", ownertest.Text(body))
	}
}
