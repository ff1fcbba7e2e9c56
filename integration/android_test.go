package integration

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
	"github.com/openlolo/openlolo/waittest"
)

// TestAndroidEndToEnd: `openlolo serve --phone android --adb` on a fake
// Android phone over TCP, as a person runs it. Before the phone allows
// the box's key, Status shows the key's fingerprint and tools answer
// PHONE_UNAVAILABLE with next steps; once allowed, without a restart,
// every Android tool works through MCP and the phone is told what each
// says.
func TestAndroidEndToEnd(t *testing.T) {
	p := &adbtest.Phone{}
	var allow atomic.Bool
	dev := &adbtest.Device{Serial: "fake1", Model: "Pixel_7", Product: "panther", DeviceName: "panther",
		Handler: p.Handle, Allow: func(string) bool { return allow.Load() }}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithCancel(context.Background())
	ddone := make(chan struct{})
	go func() { dev.Serve(dctx, l); close(ddone) }()
	t.Cleanup(func() { dcancel(); <-ddone })

	box, code := startServeArgs(t, "--phone", "android", "--adb", l.Addr().String())
	ownertest.Claim(t, box.Owner, box.URL, code, passphrase)
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := sdk.Pair(ctx, box.URL, sdk.PairOptions{ClientName: "android e2e", Store: store,
		Confirm: func(_ context.Context, c *x509.Certificate) (bool, error) {
			return boxtls.FingerprintHex(c) == box.Fingerprint, nil
		},
		Prompt: func(_, code, _ string) { ownertest.Approve(t, box.Owner, box.URL, code, ownertest.Life30d) },
	}); err != nil {
		t.Fatalf("sdk.Pair: %v", err)
	}
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}

	// Not allowed yet: Status names the fingerprint, tools say what to do.
	var fp string
	if !waittest.Until(30*time.Second, 50*time.Millisecond, func() bool {
		_, body := ownertest.Get(t, box.Owner, box.URL, "/status")
		if _, rest, ok := strings.Cut(body, "the key fingerprint "); ok {
			fp = rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789ABCDEFabcdef:"))]
			if !strings.Contains(body, `data-problem="adb_not_allowed"`) || !strings.Contains(body, `href="/help/adb-allow"`) {
				t.Errorf("Status shows the fingerprint without the walkthrough: %s", ownertest.Text(body))
			}
		}
		return fp != ""
	}) {
		t.Fatal("the box never showed the key's fingerprint on Status")
	}
	if len(fp) != len("AB:")*15+2 {
		t.Errorf("fingerprint %q is not 16 hex bytes", fp)
	}
	_, err = c.Screenshot(ctx, sdk.ScreenshotOptions{})
	var ref *sdk.Refused
	if !errors.As(err, &ref) || ref.Code != string(api.CodePhoneUnavailable) || !slices.ContainsFunc(ref.NextSteps, func(s string) bool { return strings.Contains(s, "Allow USB debugging?") }) {
		t.Fatalf("Screenshot before the phone allowed the box = %v, want PHONE_UNAVAILABLE naming Allow USB debugging?", err)
	}

	// The owner taps Allow: the box gets in at its next try.
	allow.Store(true)
	var shot *sdk.Screenshot
	if !waittest.Until(30*time.Second, 50*time.Millisecond, func() bool {
		shot, err = c.Screenshot(ctx, sdk.ScreenshotOptions{Format: "png"})
		return err == nil
	}) {
		t.Fatalf("Screenshot after the phone allowed the box: %v", err)
	}
	if shot.NativeWidth != 1080 || shot.NativeHeight != 2400 || len(shot.Image) == 0 {
		t.Errorf("screenshot native %dx%d, %d bytes", shot.NativeWidth, shot.NativeHeight, len(shot.Image))
	}
	if _, err := c.Tap(ctx, shot.Frame, 0.5, 0.25, nil); err != nil {
		t.Fatalf("Tap: %v", err)
	}
	if _, err := c.TypeText(ctx, "hello it's me", nil); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	for _, b := range []string{"home", "back"} {
		if _, err := c.Button(ctx, b, nil); err != nil {
			t.Fatalf("Button %s: %v", b, err)
		}
	}
	res, err := c.Apps(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	apps, err := sdk.Decode[api.AppsResult](res)
	if err != nil || !slices.Contains(apps.Apps, api.App{BundleID: "com.android.chrome", Name: "Chrome"}) {
		t.Errorf("openlolo_apps = %+v, %v; want Chrome", apps, err)
	}
	if _, err := c.LaunchApp(ctx, "com.android.chrome", nil); err != nil {
		t.Fatalf("LaunchApp: %v", err)
	}
	if _, err := c.OpenURL(ctx, "https://example.com/?q=a%20b&x='1'", nil); err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	if res, err = c.CallTool(ctx, "openlolo_device_info", nil); err != nil {
		t.Fatal(err)
	}
	info, err := sdk.Decode[api.DeviceInfoResult](res)
	if err != nil || info.Backend != api.BackendAndroid || info.Platform != api.PlatformAndroid || !info.Ready ||
		info.Model != "Google Pixel 7 (Android 14, SDK 34)" || info.NativeWidth != 1080 {
		t.Errorf("openlolo_device_info = %+v, %v", info, err)
	}
	els, err := c.Elements(ctx, sdk.ElementsOptions{Query: "fi"})
	if err != nil {
		t.Fatalf("Elements: %v", err)
	}
	if els.Source != api.SourceAccessibility || len(els.Elements) != 1 || els.Elements[0].Text != "Wi‑Fi" {
		t.Errorf("openlolo_elements = %+v, want Wi‑Fi from uiautomator's tree", els.ElementsResult)
	}
	wantInputs := []string{"tap 540 600", "text hello it's me", "keyevent KEYCODE_HOME", "keyevent KEYCODE_BACK"}
	if got := p.Inputs(); !slices.Equal(got, wantInputs) {
		t.Errorf("the phone got input %q, want %q", got, wantInputs)
	}
	wantStarts := []string{"launch com.android.chrome", "view https://example.com/?q=a%20b&x='1'"}
	if got := p.Starts(); !slices.Equal(got, wantStarts) {
		t.Errorf("the phone started %q, want %q", got, wantStarts)
	}
}
