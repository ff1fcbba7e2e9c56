package main

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/sdk"
	"github.com/openlolo/openlolo/waittest"
)

// usbmuxdSocket is where usbmuxd would listen: the checks show nothing does.
const usbmuxdSocket = "/var/run/usbmuxd"

// noObserve asks input tools for no screenshot in the answer (the box's
// default): each costs seconds on the emulated CPU, and the screenshot
// tool has its own check.
var noObserve = &sdk.InputOptions{Observe: new(bool)}

// fakeIPhoneScreen is the fake iPhone's screen: small, so a PNG of it
// crosses the emulated USB quickly.
var fakeIPhoneScreen = image.Rect(0, 0, 390, 844)

// fakeIPhone is the one fake iPhone every iPhone check plugs in:
// hw/coredevice/coredevicetest's phone (lockdown, the CoreDeviceProxy
// tunnel, RSD, the developer services, iOS 27 input) and an echo service
// lockdownd starts. One lockdownd, so the pairing the first checks make
// is the record the box's binary uses after them: a pairing makes two
// 2048-bit RSA keys, tens of seconds on the emulated CPU. The device's
// own key is made by the host for the same reason.
type fakeIPhone struct {
	state  *coredevicetest.State
	input  *coredevicetest.Input
	accept func(port uint16) func(net.Conn)
}

// newFakeIPhone makes the fake iPhone with the key at keyFile (PEM,
// PKCS #8 RSA).
func newFakeIPhone(keyFile string) (*fakeIPhone, error) {
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("%s: not PEM", keyFile)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	key, ok := k.(*rsa.PrivateKey)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s: not an RSA key (%T): %v", keyFile, k, err)
	}
	// A media packet every 250 ms, not 20: each crosses TLS, a userspace
	// TCP/IP stack and usbmux on the emulated CPU; the box wants one
	// within 3 s.
	in := &coredevicetest.Input{Interval: 250 * time.Millisecond}
	st := &coredevicetest.State{Input: in, Screen: image.NewNRGBA(fakeIPhoneScreen),
		Apps: map[string]string{"com.apple.mobilenotes": "Notes", "com.apple.mobilesafari": "Safari"}}
	p := &coredevicetest.Phone{UDID: iPhoneUDID, DeveloperMode: true}
	p.Services = st.Services(p)
	accept := p.Ports()
	p.Lockdown.Key = key
	p.Lockdown.Services[echoService] = lockdowntest.Service{Port: echoPort}
	return &fakeIPhone{state: st, input: in, accept: func(port uint16) func(net.Conn) {
		if port == echoPort {
			return func(c net.Conn) { defer c.Close(); io.Copy(c, c) }
		}
		return accept(port)
	}}, nil
}

// coreDeviceBoxChecks runs the box's binary on the fake iPhone over USB
// with no usbmuxd. `openlolo selftest --phone coredevice` must report
// every step ok; then `openlolo serve --phone coredevice` is claimed, a
// client paired (store keeps its token), and tools called through MCP
// reach the phone. Both use state, where iPhoneUSBChecks kept the pair
// record.
func (s *suite) coreDeviceBoxChecks(ctx context.Context, iphone *fakeIPhone, state string, store *sdk.TokenStore) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, in := iphone.state, iphone.input
	fake, err := startFakeIPhone(ctx, iphone.accept)
	if err == nil {
		defer fake.close()
		err = onBus(iPhoneUDID, 10*time.Second)
	}
	if !s.report("coredevice-fake-iphone", err == nil, "%s", errOr(err, "plugged in again: on the bus with its usbmux interface")) {
		return
	}

	_, serr := os.Stat(usbmuxdSocket)
	noMuxd := errors.Is(serr, fs.ErrNotExist)
	t0 := time.Now()
	out, err := runBox(ctx, 150*time.Second, "selftest", "--phone", "coredevice", "--state", state, "--timeout", "2m")
	text := string(out)
	ok := err == nil && noMuxd && slices.Contains(st.Launches(), "com.apple.mobilenotes")
	for _, step := range []string{"usbmux", "tunnel", "developer mode", "disk image", "screenshot", "apps", "launch", "set clipboard", "clipboard", "paste", "tap", "home button"} {
		ok = ok && strings.Contains(text, fmt.Sprintf("ok      %-16s ", step))
	}
	ok = ok && strings.Contains(text, "result: 12 ok, 0 failed, 0 skipped")
	s.report("selftest-coredevice", ok, "no usbmuxd socket %v; exit %v in %v: %s", noMuxd, err, time.Since(t0).Round(time.Millisecond),
		strings.ReplaceAll(strings.TrimSpace(text), "\n", " | "))

	t0 = time.Now()
	box, err := startServe(ctx, state, "--phone", "coredevice")
	if !s.report("serve-coredevice-up", err == nil, "%s in %v", errOr(err, "serve --phone coredevice printed its start-up lines"), time.Since(t0).Round(time.Millisecond)) {
		return
	}
	defer box.stop()
	t0 = time.Now()
	c, err := box.pair(ctx, store)
	if !s.report("serve-pair", err == nil, "%s in %v", errOr(err, "claimed with the setup code; a client paired through the device flow, approved on Access"), time.Since(t0).Round(time.Millisecond)) {
		return
	}
	s.phoneReady(ctx, c, box, "mcp-coredevice-phones", api.BackendCoreDevice)
	s.deviceInfo(ctx, c, "mcp-coredevice-device-info", api.BackendCoreDevice, "iPhone")

	shot, ok := s.mcpScreenshot(ctx, c, "mcp-coredevice-screenshot", fakeIPhoneScreen.Dx(), fakeIPhoneScreen.Dy())
	if !ok {
		return
	}
	before := len(in.Touches()) // the self-test's tap
	_, err = c.Tap(ctx, shot.Frame, 0.25, 0.75, noObserve)
	waitFor(15*time.Second, func() bool { t := in.Touches(); return len(t) >= before+2 && !t[len(t)-1].Down })
	touches := in.Touches()[before:]
	ok = err == nil && len(touches) >= 2 && touches[0].Down && touches[0].X == remotehid.Coord(0.25) && touches[0].Y == remotehid.Coord(0.75) && !touches[len(touches)-1].Down
	s.report("mcp-coredevice-tap", ok, "%s; the phone's touches %+v", errOr(err, "tap at 0.25,0.75"), touches)

	s.apps(ctx, c, "mcp-coredevice-apps", api.App{BundleID: "com.apple.mobilenotes", Name: "Notes"})
	_, err = c.LaunchApp(ctx, "com.apple.mobilesafari", noObserve)
	s.report("mcp-coredevice-launch", err == nil && slices.Contains(st.Launches(), "com.apple.mobilesafari"),
		"%s; the phone launched %q", errOr(err, "com.apple.mobilesafari"), st.Launches())
	err = box.stop()
	s.report("serve-coredevice-stop", err == nil, "%s", errOr(err, "SIGTERM: serve stopped"))
	s.usbmuxdCheck(ctx)
}

