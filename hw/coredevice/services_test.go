package coredevice_test

import (
	"context"
	"errors"
	"image"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
)

func dialFake(t *testing.T, st *coredevicetest.State) (*coredevicetest.Phone, *coredevice.Conn) {
	t.Helper()
	p := &coredevicetest.Phone{DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	d := &coredevice.Dialer{Mux: mux, Store: lockdown.Store{Dir: filepath.Join(t.TempDir(), "pair")}, PairInterval: time.Millisecond}
	c, err := d.Dial(t.Context(), p.Device)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return p, c
}

func TestServices(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes", "com.apple.mobilesafari": "Safari"}}
	p, c := dialFake(t, st)

	if on, err := c.DeveloperMode(ctx); err != nil || !on {
		t.Errorf("DeveloperMode = %v, %v; want on", on, err)
	}
	info, err := c.DeviceInfo(ctx)
	if err != nil || info.String("deviceName") != "Test iPhone" {
		t.Errorf("DeviceInfo = %v, %v", info, err)
	}
	size, err := c.DisplaySize(ctx)
	if err != nil || size != image.Pt(1179, 2556) {
		t.Errorf("DisplaySize = %v, %v", size, err)
	}
	img, err := c.ScreenshotImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Size() != image.Pt(1179, 2556) {
		t.Errorf("screenshot %v", img.Bounds())
	}

	apps, err := c.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range apps {
		ids = append(ids, a.BundleID+"="+a.Name)
	}
	sort.Strings(ids)
	if !slices.Equal(ids, []string{"com.apple.mobilenotes=Notes", "com.apple.mobilesafari=Safari"}) {
		t.Errorf("Apps = %v", ids)
	}
	if pid, err := c.Launch(ctx, "com.apple.mobilenotes", false); err != nil || pid != 4242 {
		t.Errorf("Launch = %d, %v", pid, err)
	}
	var ie *coredevice.InvokeError
	if _, err := c.Launch(ctx, "com.example.none", false); !errors.As(err, &ie) || ie.Code != 1000 {
		t.Errorf("Launch of a missing app = %v, want an InvokeError", err)
	}
	if got := st.Launches(); !slices.Equal(got, []string{"com.apple.mobilenotes"}) {
		t.Errorf("launched %v", got)
	}

	const text = "héllo ✓ 日本"
	if err := c.SetClipboard(ctx, text); err != nil {
		t.Fatal(err)
	}
	got, count, err := c.Clipboard(ctx)
	if err != nil || got != text || count != 1 {
		t.Errorf("Clipboard = %q (%d), %v", got, count, err)
	}
	st.SetKeepOldClipboard(true)
	if err := c.SetClipboard(ctx, "new"); err == nil {
		t.Error("SetClipboard succeeded although the phone kept the old text")
	}

	// Every service request had a connection of its own.
	for _, s := range []string{coredevice.DeviceInfoService, coredevice.ScreenCaptureService, coredevice.AppService, coredevice.PasteboardService} {
		for i, n := range p.RequestsPerConn(s) {
			if n != 1 {
				t.Errorf("%s connection %d carried %d requests", s, i, n)
			}
		}
	}
	// The launch request has the shape of the captured one
	// (xpc/testdata/xpc_dict.bin): envelope keys and options.
	var launch []string
	for _, r := range p.Requests(coredevice.AppService) {
		if r.String("CoreDevice.featureIdentifier") == "com.apple.coredevice.feature.launchapplication" {
			for _, e := range r {
				launch = append(launch, e.Key)
			}
			opts := r.Dict("CoreDevice.input").Dict("options")
			if _, ok := opts.Get("platformSpecificOptions"); !ok || !opts.Bool("standardIOUsesPseudoterminals") {
				t.Errorf("launch options %v", opts)
			}
			break
		}
	}
	sort.Strings(launch)
	want := []string{"CoreDevice.CoreDeviceDDIProtocolVersion", "CoreDevice.action", "CoreDevice.coreDeviceVersion", "CoreDevice.deviceIdentifier",
		"CoreDevice.featureIdentifier", "CoreDevice.input", "CoreDevice.invocationIdentifier"}
	if !slices.Equal(launch, want) {
		t.Errorf("launch envelope keys %v, want %v", launch, want)
	}
}

// TestStreamAppList: a phone that advertises streamapplist is never asked
// listapps (its listapps would wedge dtappserviced).
func TestStreamAppList(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{Stream: true, Apps: map[string]string{"a.b": "A", "c.d": "C", "e.f": "E"}}
	p, c := dialFake(t, st)
	apps, err := c.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 3 {
		t.Errorf("%d apps, want 3", len(apps))
	}
	for _, r := range p.Requests(coredevice.AppService) {
		if r.String("CoreDevice.featureIdentifier") == "com.apple.coredevice.feature.listapps" {
			t.Error("listapps was asked")
		}
	}
}

func TestMissingFeature(t *testing.T) {
	p := &coredevicetest.Phone{Services: map[string]coredevicetest.Service{
		coredevice.DeviceInfoService: {Features: []string{"com.apple.coredevice.feature.getlockstate"}},
	}}
	mux := p.Start(t)
	d := &coredevice.Dialer{Mux: mux, Store: lockdown.Store{Dir: t.TempDir()}, PairInterval: time.Millisecond}
	c, err := d.Dial(t.Context(), p.Device)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if on, err := c.DeveloperMode(t.Context()); err != nil || on {
		t.Errorf("DeveloperMode = %v, %v; want off", on, err)
	}
	if _, err := c.DeviceInfo(t.Context()); !errors.Is(err, coredevice.ErrNoFeature) {
		t.Errorf("DeviceInfo = %v, want ErrNoFeature", err)
	}
	if _, err := c.Screenshot(t.Context()); !errors.Is(err, coredevice.ErrNoService) {
		t.Errorf("Screenshot = %v, want ErrNoService", err)
	}
	if len(p.RequestsPerConn(coredevice.DeviceInfoService)) != 0 {
		t.Error("a request went out for an unadvertised feature")
	}
}
