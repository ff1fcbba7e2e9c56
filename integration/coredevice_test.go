package integration

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/sdk"
	"github.com/openlolo/openlolo/waittest"
)

// TestCoreDeviceEndToEnd: a box on the CoreDevice backend with the fake
// iPhone (usbmuxd, lockdown, tunnel, RSD, services in process): a paired
// script takes a screenshot, lists the installed apps and launches one
// natively; on a phone without the HID services a tap answers
// UNSUPPORTED without reaching it, naming the gadget backend.
func TestCoreDeviceEndToEnd(t *testing.T) {
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes", "com.example.maps": "Maps"}}
	p := &coredevicetest.Phone{ProductVersion: "27.0", DeveloperMode: true}
	tb := boxOnFakeIPhone(t, p, st, coredevice.Options{})
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, store)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{Format: "png", MaxSize: 1024})
	if err != nil {
		t.Fatalf("Screenshot: %v", err)
	}
	if len(shot.Image) == 0 || shot.Height != 1024 {
		t.Errorf("screenshot %s %d bytes %dx%d", shot.MIMEType, len(shot.Image), shot.Width, shot.Height)
	}
	apps, err := c.Apps(ctx, "")
	if err != nil {
		t.Fatalf("Apps: %v", err)
	}
	ar, err := sdk.Decode[api.AppsResult](apps)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range ar.Apps {
		found = found || (a.BundleID == "com.apple.mobilenotes" && a.Name == "Notes")
	}
	if !found {
		t.Errorf("openlolo_apps = %+v, want the phone's Notes", ar.Apps)
	}
	if _, err := c.LaunchApp(ctx, "com.apple.mobilenotes", nil); err != nil {
		t.Fatalf("LaunchApp: %v", err)
	}
	if got := st.Launches(); len(got) != 1 || got[0] != "com.apple.mobilenotes" {
		t.Errorf("the phone launched %v", got)
	}
	if shot, err = c.Screenshot(ctx, sdk.ScreenshotOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Tap(ctx, shot.Frame, 0.5, 0.5, nil)
	var ref *sdk.Refused
	if !errors.As(err, &ref) || ref.Code != "UNSUPPORTED" || ref.Dispatched {
		t.Errorf("Tap = %v, want UNSUPPORTED, not dispatched", err)
	} else if !slices.ContainsFunc(ref.NextSteps, func(s string) bool { return strings.Contains(s, "--phone gadget") }) {
		t.Errorf("Tap's next steps %q do not name the gadget backend", ref.NextSteps)
	}
}