// onBus waits until the bus shows the iPhone with serial udid and its
// usbmux interface.
func onBus(udid string, limit time.Duration) error {
	var devs []usb.DeviceInfo
	var err error
	if waitFor(limit, func() bool {
		devs, err = usb.Bus{}.Devices()
		return slices.ContainsFunc(devs, func(d usb.DeviceInfo) bool {
			_, _, ok := muxusb.Find(d)
			return ok && d.Serial == udid
		})
	}) {
		return nil
	}
	return fmt.Errorf("no iPhone %s with a usbmux interface on the bus within %v: %v %v", udid, limit, devs, err)
}

// phoneReady waits until openlolo_phones lists one phone of backend, ready.
func (s *suite) phoneReady(ctx context.Context, c *sdk.Client, box *servedBox, name string, backend api.Backend) {
	t0 := time.Now()
	last := &api.PhonesResult{}
	var err error
	// Once a second: the box allows a client 120 calls a minute, and a
	// phone that never gets ready must not leave the checks after this
	// one RATE_LIMITED.
	if waittest.Until(60*time.Second, time.Second, func() bool {
		var got *api.PhonesResult
		if got, err = decoded[api.PhonesResult](c.CallTool(ctx, string(api.ToolPhones), nil)); err == nil {
			last = got
		}
		return err == nil && len(last.Phones) == 1 &&
			last.Phones[0].Backend == backend && last.Phones[0].State == api.StateReady
	}) {
		s.report(name, true, "after %v: %+v", time.Since(t0).Round(time.Millisecond), last.Phones[0])
		return
	}
	s.report(name, false, "not one ready %s phone in 60s: %+v %s; serve's log: %s", backend, last.Phones, errOr(err, ""), box.logTail())
}

// deviceInfo checks openlolo_device_info names backend and a model
// containing model.
func (s *suite) deviceInfo(ctx context.Context, c *sdk.Client, name string, backend api.Backend, model string) {
	info, err := decoded[api.DeviceInfoResult](c.CallTool(ctx, string(api.ToolDeviceInfo), nil))
	s.report(name, err == nil && info.Backend == backend && info.Ready && strings.Contains(info.Model, model) && info.NativeWidth > 0,
		"%+v %s", info, errOr(err, ""))
}

// apps checks openlolo_apps lists want.
func (s *suite) apps(ctx context.Context, c *sdk.Client, name string, want api.App) {
	apps, err := decoded[api.AppsResult](c.Apps(ctx, ""))
	s.report(name, err == nil && slices.Contains(apps.Apps, want), "%d apps %+v (want %+v) %s", len(apps.Apps), apps.Apps, want, errOr(err, ""))
}

// mcpScreenshot checks openlolo_screenshot: a JPEG (small: encoding is
// slow on the emulated CPU) of the phone at its native size.
func (s *suite) mcpScreenshot(ctx context.Context, c *sdk.Client, name string, w, h int) (*sdk.Screenshot, bool) {
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{MaxSize: 256})
	if err != nil {
		return nil, s.report(name, false, "%v", err)
	}
	ok := shot.NativeWidth == w && shot.NativeHeight == h && bytes.HasPrefix(shot.Image, []byte{0xff, 0xd8})
	return shot, s.report(name, ok, "%s %d bytes, native %dx%d (want %dx%d)", shot.MIMEType, len(shot.Image), shot.NativeWidth, shot.NativeHeight, w, h)
}

// decoded is a tool's answer as T (a zero T when the call or the decoding
// failed, with that error).
func decoded[T any](res *sdk.Result, err error) (*T, error) {
	if err != nil {
		return new(T), err
	}
	v, err := sdk.Decode[T](res)
	if err != nil {
		return new(T), err
	}
	return v, nil
}
