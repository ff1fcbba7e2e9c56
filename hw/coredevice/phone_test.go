package coredevice_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/phone"
)

func waitState(t *testing.T, events <-chan phone.Event, b *coredevice.Backend, code api.PhoneState) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for b.State().Code != code {
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("state %+v, want %s", b.State(), code)
		}
	}
}

func TestBackend(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{ProductVersion: "27.0", DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	b, err := coredevice.Open(ctx, coredevice.Options{Socket: mux.Socket, StateDir: t.TempDir(), Retry: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	events := b.Subscribe(ctx)
	waitState(t, events, b, "ready")

	info := b.Info()
	if info.Backend != "coredevice" || info.Platform != phone.IOS || info.Native != image.Pt(1179, 2556) || !info.Screenshot || info.Touch || info.Keyboard {
		t.Errorf("Info = %+v", info)
	}
	if info.Can != (phone.Capabilities{LaunchApp: true, Clipboard: true, OpenURL: true}) {
		t.Errorf("Can = %+v, want native launch, URLs and clipboard", info.Can)
	}
	// The recipe entry point takes the native way.
	if rep, err := phone.LaunchApp(ctx, b, phone.App{ID: "com.apple.mobilenotes", Name: "Notes"}); err != nil || rep.Reports != 1 {
		t.Errorf("phone.LaunchApp = %+v, %v", rep, err)
	}
	if len(info.Apps) != 1 || info.Apps[0] != (phone.App{ID: "com.apple.mobilenotes", Name: "Notes"}) {
		t.Errorf("apps %v", info.Apps)
	}
	if g := b.State().Geometry; g.Width != 1179 || g.Height != 2556 || g.Epoch == 0 {
		t.Errorf("geometry %+v", g)
	}
	f, err := b.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := b.Screenshot(ctx)
	if err != nil || f.Image.Bounds().Size() != image.Pt(1179, 2556) || f2.Seq <= f.Seq || f2.Geometry != f.Geometry {
		t.Errorf("frames %+v %+v, %v", f, f2, err)
	}
	if rep, err := b.LaunchApp(ctx, "com.apple.mobilenotes"); err != nil || rep.Reports != 1 {
		t.Errorf("LaunchApp = %+v, %v", rep, err)
	}
	if err := b.SetClipboard(ctx, "héllo ✓ 日本"); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Clipboard(ctx); err != nil || s != "héllo ✓ 日本" {
		t.Errorf("Clipboard = %q, %v", s, err)
	}
	_, err = b.Touch(ctx, phone.Tap(phone.Point{X: .5, Y: .5}, 80*time.Millisecond))
	if !errors.Is(err, phone.ErrUnsupported) || !strings.Contains(err.Error(), "--phone gadget") {
		t.Errorf("Touch = %v, want ErrUnsupported naming the gadget backend", err)
	}

	p.Unplug()
	waitState(t, events, b, "detached")
	if _, err := b.Screenshot(ctx); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Screenshot while detached = %v, want ErrUnavailable", err)
	}
	b.Close()
	if b.State().Code != "closed" {
		t.Errorf("state after Close %+v", b.State())
	}
	for range events {
	}
}

// TestBackendOldIOS: below iOS 27 input answers UNSUPPORTED with the
// gadget backend as the next step, naming the phone's iOS.
func TestBackendOldIOS(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{ProductVersion: "26.2", DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	b, _ := coredevice.Open(ctx, coredevice.Options{Socket: mux.Socket, StateDir: t.TempDir(), Retry: 10 * time.Millisecond})
	defer b.Close()
	waitState(t, b.Subscribe(ctx), b, "ready")
	for _, err := range []error{
		func() error { _, err := b.Type(ctx, "a"); return err }(),
		func() error { _, err := b.Key(ctx, phone.Key{Name: "a"}); return err }(),
		func() error { _, err := b.Press(ctx, phone.Home); return err }(),
	} {
		if !errors.Is(err, phone.ErrUnsupported) || !strings.Contains(err.Error(), "iOS 26 takes no touch") || !strings.Contains(err.Error(), "--phone gadget") {
			t.Errorf("input on iOS 26 = %v", err)
		}
	}
}

func TestBackendNoDaemon(t *testing.T) {
	b, _ := coredevice.Open(t.Context(), coredevice.Options{Socket: t.TempDir() + "/none", StateDir: t.TempDir(), Retry: 10 * time.Millisecond})
	defer b.Close()
	waitState(t, b.Subscribe(t.Context()), b, "no_usbmuxd")
	if !strings.Contains(b.State().Reason, "usbmuxd is not running") {
		t.Errorf("reason %q", b.State().Reason)
	}
}