// TestCoreDeviceInput: on an iOS 27 fake iPhone with DisplayService and
// the HID services, a paired script's tap lands at the point of its
// screenshot, cmd-V and a button reach the phone, a URL of a custom
// scheme opens natively, and send_text pastes Unicode through the
// pasteboard and cmd-V; all through the box's control rules (lease,
// frames, journal).
func TestCoreDeviceInput(t *testing.T) {
	in := &coredevicetest.Input{}
	st := &coredevicetest.State{Input: in, Apps: map[string]string{"com.apple.mobilesafari": "Safari", "com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{ProductVersion: "27.0", DeveloperMode: true}
	tb := boxOnFakeIPhone(t, p, st, coredevice.Options{StreamSettle: time.Millisecond, Keepalive: 50 * time.Millisecond, InputIdle: -1})
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, store)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "openlolo_capabilities", nil)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := sdk.Decode[api.CapabilitiesResult](res)
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Touch || !caps.Keyboard || !slices.Contains(caps.Buttons, api.Button("home")) || !slices.Equal(caps.OpenURL, []string{"*"}) ||
		!caps.Native.OpenURL || !caps.Native.Clipboard || !caps.Native.LaunchApp {
		t.Errorf("openlolo_capabilities = %+v, want touch, keyboard, the iPhone's buttons and native launch, URLs and clipboard", caps)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{Format: "png", MaxSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tap(ctx, shot.Frame, 0.3, 0.6, nil); err != nil {
		t.Fatalf("Tap: %v", err)
	}
	if _, err := c.Key(ctx, "v", []string{"cmd"}, nil); err != nil {
		t.Fatalf("Key: %v", err)
	}
	if _, err := c.Button(ctx, "home", nil); err != nil {
		t.Fatalf("Button: %v", err)
	}
	if _, err := c.OpenURL(ctx, "myapp://item/7", nil); err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	// A URL for a named app (open_url's bundle_id) opens in that app.
	if _, err := c.CallTool(ctx, "openlolo_open_url", map[string]any{"url": "x-notes-test://note/1", "bundle_id": "com.apple.mobilenotes"}); err != nil {
		t.Fatalf("open_url in Notes: %v", err)
	}
	// send_text: any Unicode through the phone's pasteboard and cmd-V.
	res, err = c.SendText(ctx, "héllo ✓ 日本", nil)
	if err != nil {
		t.Fatalf("SendText: %v", err)
	}
	sent, err := sdk.Decode[api.SendTextResult](res)
	if err != nil || !sent.ClipboardReplaced {
		t.Errorf("send_text = %+v, %v; want clipboard_replaced", sent, err)
	}
	if res, err = c.Clipboard(ctx); err != nil {
		t.Fatalf("Clipboard: %v", err)
	}
	if cb, err := sdk.Decode[api.ClipboardResult](res); err != nil || cb.Text != "héllo ✓ 日本" {
		t.Errorf("openlolo_clipboard = %+v, %v", cb, err)
	}
	if !waittest.Until(20*time.Second, 5*time.Millisecond, func() bool {
		return len(in.Touches()) >= 3 && len(in.Keys()) >= 8 && len(in.Buttons()) >= 2
	}) {
		t.Fatalf("the phone took touches %v, keys %v, buttons %v", in.Touches(), in.Keys(), in.Buttons())
	}
	touch := in.Touches()[0]
	if !touch.Down || touch.X != remotehid.Coord(0.3) || touch.Y != remotehid.Coord(0.6) {
		t.Errorf("first touch %+v, want contact at (0.3, 0.6)", touch)
	}
	for _, i := range []int{1, 5} { // openlolo_key's cmd-V, then send_text's
		if k := in.Keys()[i]; len(k) != 2 || k[0] != 0x19 || k[1] != 0xE3 {
			t.Errorf("cmd-V report %d: %v, want V (0x19) with left GUI (0xE3)", i, k)
		}
	}
	if got := st.Opens(); len(got) != 2 || got[0].URL != "myapp://item/7" ||
		got[1] != (coredevicetest.Open{BundleID: "com.apple.mobilenotes", URL: "x-notes-test://note/1", Terminated: true}) {
		t.Errorf("launches %+v, want the custom URL opened, then Notes cold-launched with its URL", got)
	}
	if in.Dropped() != 0 || len(in.Starts()) != 1 {
		t.Errorf("%d reports dropped, %d stream starts", in.Dropped(), len(in.Starts()))
	}
}

// boxOnFakeIPhone starts the fake phone p serving st's services, opens
// the CoreDevice backend on it with opts (Socket, StateDir and Retry are
// set here), waits until the backend is ready, and starts a box on it.
func boxOnFakeIPhone(t *testing.T, p *coredevicetest.Phone, st *coredevicetest.State, opts coredevice.Options) *testBox {
	t.Helper()
	p.Services = st.Services(p)
	mux := p.Start(t)
	state := t.TempDir()
	opts.Socket, opts.StateDir, opts.Retry = mux.Socket, state, 20*time.Millisecond
	ph, err := coredevice.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ph.Close() })
	events := ph.Subscribe(t.Context())
	for deadline := time.After(30 * time.Second); ph.State().Code != "ready"; {
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("backend state %+v", ph.State())
		}
	}
	return startBoxOn(t, state, false, ph)
}
