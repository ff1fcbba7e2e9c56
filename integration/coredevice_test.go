package integration

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/sdk"
)

// TestCoreDeviceEndToEnd: a box on the CoreDevice backend with the fake
// iPhone (usbmuxd, lockdown, tunnel, RSD, services in process): a paired
// script takes a screenshot, lists the installed apps and launches one
// natively; a tap answers UNSUPPORTED without reaching the phone.
func TestCoreDeviceEndToEnd(t *testing.T) {
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes", "com.example.maps": "Maps"}}
	p := &coredevicetest.Phone{ProductVersion: "27.0"}
	p.Services = st.Services(p)
	mux := p.Start(t)
	state := t.TempDir()
	ph, err := coredevice.Open(context.Background(), coredevice.Options{Socket: mux.Socket, StateDir: state, Retry: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	events := ph.Subscribe(t.Context())
	for deadline := time.After(30 * time.Second); ph.State().Code != "ready"; {
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("backend state %+v", ph.State())
		}
	}
	tb := startBoxOn(t, state, false, ph)
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
	}
}
