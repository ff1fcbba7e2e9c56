package android_test

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/phone"
)

// fakePhone is a fake Android phone served on a loopback port: its
// shell, and whether its owner allows a new key.
type fakePhone struct {
	*adbtest.Phone
	Dev   *adbtest.Device
	Addr  string
	allow atomic.Bool
	asked atomic.Int32
}

// startPhone serves p (nil: the default phone) on a loopback port until
// the test ends; its owner allows new keys when allow is true.
func startPhone(t testing.TB, p *adbtest.Phone, allow bool) *fakePhone {
	t.Helper()
	if p == nil {
		p = &adbtest.Phone{}
	}
	f := &fakePhone{Phone: p}
	f.allow.Store(allow)
	f.Dev = &adbtest.Device{Serial: "fake1", Model: "Pixel_7", Product: "panther", DeviceName: "panther",
		Handler: p.Handle, Allow: func(string) bool { f.asked.Add(1); return f.allow.Load() }}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Dev.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f.Addr = l.Addr().String()
	return f
}

// openOn opens the backend on f with a state dir of its own and a fast
// retry.
func openOn(t testing.TB, f *fakePhone, o android.Options) *android.Backend {
	t.Helper()
	o.Dial, o.Where = android.TCP(f.Addr), "at "+f.Addr
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, d time.Duration) error { return phone.Sleep(ctx, time.Millisecond) }
	}
	b, err := android.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// waitState waits until b's state code is code.
func waitState(t testing.TB, b *android.Backend, code api.PhoneState) phone.State {
	t.Helper()
	var st phone.State
	if !waitFor(t, b, func() bool { st = b.State(); return st.Code == code }) {
		t.Fatalf("state %+v, want %s", b.State(), code)
	}
	return st
}

// waitFor waits up to 20 s until cond holds, checking it at each of p's
// events and every 10 ms (not every change publishes one), and reports
// whether it held.
func waitFor(t testing.TB, p phone.Phone, cond func() bool) bool {
	events := p.Subscribe(t.Context())
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-events:
		case <-tick.C:
		case <-deadline:
			return cond()
		}
	}
	return true
}

func readyPhone(t *testing.T, p *adbtest.Phone) (*fakePhone, *android.Backend) {
	t.Helper()
	f := startPhone(t, p, true)
	b := openOn(t, f, android.Options{})
	waitState(t, b, api.StateReady)
	return f, b
}

func TestInfoAndScreenshot(t *testing.T) {
	t.Parallel()
	f, b := readyPhone(t, nil)
	info := b.Info()
	if info.Backend != api.BackendAndroid || info.Platform != phone.Android || info.Model != "Google Pixel 7 (Android 14, SDK 34)" ||
		info.Native.X != 1080 || info.Native.Y != 2400 || !info.Touch || !info.Keyboard || !info.Can.LaunchApp || !info.Can.OpenURL ||
		!info.Can.Elements || info.Can.Clipboard || !info.HasButton(phone.Back) || !info.HasButton(phone.AppSwitch) {
		t.Errorf("info %+v", info)
	}
	wantApps := []phone.App{{ID: "com.android.settings", Name: "Settings"}, {ID: "com.android.chrome", Name: "Chrome"}, {ID: "com.google.android.apps.maps", Name: "Maps"}}
	if !slices.Equal(info.Apps, wantApps) {
		t.Errorf("apps %v, want %v (the launcher activities, not the service)", info.Apps, wantApps)
	}
	st := b.State()
	if !st.Ready || st.Geometry.Width != 1080 || st.Geometry.Height != 2400 || st.Problems != 0 {
		t.Errorf("state %+v", st)
	}
	f1, err := b.Screenshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f1.Image.Bounds().Dx() != 1080 || f1.Image.Bounds().Dy() != 2400 || f1.Geometry != st.Geometry {
		t.Fatalf("frame %v geometry %+v", f1.Image.Bounds(), f1.Geometry)
	}
	want := adbtest.Screen(1080, 2400)
	for _, y := range []int{0, 1234, 2399} {
		if got := color.NRGBAModel.Convert(f1.Image.At(500, y)); got != want.At(500, y) {
			t.Errorf("pixel (500,%d) = %v, want %v", y, got, want.At(500, y))
		}
	}
	f2, err := b.Screenshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f2.Seq != f1.Seq {
		t.Errorf("the same picture got a new Seq: %d then %d", f1.Seq, f2.Seq)
	}
	if raw, png := f.Screenshots(); raw != 3 || png != 0 {
		t.Errorf("the phone took %d raw and %d PNG screencaps, want 3 raw (the size at connect, two frames)", raw, png)
	}
	// The phone turns: the next frame has the new size and a new epoch.
	f.SetSize(2400, 1080)
	f3, err := b.Screenshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f3.Geometry.Width != 2400 || f3.Geometry.Epoch == f1.Geometry.Epoch || f3.Seq == f1.Seq || b.Info().Native.X != 2400 {
		t.Errorf("after rotation: frame geometry %+v seq %d (first %+v %d)", f3.Geometry, f3.Seq, f1.Geometry, f1.Seq)
	}
}

