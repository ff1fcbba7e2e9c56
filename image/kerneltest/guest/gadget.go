package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// Interface numbers follow the gadget's function order.
const (
	ifKeyboard = 0
	ifConsumer = 1
	ifPointer  = 2
)

// writeDeadline is short so the not-reading check is quick.
const writeDeadline = 300 * time.Millisecond

// open starts the gadget backend for a platform and waits until the host
// side configured it (and, with video, until the capture runs).
func (s *suite) open(ctx context.Context, platform string, video bool) (*gadget.Phone, bool) {
	opts := gadget.Options{Platform: platform, Serial: "kerneltest", WriteDeadline: writeDeadline, Video: gadget.NoVideo}
	want := api.StateNoVideo
	if video {
		opts.Video, want = "", api.StateReady
	}
	p, err := gadget.Open(ctx, opts)
	if !s.report("phone-open-"+platform, err == nil, "%s", errOr(err, "bound")) {
		return nil, false
	}
	waitFor(10*time.Second, func() bool { return p.State().Code == want })
	st := p.State()
	if !s.report("phone-state-"+platform, st.Code == want, "state %q (want %q) %s", st.Code, want, st.Reason) {
		p.Close()
		return nil, false
	}
	return p, true
}

func (s *suite) gadgetChecks(ctx context.Context, out map[string][]byte) {
	p, ok := s.open(ctx, gadget.Android, true)
	if !ok {
		return
	}
	// Applying the same profile again changes nothing and stays bound.
	l, _ := gadget.LayoutFor(gadget.Android, gadget.Identity{Serial: "kerneltest"})
	changed, err := (&gadget.Reconciler{}).Reconcile(l)
	s.report("gadget-reconcile-idempotent", err == nil && !changed && p.State().Code == "ready",
		"changed=%v err=%v state=%q", changed, err, p.State().Code)

	s.attributes()
	s.keyboard(ctx, p)
	s.touchAndroid(ctx, p)
	s.consumer(ctx, p)
	s.screenshot(ctx, p, out)
	s.notReading(ctx, p)
	s.gadgetGone(ctx, p)
	s.report("phone-close-android", p.Close() == nil && p.State().Code == "closed", "state %q", p.State().Code)

	// Switching the profile reconciles the pointer function and rebinds.
	if p, ok = s.open(ctx, gadget.IOS, false); !ok {
		return
	}
	s.absMouse(ctx, p)
	p.Close()
	if p, ok = s.open(ctx, gadget.IOSRelative, false); !ok {
		return
	}
	s.relMouse(ctx, p)
	p.Close()
	err = (&gadget.Reconciler{}).Teardown("openlolo")
	_, statErr := os.Stat(filepath.Join(gadget.DefaultConfigFS, "openlolo"))
	s.report("gadget-teardown", err == nil && errors.Is(statErr, os.ErrNotExist), "teardown %v; folder %v", errOr(err, "ok"), statErr)
}

// screenshot takes a frame through the backend (vivid behind it).
func (s *suite) screenshot(ctx context.Context, p *gadget.Phone, out map[string][]byte) {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f, err := p.Screenshot(sctx)
	if !s.report("phone-screenshot", err == nil && f.Geometry.Epoch >= 1 && f.Image.Bounds().Dx() == f.Geometry.Width,
		"%s", errOr(err, fmt.Sprintf("frame %d, %dx%d epoch %d", seqOf(f), geomW(f), geomH(f), epochOf(f)))) {
		return
	}
	var pb bytes.Buffer
	if err := png.Encode(&pb, f.Image); err == nil {
		out["phone.png"] = pb.Bytes()
	}
}

// check opens the host-side input device of iface, runs send, and reads
// events until want is satisfied.
func (s *suite) check(name string, iface int, version uint16, send func() error, want func([]event) (bool, string)) {
	ev, err := findEvdev(iface, version, 10*time.Second)
	if err != nil {
		s.report(name, false, "%v", err)
		return
	}
	defer ev.Close()
	if err := send(); err != nil {
		s.report(name, false, "send: %s", firstLine(err))
		return
	}
	var detail string
	var ok bool
	evs := ev.read(5*time.Second, func(e []event) bool { ok, detail = want(e); return ok })
	if !ok {
		detail += " events: " + describe(evs)
	}
	s.report(name, ok, "%s %s", ev.path, detail)
}

func (s *suite) keyboard(ctx context.Context, p *gadget.Phone) {
	s.check("keyboard-type-Hi!", ifKeyboard, gadget.DeviceAndroid, func() error { _, err := p.Type(ctx, "Hi!"); return err }, func(evs []event) (bool, string) {
		// Each non-modifier key press with whether shift was held.
		type press struct {
			code  uint16
			shift bool
		}
		var got []press
		shift, held := false, map[uint16]bool{}
		for _, e := range evs {
			if e.Type != evKey || e.Value == 2 {
				continue
			}
			if e.Code == keyLeftShift {
				shift = e.Value == 1
				continue
			}
			held[e.Code] = e.Value == 1
			if e.Value == 1 {
				got = append(got, press{e.Code, shift})
			}
		}
		want := []press{{keyH, true}, {keyI, false}, {key1, true}}
		allUp := !shift
		for _, h := range held {
			allUp = allUp && !h
		}
		ok := fmt.Sprint(got) == fmt.Sprint(want) && allUp
		return ok, fmt.Sprintf("presses %v (want %v), all released %v", got, want, allUp)
	})
}

