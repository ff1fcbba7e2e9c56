package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/phone"
)

// fakeScreen is a raw screencap of a 540×1200 phone (2.6 MB: several
// full ADB messages, each followed by a zero-length packet, in well
// under a second; a 1080×2400 one took 3 s of the test): width, height,
// format 1 (RGBA_8888), colour space 1 (sRGB), then the pixels.
func fakeScreen() []byte {
	const w, h = 540, 1200
	b := make([]byte, 16, 16+w*h*4)
	for i, v := range []uint32{w, h, 1, 1} {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	for i := range w * h {
		b = append(b, byte(i), byte(i>>8), byte(i>>16), 0xff)
	}
	return b
}

// adbUSBChecks runs the box's USB host layer against a fake Android
// phone on the same kernel (FunctionFS behind dummy_hcd): it sees the
// phone arrive, asks AOA's protocol version, times out a bulk read,
// authenticates with hw/adb, runs a shell command and a raw screencap,
// and sees the phone leave.
func (s *suite) adbUSBChecks(ctx context.Context) {
	screen := fakeScreen()
	dev := &adbtest.Device{Serial: fakeSerial, Model: "Fake_Pixel", Allow: func(string) bool { return true },
		Handler: func(ctx context.Context, line string, stdout, stderr io.Writer) int {
			switch line {
			case "screencap":
				stdout.Write(screen)
			case "getprop ro.serialno":
				fmt.Fprintln(stdout, fakeSerial)
			default:
				return 127
			}
			return 0
		}}
	s.claimDetaches(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch := usb.Bus{}.Watch(ctx, 20*time.Millisecond, nil)
	start := time.Now()
	fake, err := startFakeAndroid(ctx, dev)
	if !s.report("usb-fake-android", err == nil, "%s", errOr(err, "FunctionFS gadget ff/42/01 bound to dummy_udc.0")) {
		return
	}
	defer fake.close()

	// Hot-plug: the phone arrives, with its ADB interface parsed from
	// sysfs's descriptors.
	info, err := waitPhone(ctx, watch, true, 10*time.Second)
	var in, out usb.Endpoint
	if err == nil {
		_, _, in, out, err = adbusb.Endpoints(info)
	}
	if !s.report("usb-watch-arrival", err == nil, "%s after %v: in %#02x out %#02x (%d bytes)",
		errOr(err, info.String()), time.Since(start).Round(time.Millisecond), in.Address, out.Address, out.MaxPacket) {
		return
	}

	// A vendor control request to the device reaches the phone's ep0.
	d, err := usb.Open(info.Path)
	if !s.report("usb-open", err == nil, "%s", errOr(err, info.Path)) {
		return
	}
	version, err := aoa.Protocol(ctx, d) // hw/aoa's request over hw/usb's Control
	s.report("usb-control-get-protocol", err == nil && version == aoa.HIDProtocol, "AOA version %d %s", version, errOr(err, ""))
	_, err = d.Control(ctx, aoa.RequestIn, 99, 0, 0, make([]byte, 2))
	s.report("usb-control-stall", errors.Is(err, usb.ErrStall), "unknown request: %v", err)
	n, err := d.Control(ctx, aoa.RequestOut, aoa.SendString, 0, 0, []byte("openlolo\x00"))
	want := `40/52 "openlolo\x00"`
	var seen []string
	waitFor(time.Second, func() bool { // the fake records after it acknowledged
		seen = fake.seen()
		return slices.Contains(seen, want)
	})
	s.report("usb-control-out", err == nil && n == 9 && slices.Contains(seen, want),
		"%d bytes sent %s; ep0 saw %q (want %s)", n, errOr(err, "ok"), seen, want)

	// A bulk read the phone never answers stops at its deadline: the
	// URB is discarded, and the interface still works afterwards.
	err = d.Claim(0)
	if err == nil {
		tctx, tcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		t0 := time.Now()
		_, err = d.Bulk(tctx, in.Address, make([]byte, 512))
		took := time.Since(t0)
		tcancel()
		ok := errors.Is(err, context.DeadlineExceeded) && took < time.Second
		s.report("usb-bulk-deadline", ok, "%v after %v (deadline 200ms)", err, took.Round(time.Millisecond))
	} else {
		s.report("usb-bulk-deadline", false, "claim: %v", err)
	}
	d.Close()

	// ADB over the real usbdevfs: authenticate, shell, raw screencap.
	key, err := adb.LoadOrCreateKey("/etc/adbkey") // made by the host: quicker than here
	if err != nil {
		s.report("adb-usb-connect", false, "key: %v", err)
		return
	}
	t0 := time.Now()
	conn, err := adbusb.Dial(ctx, info, adb.ClientConfig{Key: key})
	if !s.report("adb-usb-connect", err == nil && len(dev.Keys()) == 1, "%s in %v", errOr(err, "authenticated, key allowed"), time.Since(t0).Round(time.Millisecond)) {
		return
	}
	defer conn.Close()
	res, err := conn.Shell(ctx, "getprop ro.serialno")
	s.report("adb-usb-shell", err == nil && string(res.Stdout) == fakeSerial+"\n" && res.ExitCode == 0,
		"%q exit %d %s", res.Stdout, res.ExitCode, errOr(err, ""))
	t0 = time.Now()
	got, err := conn.Exec(ctx, "screencap")
	took := time.Since(t0)
	s.report("adb-usb-screencap", err == nil && bytes.Equal(got, screen),
		"%d bytes (want %d) in %v, %.1f MB/s %s", len(got), len(screen), took.Round(time.Millisecond),
		float64(len(got))/took.Seconds()/1e6, errOr(err, ""))

	// AOA HID on the same cable while ADB stays connected: the Android
	// backend's USB input registers the box's HID devices on the phone's
	// accessory function and taps; the phone decodes the touch reports,
	// and ADB still answers afterwards.
	s.aoaTap(ctx, fake, conn)

	// Unplugged: the connection ends with ErrDeviceGone and the watch
	// reports the departure.
	err = fake.unplug()
	var left usb.DeviceInfo
	if err == nil {
		left, err = waitPhone(ctx, watch, false, 10*time.Second)
	}
	select {
	case <-conn.Done():
	case <-time.After(5 * time.Second):
	}
	s.report("usb-device-gone", err == nil && left.Path == info.Path && errors.Is(conn.Err(), usb.ErrDeviceGone),
		"watch %s; connection: %v", errOr(err, "saw "+left.Path+" leave"), conn.Err())
}

// waitPhone returns the next fake phone's arrival (added) or departure.
func waitPhone(ctx context.Context, watch <-chan usb.Event, added bool, limit time.Duration) (usb.DeviceInfo, error) {
	timeout := time.After(limit)
	for {
		select {
		case e, ok := <-watch:
			if !ok {
				return usb.DeviceInfo{}, ctx.Err()
			}
			if e.Added == added && e.Device.Vendor == fakeVendor && e.Device.Product == fakeProduct {
				return e.Device, nil
			}
		case <-timeout:
			return usb.DeviceInfo{}, fmt.Errorf("no %04x:%04x event (added=%v) within %v", fakeVendor, fakeProduct, added, limit)
		}
	}
}

// claimDetaches claims the keyboard interface of the box's own gadget,
// still bound to dummy_udc and held by the host's usbhid: Claim detaches
// the kernel driver, and sysfs then shows usbfs holding the interface.
func (s *suite) claimDetaches(ctx context.Context) {
	devs, err := usb.Bus{}.Devices()
	var box usb.DeviceInfo
	for _, d := range devs {
		if d.Vendor == 0x1d6b && d.Product == 0x0104 {
			box = d
		}
	}
	if err != nil || box.Path == "" {
		s.report("usb-claim-detaches-driver", false, "the box's gadget is not on the bus: %v", err)
		return
	}
	link := fmt.Sprintf("/sys/bus/usb/devices/%s:%d.%d/driver", box.Name, box.ActiveConfig, ifKeyboard)
	driver := func() string {
		target, err := os.Readlink(link)
		if err != nil {
			return "none"
		}
		return filepath.Base(target)
	}
	before := driver()
	d, err := usb.Open(box.Path)
	if err == nil {
		err = d.Claim(ifKeyboard)
		defer d.Close()
	}
	after := driver()
	s.report("usb-claim-detaches-driver", err == nil && before == "usbhid" && after == "usbfs",
		"%s interface %d: driver %s, then %s after Claim %s", box.Path, ifKeyboard, before, after, errOr(err, "ok"))
}

// aoaTap taps through android.USBInput (AOA over hw/usb's control
// transfers) and checks the position the fake phone decoded.
func (s *suite) aoaTap(ctx context.Context, fake *fakeAndroid, conn *adb.Conn) {
	in := &android.USBInput{}
	defer in.Close()
	t0 := time.Now()
	_, err := in.Touch(ctx, phone.Tap(phone.Point{X: 0.25, Y: 0.75}, phone.TapHold))
	took := time.Since(t0)
	var x, y float64
	touches, terr := fake.aoa.Touches(aoa.ID(hid.KindTouch))
	down := slices.IndexFunc(touches, func(t aoatest.Touch) bool { return t.Contact })
	if down >= 0 {
		x, y = float64(touches[down].X)/hid.MaxCoord, float64(touches[down].Y)/hid.MaxCoord
	}
	lifted := len(touches) > 0 && !touches[len(touches)-1].Contact
	ok := err == nil && terr == nil && down >= 0 && lifted && math.Abs(x-0.25) < 0.01 && math.Abs(y-0.75) < 0.01
	s.report("aoa-usb-tap", ok, "tap over AOA HID (open and tap) in %v: the phone decoded contact at %.4f,%.4f, lifted %v %s %v",
		took.Round(time.Millisecond), x, y, lifted, errOr(err, ""), errOr(terr, ""))
	res, err := conn.Shell(ctx, "getprop ro.serialno")
	s.report("aoa-usb-adb-alive", err == nil && res.ExitCode == 0, "ADB after AOA: %q %s", res.Stdout, errOr(err, "ok"))
}