func TestInput(t *testing.T) {
	t.Parallel()
	f, b := readyPhone(t, nil)
	ctx := t.Context()
	steps := []struct {
		name string
		do   func() (phone.Report, error)
		want []string
	}{
		{"tap", func() (phone.Report, error) {
			return b.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.25}, 50*time.Millisecond))
		}, []string{"tap 540 600"}},
		{"tap at the far edge", func() (phone.Report, error) { return b.Touch(ctx, phone.Tap(phone.Point{X: 1, Y: 1}, 0)) }, []string{"tap 1079 2399"}},
		{"long press", func() (phone.Report, error) {
			return b.Touch(ctx, phone.Tap(phone.Point{X: 0.1, Y: 0.1}, 800*time.Millisecond))
		}, []string{"swipe 108 240 108 240 800"}},
		{"swipe", func() (phone.Report, error) {
			return b.Touch(ctx, phone.Swipe(phone.Point{X: 0.5, Y: 0.8}, phone.Point{X: 0.5, Y: 0.2}, 0, 300*time.Millisecond, 0, 60))
		}, []string{"swipe 540 1920 540 480 300"}},
		{"text", func() (phone.Report, error) { return b.Type(ctx, `it's "50%" & $HOME`) }, []string{`text it's "50%" & $HOME`}},
		{"literal %s", func() (phone.Report, error) { return b.Type(ctx, "a %s b") }, []string{"text a %", "text s b"}},
		{"key", func() (phone.Report, error) { return b.Key(ctx, phone.Key{Name: "enter"}) }, []string{"keyevent KEYCODE_ENTER"}},
		{"function key", func() (phone.Report, error) { return b.Key(ctx, phone.Key{Name: "f12"}) }, []string{"keyevent KEYCODE_F12"}},
		{"ctrl+a", func() (phone.Report, error) { return b.Key(ctx, phone.Key{Name: "a", Mods: phone.Ctrl | phone.Shift}) }, []string{"keycombination KEYCODE_CTRL_LEFT KEYCODE_SHIFT_LEFT KEYCODE_A"}},
		{"paste", func() (phone.Report, error) { return b.Key(ctx, phone.PasteKey(phone.Android)) }, []string{"paste "}},
		{"home", func() (phone.Report, error) { return b.Press(ctx, phone.Home) }, []string{"keyevent KEYCODE_HOME"}},
		{"back", func() (phone.Report, error) { return b.Press(ctx, phone.Back) }, []string{"keyevent KEYCODE_BACK"}},
		{"app switch", func() (phone.Report, error) { return b.Press(ctx, phone.AppSwitch) }, []string{"keyevent KEYCODE_APP_SWITCH"}},
		{"volume up", func() (phone.Report, error) { return b.Press(ctx, phone.VolumeUp) }, []string{"keyevent KEYCODE_VOLUME_UP"}},
		{"volume down", func() (phone.Report, error) { return b.Press(ctx, phone.VolumeDown) }, []string{"keyevent KEYCODE_VOLUME_DOWN"}},
		{"power", func() (phone.Report, error) { return b.Press(ctx, phone.Lock) }, []string{"keyevent KEYCODE_POWER"}},
	}
	for _, s := range steps {
		before := len(f.Inputs())
		rep, err := s.do()
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if got := f.Inputs()[before:]; !slices.Equal(got, s.want) || rep.Reports != len(s.want) || rep.Via != android.ShellInput {
			t.Errorf("%s: the phone got %q (report %+v), want %q", s.name, got, rep, s.want)
		}
	}
}

