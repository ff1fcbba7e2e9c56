package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/gpio"
)

// selftest checks a phone attached to this machine step by step and
// prints a report to paste into an issue.
func selftest(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "selftest", "--phone coredevice --state DIR | --phone android [--adb HOST:PORT] [--state DIR] | --phone gadget [--platform P] [flags]")
	phone := fs.String("phone", "", "backend to test: coredevice (an iPhone on a USB port), android (an Android phone with USB debugging on a USB host port, or --adb) or gadget (the box as the phone's USB keyboard and touch screen, with HDMI capture)")
	adbAddr := fs.String("adb", "", "android: the phone's ADB over TCP, HOST:PORT (default: the first phone on a USB host port)")
	state := fs.String("state", "", "state directory: coredevice keeps pair records in DIR/coredevice and saves the screenshot to DIR; android keeps the box's ADB key in DIR/android and saves the screenshot to DIR; gadget saves the captured frame to DIR (default: the current directory)")
	socket := fs.String("usbmuxd", "", coredevice.SocketHelp)
	platform := fs.String("platform", "ios", "gadget: the phone's platform: ios (absolute pointer), ios-relative or android (touchscreen)")
	udc := fs.String("udc", "", "gadget: USB device controller (default: the first)")
	video := fs.String("video", "", "gadget: capture device /dev/videoN (default: the first that streams; none: input only)")
	configure := fs.Duration("configure-wait", 30*time.Second, "gadget: how long to wait for the phone to set the gadget up")
	button := fs.Duration("button-wait", 15*time.Second, "gadget: how long to wait for a press of the box's button")
	g := addGPIOFlags(fs)
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long (pairing waits for the owner to tap Trust)")
	if err := parse(fs, args); err != nil {
		return err
	}
	var failed int
	switch *phone {
	case "coredevice":
		if *state == "" {
			return usagef("--state DIR is required: pair records are kept there")
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		failed = coredevice.SelfTest(ctx, c.Stdout, coredevice.SelfTestOptions{Socket: *socket, StateDir: *state, Version: version,
			Mount: coredevice.MountFrom(filepath.Join(*state, "coredevice", "ddi"), ddi.TSS{})})
	case "android":
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		o := android.SelfTestOptions{Options: android.Options{StateDir: *state}, OutDir: *state, Version: version}
		if *adbAddr != "" {
			o.Dial, o.Where = android.TCP(*adbAddr), "at "+*adbAddr
		}
		failed = android.SelfTest(ctx, c.Stdout, o)
	case "gadget":
		if err := g.check(fs); err != nil {
			return err
		}
		switch *platform {
		case gadget.Android, gadget.IOS, gadget.IOSRelative:
		default:
			return usagef("--platform %q: want ios, ios-relative or android", *platform)
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		o := gadget.SelfTestOptions{
			Options: gadget.Options{Platform: *platform, UDC: *udc, Video: *video, Logger: log},
			OutDir:  *state, Version: version, ConfigureWait: *configure, ButtonWait: *button,
		}
		if !*g.off {
			gp, err := gpio.Open(gpio.Options{Button: fmt.Sprintf("GPIO%d", *g.button), LED: fmt.Sprintf("GPIO%d", *g.led), Logger: log})
			if err != nil {
				return fmt.Errorf("--gpio-button/--gpio-led: %w", err)
			}
			defer gp.Close()
			o.Panel = selftestPanel{gp}
		}
		failed = gadget.SelfTest(ctx, c.Stdout, o)
	default:
		return usagef("--phone coredevice, android or gadget are the backends this self-test knows (got %q)", *phone)
	}
	if failed > 0 {
		return &exitError{code: 1, err: quietError{fmt.Errorf("%d steps failed", failed)}}
	}
	return nil
}

// selftestPanel is hw/gpio's LED and button as the gadget self-test
// drives them.
type selftestPanel struct{ gp *gpio.Panel }

// Blink blinks the LED fast for d, then turns it off.
func (p selftestPanel) Blink(ctx context.Context, d time.Duration) bool {
	if !p.gp.HasLED() {
		return false
	}
	p.gp.SetLED(gpio.FastBlink)
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	p.gp.SetLED(gpio.Off)
	return true
}

// WaitPress waits for a short press.
func (p selftestPanel) WaitPress(ctx context.Context) (bool, error) {
	if !p.gp.HasButton() {
		return false, nil
	}
	for {
		select {
		case ev := <-p.gp.Events():
			if ev.Kind == gpio.Press {
				return true, nil
			}
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
}
