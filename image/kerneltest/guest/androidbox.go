package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/sdk"
)

// The fake Android phone's screen: small, so a raw screencap crosses the
// emulated USB quickly.
const androidW, androidH = 540, 1200

// androidBoxChecks runs `openlolo serve --phone android` (no --adb: the
// first phone on the box's USB host ports) on the fake Android phone
// over FunctionFS, ADB served by hw/adb/adbtest's phone and AOA on ep0,
// and calls every Android tool through MCP: screenshot, device info,
// apps, launch and open url over ADB; tap, type text, a key and a button
// over AOA HID, checked where the phone decodes them. The box runs on
// state, already claimed and with store's client paired when the
// CoreDevice checks got that far; else it is claimed and paired here.
func (s *suite) androidBoxChecks(ctx context.Context, state string, store *sdk.TokenStore) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ph := &adbtest.Phone{Width: androidW, Height: androidH}
	dev := &adbtest.Device{Serial: fakeSerial, Model: "Pixel_7", Product: "panther", DeviceName: "panther",
		Allow: func(string) bool { return true }, Handler: ph.Handle}
	fake, err := startFakeAndroid(ctx, dev)
	if !s.report("android-fake-phone", err == nil, "%s", errOr(err, "ADB and AOA on FunctionFS")) {
		return
	}
	defer fake.close()
	// The box's ADB key, made by the host (a 2048-bit RSA key takes the
	// emulated CPU seconds).
	err = copyFile("/etc/adbkey", filepath.Join(state, android.KeyFile))
	t0 := time.Now()
	var box *servedBox
	if err == nil {
		box, err = startServe(ctx, state, "--phone", "android")
	}
	if !s.report("serve-android-up", err == nil, "%s in %v", errOr(err, "serve --phone android printed its start-up lines"), time.Since(t0).Round(time.Millisecond)) {
		return
	}
	defer box.stop()
	var c *sdk.Client
	if box.setupCode != "" {
		c, err = box.pair(ctx, store)
	} else {
		c, err = sdk.Dial(ctx, boxURL, &sdk.Options{Store: store})
	}
	if !s.report("serve-android-client", err == nil, "%s", errOr(err, "the client reaches the box")) {
		return
	}
	s.phoneReady(ctx, c, box, "mcp-android-phones", api.BackendAndroid)
	s.deviceInfo(ctx, c, "mcp-android-device-info", api.BackendAndroid, "Pixel 7")
	shot, ok := s.mcpScreenshot(ctx, c, "mcp-android-screenshot", androidW, androidH)
	if ok {
		_, err = c.Tap(ctx, shot.Frame, 0.25, 0.75, noObserve)
		touches, terr := fake.aoa.Touches(aoa.ID(hid.KindTouch))
		down := slices.IndexFunc(touches, func(t aoatest.Touch) bool { return t.Contact })
		var at [2]float64
		if down >= 0 {
			at = [2]float64{touches[down].Point().X, touches[down].Point().Y}
		}
		ok = err == nil && terr == nil && down >= 0 && !touches[len(touches)-1].Contact &&
			math.Abs(at[0]-0.25) < 0.01 && math.Abs(at[1]-0.75) < 0.01 && len(ph.Inputs()) == 0
		s.report("mcp-android-tap", ok, "%s: AOA contact at %.4f; shell input %q %s", errOr(err, "tap at 0.25,0.75"), at, ph.Inputs(), errOr(terr, ""))
	}
	keys := func() [][]uint16 {
		p, _ := fake.aoa.Pressed(aoa.ID(hid.KindKeyboard), hid.PageKeyboard)
		return p
	}
	_, err = c.TypeText(ctx, "hi", noObserve)
	typed := keys()
	s.report("mcp-android-type-text", err == nil && pressed(typed, 0x0b) && pressed(typed, 0x0c), // h, i
		"%s; AOA keyboard reports %v", errOr(err, `"hi"`), typed)
	n := len(typed)
	_, err = c.Key(ctx, string(api.KeyEnter), nil, noObserve)
	typed = keys()
	s.report("mcp-android-key", err == nil && len(typed) > n && pressed(typed[n:], 0x28),
		"%s; AOA keyboard reports after it %v", errOr(err, "enter"), typed[min(n, len(typed)):])
	_, err = c.Button(ctx, "home", noObserve)
	buttons, berr := fake.aoa.Pressed(aoa.ID(hid.KindConsumer), hid.PageConsumer)
	s.report("mcp-android-button", err == nil && berr == nil && pressed(buttons, hid.ConsumerHome),
		"%s; AOA consumer reports %v %s", errOr(err, "home"), buttons, errOr(berr, ""))

	s.apps(ctx, c, "mcp-android-apps", api.App{BundleID: "com.android.chrome", Name: "Chrome"})
	_, err = c.LaunchApp(ctx, "com.android.chrome", noObserve)
	s.report("mcp-android-launch", err == nil && slices.Contains(ph.Starts(), "launch com.android.chrome"),
		"%s; the phone started %q", errOr(err, "com.android.chrome"), ph.Starts())
	const url = "https://example.com/?q=a%20b"
	_, err = c.OpenURL(ctx, url, noObserve)
	s.report("mcp-android-open-url", err == nil && slices.Contains(ph.Starts(), "view "+url),
		"%s; the phone started %q", errOr(err, url), ph.Starts())
	err = box.stop()
	s.report("serve-android-stop", err == nil, "%s", errOr(err, "SIGTERM: serve stopped"))
}

// pressed reports whether any report has usage down.
func pressed(reports [][]uint16, usage uint16) bool {
	return slices.ContainsFunc(reports, func(r []uint16) bool { return slices.Contains(r, usage) })
}

// copyFile copies src to dst (mode 0600), making dst's folder (0700).
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}