func (s *suite) touchAndroid(ctx context.Context, p *gadget.Phone) {
	ev, err := findEvdev(ifPointer, gadget.DeviceAndroid, 10*time.Second)
	if err != nil {
		s.report("touch-android", false, "%v", err)
		return
	}
	props, drv := ev.props(), ev.driver()
	maxX, errX := ev.absMax(absMTX)
	maxY, errY := ev.absMax(absMTY)
	ev.Close()
	s.report("touch-android-direct", props&(1<<inputPropDirect) != 0 && drv == "hid-multitouch",
		"properties %#x, driver %s", props, drv)
	if errX != nil || errY != nil {
		s.report("touch-android-tap", false, "axis range: %v %v", errX, errY)
		return
	}
	s.check("touch-android-tap", ifPointer, gadget.DeviceAndroid, func() error {
		_, err := p.Touch(ctx, phone.Tap(phone.Point{X: 0.25, Y: 0.75}, 70*time.Millisecond))
		return err
	}, func(evs []event) (bool, string) {
		x, okx := last(evs, evAbs, absMTX)
		y, oky := last(evs, evAbs, absMTY)
		fx, fy := float64(x)/float64(maxX), float64(y)/float64(maxY)
		ok := okx && oky && has(evs, evKey, btnTouch, 1) && has(evs, evKey, btnTouch, 0) &&
			math.Abs(fx-0.25) < 0.001 && math.Abs(fy-0.75) < 0.001
		return ok, fmt.Sprintf("MT position %.4f,%.4f of %d,%d, touch down+up %v", fx, fy, maxX, maxY,
			has(evs, evKey, btnTouch, 1) && has(evs, evKey, btnTouch, 0))
	})
}

func (s *suite) consumer(ctx context.Context, p *gadget.Phone) {
	for _, c := range []struct {
		name   string
		button phone.Button
		key    uint16
	}{{"consumer-home", phone.Home, keyHomepage}, {"consumer-volume-up", phone.VolumeUp, keyVolumeUp}} {
		s.check(c.name, ifConsumer, gadget.DeviceAndroid, func() error { _, err := p.Press(ctx, c.button); return err }, func(evs []event) (bool, string) {
			ok := has(evs, evKey, c.key, 1) && has(evs, evKey, c.key, 0)
			return ok, fmt.Sprintf("key %d press+release %v", c.key, ok)
		})
	}
}

// notReading unbinds the host's usbhid from the keyboard interface, so
// nobody polls the endpoint: writes must fail with INPUT_FAILED within
// the deadline; after rebinding, input works again.
func (s *suite) notReading(ctx context.Context, p *gadget.Phone) {
	ifaces, _ := filepath.Glob("/sys/bus/usb/drivers/usbhid/*:1.0")
	if len(ifaces) != 1 {
		s.report("input-not-reading", false, "keyboard interface bound to usbhid: %v", ifaces)
		return
	}
	id := filepath.Base(ifaces[0])
	if err := os.WriteFile("/sys/bus/usb/drivers/usbhid/unbind", []byte(id), 0o200); err != nil {
		s.report("input-not-reading", false, "unbind %s: %v", id, err)
		return
	}
	// A writer of our own on the same bound gadget (Apply is a no-op).
	b, err := gadget.Setup{Platform: gadget.Android, Identity: gadget.Identity{Serial: "kerneltest"}}.Apply(ctx, time.Second)
	if err != nil {
		s.report("input-not-reading", false, "apply: %v", err)
		return
	}
	w := gadget.NewWriter(gadget.WriterOptions{Paths: b.Paths, State: b.State, Deadline: writeDeadline})
	defer w.Close()
	var took time.Duration
	// The first report may still fit the gadget's one-report buffer.
	for i := 0; i < 3 && err == nil; i++ {
		start := time.Now()
		err = w.WriteReport(ctx, hid.KindKeyboard, hid.Keyboard(0, hid.KeyA))
		took = time.Since(start)
	}
	s.report("input-not-reading", errors.Is(err, phone.ErrInputFailed) && took >= writeDeadline && took < writeDeadline+time.Second,
		"after unbinding %s: %v after %v (deadline %v)", id, errOr(err, "no error"), took.Round(time.Millisecond), writeDeadline)
	if err := os.WriteFile("/sys/bus/usb/drivers/usbhid/bind", []byte(id), 0o200); err != nil {
		s.report("input-rebind-recovers", false, "bind %s: %v", id, err)
		return
	}
	s.check("input-rebind-recovers", ifKeyboard, gadget.DeviceAndroid, func() error { _, err := p.Type(ctx, "a"); return err }, func(evs []event) (bool, string) {
		ok := has(evs, evKey, keyA, 1) && has(evs, evKey, keyA, 0)
		return ok, fmt.Sprintf("KEY_A press+release %v", ok)
	})
}