func TestInputRefused(t *testing.T) {
	t.Parallel()
	f, b := readyPhone(t, &adbtest.Phone{Props: map[string]string{"ro.build.version.release": "12", "ro.build.version.sdk": "31"}})
	ctx := t.Context()
	_, err := b.Type(ctx, "héllo")
	if !errors.Is(err, phone.ErrUnsupportedText) || len(phone.NextSteps(err)) == 0 || !strings.Contains(phone.NextSteps(err)[0], "no clipboard command") {
		t.Errorf("Type(héllo) = %v, steps %q; want UNSUPPORTED_TEXT naming the missing clipboard", err, phone.NextSteps(err))
	}
	if _, err := b.Key(ctx, phone.Key{Name: "a", Mods: phone.Alt}); !errors.Is(err, phone.ErrUnsupported) || len(phone.NextSteps(err)) == 0 {
		t.Errorf("alt+a on Android 12 = %v, want UNSUPPORTED with next steps", err)
	}
	if _, err := b.Key(ctx, phone.Key{Name: "hyper"}); !errors.Is(err, phone.ErrUnsupportedKey) {
		t.Errorf("unknown key = %v", err)
	}
	if _, err := b.Press(ctx, "jump"); !errors.Is(err, phone.ErrUnsupportedButton) {
		t.Errorf("unknown button = %v", err)
	}
	if err := b.SetClipboard(ctx, "x"); !errors.Is(err, phone.ErrUnsupported) {
		t.Errorf("SetClipboard without cmd clipboard = %v", err)
	}
	if _, err := b.LaunchApp(ctx, "com.example.absent"); !errors.Is(err, phone.ErrInputFailed) || !strings.Contains(err.Error(), "no launcher activity") {
		t.Errorf("LaunchApp(absent) = %v", err)
	}
	if _, err := b.LaunchApp(ctx, "x; reboot"); !errors.Is(err, phone.ErrUnsupported) {
		t.Errorf("LaunchApp(x; reboot) = %v", err)
	}
	if got := f.Inputs(); len(got) != 0 {
		t.Errorf("refused input reached the phone: %q", got)
	}
}

// An injected input path takes what it can; where it answers
// ErrUnsupported the shell's input runs. Each answer names its path.
func TestInjectedInput(t *testing.T) {
	t.Parallel()
	in := &hidInput{}
	f := startPhone(t, nil, true)
	b := openOn(t, f, android.Options{Input: in})
	waitState(t, b, api.StateReady)
	tap, err := b.Touch(t.Context(), phone.Tap(phone.Point{X: 0.5, Y: 0.5}, 0))
	if err != nil {
		t.Fatal(err)
	}
	home, err := b.Press(t.Context(), phone.Home)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Inputs(); !slices.Equal(in.touches(), []string{"0.5,0.5"}) || !slices.Equal(got, []string{"keyevent KEYCODE_HOME"}) {
		t.Errorf("HID took %q, the shell %q; want the tap on HID and home on the shell", in.touches(), got)
	}
	if tap.Via != android.AOAInput || tap.Reports != 2 || home.Via != android.ShellInput || home.Reports != 1 {
		t.Errorf("tap %+v, home %+v; want the tap via aoa, home via adb-input", tap, home)
	}
}

// hidInput is an input path that takes touches only.
type hidInput struct {
	mu sync.Mutex
	t  []string
}

func (h *hidInput) touches() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.t)
}
func (h *hidInput) Touch(_ context.Context, g phone.Gesture) (phone.Report, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := g.Steps[0]
	h.t = append(h.t, fmt.Sprintf("%g,%g", p.X, p.Y))
	return phone.Report{Reports: 2}, nil
}
func (h *hidInput) Type(context.Context, string) (phone.Report, error) {
	return phone.Report{}, phone.ErrUnsupported
}
func (h *hidInput) Key(context.Context, phone.Key) (phone.Report, error) {
	return phone.Report{}, phone.ErrUnsupportedKey
}
func (h *hidInput) Press(context.Context, phone.Button) (phone.Report, error) {
	return phone.Report{}, phone.ErrUnsupportedButton
}
func (h *hidInput) ReleaseAll(context.Context) error { return nil }

