package coredevice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/phone"
)

// SelfTestOptions configure SelfTest.
type SelfTestOptions struct {
	Socket   string  // usbmuxd's socket; "" means the box's own usbmux over USB
	USB      usb.Bus // where iPhones are found without usbmuxd (zero: the system's)
	StateDir string  // pair records go to StateDir/coredevice (0700; files 0600)
	OutDir   string  // where the screenshot is saved ("" means StateDir)
	Version  string  // the program's version, for the report
	// Text is what send_text puts on the clipboard ("" means "héllo ✓ 日本").
	Text string
	// LaunchBundle is the app to launch ("" means Notes).
	LaunchBundle string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Mount, if set, mounts the disk image when the phone has none (as
	// serve does: MountFrom).
	Mount func(ctx context.Context, c *Conn) error
}

// SelfTest checks an attached iPhone step by step for people with
// hardware and writes a report to w that can be pasted into an issue. It
// returns how many steps failed.
func SelfTest(ctx context.Context, w io.Writer, o SelfTestOptions) int {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	text := o.Text
	if text == "" {
		text = "héllo ✓ 日本"
	}
	bundle := o.LaunchBundle
	if bundle == "" {
		bundle = "com.apple.mobilenotes"
	}
	out := o.OutDir
	if out == "" {
		out = o.StateDir
	}
	r := &phone.SelfTestReport{W: w, Now: now, Width: 16}
	step := r.Done
	fmt.Fprintf(w, "openlolo selftest --phone coredevice (openlolo %s, %s/%s, %s)\n", o.Version, runtime.GOOS, runtime.GOARCH, now().UTC().Format(time.RFC3339))
	defer r.Result()

	mctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	mux := startMux(mctx, &wg, o.Socket, o.USB, o.StateDir, nil)
	name, wait := "usbmuxd", time.Duration(0)
	if o.Socket == "" {
		// The box's own usbmux finds the phone at its first look at
		// the ports; give it a few.
		name, wait = "usbmux", attachWait
	}
	t := now()
	devs, err := usbDevices(ctx, mux, wait)
	var dev usbmux.Device
	if err == nil {
		if len(devs) == 0 {
			err = errors.New("no iPhone on USB: plug it in with a data cable and unlock it")
		} else {
			dev = devs[0]
		}
	}
	if !step(name, t, err, fmt.Sprintf("%d device(s); using %s", len(devs), dev.UDID)) {
		return r.Failed
	}

	dir := filepath.Join(o.StateDir, "coredevice")
	d := &Dialer{
		Mux: mux, Store: lockdown.Store{Dir: dir}, Now: now,
		Trust: func(err error) {
			if errors.Is(err, lockdown.ErrPasscode) {
				fmt.Fprintf(w, "...     pair             unlock the phone\n")
				return
			}
			fmt.Fprintf(w, "...     pair             the phone asks Trust This Computer?: tap Trust and enter the passcode\n")
		},
	}
	t = now()
	c, err := d.Dial(ctx, dev)
	if !step("tunnel", t, err, func() string {
		if c == nil {
			return ""
		}
		return fmt.Sprintf("pair record in %s; host %v, device %v, RSD port %d, %d services", dir, c.Params.Address, c.Params.ServerAddress, c.Params.RSDPort, len(c.RSD.Services))
	}()) {
		return r.Failed
	}
	defer c.Close()
	fmt.Fprintf(w, "phone   %s, iOS %s (%s), %q\n", c.Info.ProductType, c.Info.ProductVersion, c.Info.BuildVersion, c.Info.DeviceName)

	t = now()
	dm, err := c.DeveloperMode(ctx)
	if err == nil && !dm {
		err = errors.New("off: turn it on in Settings > Privacy & Security > Developer Mode (the phone restarts and asks to confirm); the disk image, and so screenshots and apps, need it")
		if rerr := d.RevealDeveloperMode(ctx, c.dev); rerr == nil {
			err = fmt.Errorf("%w; the box has asked the phone to show the switch", err)
		}
	}
	step("developer mode", t, err, "on")

	t = now()
	mounted, err := c.DiskImageMounted(ctx)
	detail := "personalized developer disk image mounted"
	if err == nil && !mounted {
		err = errors.New("not mounted: the developer services (screenshots, apps, clipboard) come with it; mounting needs Apple's signing server after every restart of the phone, so the internet")
		if o.Mount != nil {
			if merr := o.Mount(ctx, c); merr != nil {
				err = fmt.Errorf("%w; mounting it failed: %w", err, merr)
			} else if err = c.Rediscover(ctx); err == nil {
				detail = "personalized developer disk image mounted now (signed for this boot)"
			}
		}
	}
	step("disk image", t, err, detail)

	t = now()
	png, err := c.Screenshot(ctx)
	detail = ""
	if err == nil {
		path := filepath.Join(out, "selftest-screenshot.png")
		if err = os.WriteFile(path, png, 0o600); err == nil {
			detail = fmt.Sprintf("%d bytes PNG saved to %s", len(png), path)
		}
	}
	step("screenshot", t, err, detail)

	t = now()
	apps, err := c.Apps(ctx)
	var names []string
	for i, a := range apps {
		if i == 5 {
			names = append(names, "…")
			break
		}
		names = append(names, a.BundleID)
	}
	step("apps", t, err, fmt.Sprintf("%d apps: %s", len(apps), strings.Join(names, ", ")))

	t = now()
	pid, err := c.Launch(ctx, bundle, false)
	step("launch", t, err, fmt.Sprintf("%s, pid %d", bundle, pid))

	t = now()
	err = c.SetClipboard(ctx, text)
	step("set clipboard", t, err, fmt.Sprintf("%q set and read back", text))

	t = now()
	got, count, err := c.Clipboard(ctx)
	step("clipboard", t, err, fmt.Sprintf("%q (change count %d)", got, count))

	if err := supported(c); err != nil {
		step("paste, tap", now(), phone.ErrSkip, err.Error())
		return r.Failed
	}
	// Input: the media stream starts with the first of these (seconds on
	// a phone); Notes is in front, so the paste shows there.
	in := newInput(c, Options{InputIdle: -1}.inputTimings(), now, slog.New(slog.DiscardHandler))
	defer in.close()
	t = now()
	_, err = in.Key(ctx, phone.Key{Name: "v", Mods: phone.Cmd})
	step("paste", t, err, fmt.Sprintf("cmd-V sent: Notes should show %q", text))
	t = now()
	_, err = in.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.5}, phone.TapHold))
	step("tap", t, err, "a tap at the middle of the screen")
	if buttonsSupported(c) {
		t = now()
		_, err = in.Press(ctx, phone.Home)
		step("home button", t, err, "the phone should go to its home screen")
	}
	return r.Failed
}
