package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
)

// usbmuxdBin is Debian's usbmuxd with its libraries, copied in by
// kerneltest.
const usbmuxdBin = "/usr/sbin/usbmuxd"

// usbmuxdCheck runs Debian's usbmuxd against the fake iPhone, plugged in
// before it starts (no udevd: libusb sees what is there at start), and
// reaches the fake's lockdownd through usbmuxd's socket with the box's
// usbmux client: the real daemon checks our fake's usbmux.
func (s *suite) usbmuxdCheck(ctx context.Context) {
	for _, d := range []string{"/var/run", "/var/lib/lockdown"} {
		os.MkdirAll(d, 0o755)
	}
	var log bytes.Buffer
	cmd := exec.Command(usbmuxdBin, "-f", "-v")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		s.report("usbmuxd-fake-iphone", false, "start %s: %v", usbmuxdBin, err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	}()
	c := &usbmux.Client{Socket: usbmuxdSocket}
	var devs []usbmux.Device
	var err error
	waitFor(20*time.Second, func() bool {
		devs, err = c.ListDevices(ctx)
		return err == nil && len(devs) > 0
	})
	var typ string
	if err == nil && len(devs) > 0 {
		var conn interface{ Close() error }
		nc, cerr := c.Connect(ctx, devs[0].ID, lockdown.Port)
		if err = cerr; err == nil {
			conn = nc
			lc := lockdown.NewClient(nc, "kerneltest")
			typ, err = lc.QueryType(ctx)
			conn.Close()
		}
	}
	ok := err == nil && len(devs) == 1 && devs[0].UDID == iPhoneUDID && typ == "com.apple.mobile.lockdown"
	s.report("usbmuxd-fake-iphone", ok, "Debian's usbmuxd lists %+v; lockdownd through it: %q %s; its log: %s", devs, typ, errOr(err, ""),
		strings.ReplaceAll(strings.TrimSpace(tail(log.String(), 800)), "\n", " | "))
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