func TestAppsAndURLs(t *testing.T) {
	t.Parallel()
	f, b := readyPhone(t, nil)
	ctx := t.Context()
	if _, err := b.LaunchApp(ctx, "com.android.chrome"); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://example.com/a?b=1&c=$(reboot)", "myapp://it's/here"} {
		if _, err := b.OpenURL(ctx, u); err != nil {
			t.Fatalf("OpenURL(%s): %v", u, err)
		}
	}
	want := []string{"launch com.android.chrome", "view https://example.com/a?b=1&c=$(reboot)", "view myapp://it's/here"}
	if got := f.Starts(); !slices.Equal(got, want) {
		t.Errorf("the phone started %q, want %q", got, want)
	}
	if _, err := b.OpenURL(ctx, "not a url"); !errors.Is(err, phone.ErrUnsupported) {
		t.Errorf("OpenURL(not a url) = %v", err)
	}
}

// A phone whose package service cannot query activities (Android 6)
// lists its packages.
func TestAppsFallBackToPackages(t *testing.T) {
	t.Parallel()
	_, b := readyPhone(t, &adbtest.Phone{NoQueryActivities: true})
	if got := b.Info().Apps; len(got) != 4 || got[3] != (phone.App{ID: "com.android.providers.downloads", Name: "Downloads"}) {
		t.Errorf("apps %v, want all four packages", got)
	}
}

func TestClipboardAndPaste(t *testing.T) {
	t.Parallel()
	f, b := readyPhone(t, &adbtest.Phone{Clipboard: true})
	if !b.Info().Can.Clipboard {
		t.Fatal("a phone with cmd clipboard reports no clipboard")
	}
	text := "héllo ✓ 日本 'quoted' $HOME"
	if _, err := phone.Paste(t.Context(), b, text); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Clipboard(t.Context()); err != nil || got != text {
		t.Errorf("Clipboard = %q, %v", got, err)
	}
	if got := f.Inputs(); !slices.Equal(got, []string{"paste " + text}) {
		t.Errorf("the phone got %q, want the paste key with the text on the clipboard", got)
	}
	_, err := b.Type(t.Context(), "日本")
	if !errors.Is(err, phone.ErrUnsupportedText) || !strings.Contains(strings.Join(phone.NextSteps(err), " "), "openlolo_send_text") {
		t.Errorf("Type(日本) = %v, steps %q; want UNSUPPORTED_TEXT naming send_text", err, phone.NextSteps(err))
	}
}

// A phone that has not allowed the box's key: the state says so with the
// fingerprint, calls answer PHONE_UNAVAILABLE with next steps, and once
// the owner allows it the backend connects by itself.
func TestNotAllowedThenAllowed(t *testing.T) {
	t.Parallel()
	f := startPhone(t, nil, false)
	state := t.TempDir()
	var mu sync.Mutex
	var waits []time.Duration
	b := openOn(t, f, android.Options{StateDir: state, Retry: 10 * time.Millisecond, MaxRetry: 40 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return phone.Sleep(ctx, time.Millisecond)
		}})
	st := waitState(t, b, api.StatePairing)
	key, err := adb.LoadOrCreateKey(filepath.Join(state, android.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fp := key.Fingerprint(); fp != b.Fingerprint() || !strings.Contains(st.Reason, fp) || !st.Problems.Has(phone.ADBNotAllowed) || st.Ready {
		t.Errorf("state %+v; want not ready, adb_not_allowed, the fingerprint %s in the reason", st, fp)
	}
	_, err = b.Screenshot(t.Context())
	if !errors.Is(err, phone.ErrUnavailable) || len(phone.NextSteps(err)) == 0 || !strings.Contains(phone.NextSteps(err)[0], "Allow USB debugging?") {
		t.Errorf("Screenshot = %v, steps %q", err, phone.NextSteps(err))
	}
	if !waitFor(t, b, func() bool { return f.asked.Load() >= 3 }) {
		t.Fatalf("the phone asked its owner %d times, want 3", f.asked.Load())
	}
	f.allow.Store(true)
	waitState(t, b, api.StateReady)
	if _, err := b.Screenshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) < 3 || waits[0] != 10*time.Millisecond || waits[1] != 20*time.Millisecond || slices.Max(waits) != 40*time.Millisecond {
		t.Errorf("waits between dials %v, want 10ms doubling up to 40ms", waits)
	}
}

