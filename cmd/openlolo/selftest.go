package main

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
)

// selftest checks a phone attached to this machine step by step and
// prints a report to paste into an issue.
func selftest(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "selftest", "--phone coredevice --state DIR [flags]")
	phone := fs.String("phone", "", "backend to test: coredevice (an iPhone on a USB port)")
	state := fs.String("state", "", "state directory: pair records go to DIR/coredevice, the screenshot to DIR")
	socket := fs.String("usbmuxd", "", "usbmuxd's socket (default /var/run/usbmuxd)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long (pairing waits for the owner to tap Trust)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *phone != "coredevice":
		return usagef("--phone coredevice is the backend this self-test knows (got %q)", *phone)
	case *state == "":
		return usagef("--state DIR is required: pair records are kept there")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if n := coredevice.SelfTest(ctx, c.Stdout, coredevice.SelfTestOptions{Socket: *socket, StateDir: *state, Version: version}); n > 0 {
		return &exitError{code: 1, err: quietError{fmt.Errorf("%d steps failed", n)}}
	}
	return nil
}