func (s *suite) absMouse(ctx context.Context, p *gadget.Phone) {
	s.check("absmouse-ios-click", ifPointer, gadget.DeviceIOS, func() error {
		_, err := p.Touch(ctx, phone.Tap(phone.Point{X: 0.25, Y: 0.75}, 70*time.Millisecond))
		return err
	}, func(evs []event) (bool, string) {
		x, okx := last(evs, evAbs, absX)
		y, oky := last(evs, evAbs, absY)
		want := func(v int32, f float64) bool { return math.Abs(float64(v)/hid.MaxCoord-f) < 0.001 }
		ok := okx && oky && want(x, 0.25) && want(y, 0.75) && has(evs, evKey, btnLeft, 1) && has(evs, evKey, btnLeft, 0)
		return ok, fmt.Sprintf("ABS %d,%d BTN_LEFT down+up %v", x, y, has(evs, evKey, btnLeft, 1) && has(evs, evKey, btnLeft, 0))
	})
}

func (s *suite) relMouse(ctx context.Context, p *gadget.Phone) {
	s.check("relmouse-ios-relative-tap", ifPointer, gadget.DeviceIOSRelative, func() error {
		_, err := p.Touch(ctx, phone.Tap(phone.Point{X: 0.25, Y: 0.75}, 70*time.Millisecond))
		return err
	}, func(evs []event) (bool, string) {
		// Homing moves far up-left, then calibrated steps right/down.
		var neg, pos bool
		for _, e := range evs {
			if e.Type == evRel && (e.Code == relX || e.Code == relY) {
				neg = neg || e.Value < 0
				pos = pos || e.Value > 0
			}
		}
		click := has(evs, evKey, btnLeft, 1) && has(evs, evKey, btnLeft, 0)
		return neg && pos && click, fmt.Sprintf("REL homing %v, steps %v, BTN_LEFT down+up %v", neg, pos, click)
	})
}

func geomW(f *phone.Frame) int {
	if f == nil {
		return 0
	}
	return f.Geometry.Width
}

func geomH(f *phone.Frame) int {
	if f == nil {
		return 0
	}
	return f.Geometry.Height
}

func epochOf(f *phone.Frame) uint64 {
	if f == nil {
		return 0
	}
	return f.Geometry.Epoch
}

// attributes reads back what the kernel's configfs kept: power, identity
// and the optional no_out_endpoint where this kernel has it.
func (s *suite) attributes() {
	g := filepath.Join(gadget.DefaultConfigFS, "openlolo")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(g, p))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return strings.TrimSpace(string(b))
	}
	want := map[string]string{
		"configs/c.1/MaxPower":       "100",
		"configs/c.1/bmAttributes":   "0xc0",
		"strings/0x409/product":      "openlolo box",
		"strings/0x409/serialnumber": "kerneltest",
		"bcdDevice":                  "0x0101",
	}
	var bad []string
	for p, v := range want {
		if got := read(p); got != v {
			bad = append(bad, fmt.Sprintf("%s=%q (want %q)", p, got, v))
		}
	}
	noOut := "absent on this kernel"
	if _, err := os.Stat(filepath.Join(g, "functions/hid.keyboard/no_out_endpoint")); err == nil {
		noOut = read("functions/hid.keyboard/no_out_endpoint")
		if noOut != "1" {
			bad = append(bad, "no_out_endpoint="+noOut)
		}
	}
	s.report("gadget-attributes", len(bad) == 0, "MaxPower 100 mA, self-powered, identity ok; no_out_endpoint %s %v", noOut, bad)
}

// gadgetGone unbinds the gadget from its UDC under the running backend
// (as a cable pull does to the phone's view), binds it again, and expects
// the backend's writers to reopen their nodes and type again.
func (s *suite) gadgetGone(ctx context.Context, p *gadget.Phone) {
	udc := filepath.Join(gadget.DefaultConfigFS, "openlolo", "UDC")
	if err := os.WriteFile(udc, []byte("\n"), 0o644); err != nil {
		s.report("input-gadget-gone-recovers", false, "unbind: %v", err)
		return
	}
	gone := waitFor(5*time.Second, func() bool { return p.State().Code == "not_configured" })
	if _, err := p.Type(ctx, "a"); err == nil {
		s.report("input-gadget-gone-recovers", false, "typing while unbound succeeded")
		return
	}
	if err := os.WriteFile(udc, []byte("dummy_udc.0"), 0o644); err != nil {
		s.report("input-gadget-gone-recovers", false, "bind: %v", err)
		return
	}
	s.check("input-gadget-gone-recovers", ifKeyboard, gadget.DeviceAndroid, func() error {
		_, err := p.Type(ctx, "a")
		return err
	}, func(evs []event) (bool, string) {
		ok := gone && has(evs, evKey, keyA, 1) && has(evs, evKey, keyA, 0)
		return ok, fmt.Sprintf("state went not_configured %v; KEY_A press+release after rebind %v", gone, has(evs, evKey, keyA, 1))
	})
}