// Nothing listens: the state says USB debugging is off; a phone that
// comes up is found without a restart.
func TestUnreachableThenUp(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	b, err := android.Open(context.Background(), android.Options{Dial: android.TCP(addr), Where: "at " + addr, StateDir: t.TempDir(),
		Sleep: func(ctx context.Context, d time.Duration) error { return phone.Sleep(ctx, time.Millisecond) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !waitFor(t, b, func() bool { return b.State().Problems != 0 }) {
		t.Fatalf("state %+v, want a problem", b.State())
	}
	st := b.State()
	if st.Code != api.StateDetached || !st.Problems.Has(phone.USBDebuggingOff) || !strings.Contains(st.Reason, addr) {
		t.Errorf("state %+v", st)
	}
	if _, err := b.Press(t.Context(), phone.Home); !errors.Is(err, phone.ErrUnavailable) || !strings.Contains(strings.Join(phone.NextSteps(err), " "), "USB debugging") {
		t.Errorf("Press = %v, steps %q", err, phone.NextSteps(err))
	}
	// The phone comes up at that address.
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	p := &adbtest.Phone{}
	d := &adbtest.Device{Handler: p.Handle, Allow: func(string) bool { return true }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Serve(ctx, l); close(done) }()
	defer func() { cancel(); <-done }()
	waitState(t, b, api.StateReady)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	if _, err := android.Open(context.Background(), android.Options{}); err == nil {
		t.Error("Open without a dialer succeeded")
	}
	dir := t.TempDir()
	if _, err := android.Open(context.Background(), android.Options{Dial: android.TCP("x:1"), StateDir: filepath.Join(dir, "\x00")}); err == nil {
		t.Error("Open with an unusable state dir succeeded")
	}
}

// A phone with several displays warns before the picture (exec mixes it
// in): the size comes from wm size and the picture still decodes.
func TestScreencapWarning(t *testing.T) {
	t.Parallel()
	_, b := readyPhone(t, &adbtest.Phone{ScreencapWarning: "[Warning] Multiple displays were found, but no display id was specified! Defaulting to the first display found."})
	if st := b.State(); st.Geometry.Width != 1080 || st.Geometry.Height != 2400 {
		t.Errorf("geometry %+v, want wm size's 1080×2400", st.Geometry)
	}
	f, err := b.Screenshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f.Image.Bounds().Dx() != 1080 {
		t.Errorf("frame %v", f.Image.Bounds())
	}
}

// A device whose shell answers nothing Android says (no getprop) is
// reached but not read: detached, saying so, with no problem for the
// owner to fix on the phone.
func TestReachedButUnreadable(t *testing.T) {
	t.Parallel()
	f := startPhone(t, nil, true)
	f.Dev.Handler = nil
	b := openOn(t, f, android.Options{})
	if !waitFor(t, b, func() bool { return strings.Contains(b.State().Reason, "could not read") }) {
		t.Fatalf("state %+v, want could not read", b.State())
	}
	if st := b.State(); st.Code != api.StateDetached || st.Problems != 0 || !strings.Contains(st.Reason, "getprop") {
		t.Errorf("state %+v", st)
	}
}

// An app installed while the box is connected shows up in the catalog.
func TestAppsRefresh(t *testing.T) {
	t.Parallel()
	f := startPhone(t, nil, true)
	b := openOn(t, f, android.Options{AppsEvery: 5 * time.Millisecond})
	waitState(t, b, api.StateReady)
	f.Install(adbtest.Package{Name: "org.example.notes", Activity: "org.example.notes.Main"})
	if !waitFor(t, b, func() bool { return slices.Contains(b.Info().Apps, phone.App{ID: "org.example.notes", Name: "Notes"}) }) {
		t.Fatalf("apps %v, want the new Notes", b.Info().Apps)
	}
}
