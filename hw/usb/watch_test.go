package usb_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
)

func TestWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := tree(t, phone("1-1", 3))
		ch := usb.Bus{SysRoot: root}.Watch(t.Context(), 0, nil)
		next := func() (usb.Event, time.Duration) {
			start := time.Now()
			return <-ch, time.Since(start)
		}
		if e, _ := next(); !e.Added || e.Device.Path != "/dev/bus/usb/001/003" {
			t.Fatalf("first event %+v; want the phone present at start", e)
		}
		// Unplugged and plugged again at a new address within one tick.
		usbtest.RemoveDevice(root, "1-1")
		usbtest.WriteDevice(root, phone("1-2", 4))
		e, waited := next()
		if !e.Added || e.Device.Path != "/dev/bus/usb/001/004" || waited != usb.DefaultWatchInterval {
			t.Errorf("event %+v after %v; want the arrival at 001/004 after one interval", e, waited)
		}
		if e, _ := next(); e.Added || e.Device.Path != "/dev/bus/usb/001/003" {
			t.Errorf("event %+v; want 001/003 leaving", e)
		}
		// Broken listings are retried, not fatal.
		os.WriteFile(filepath.Join(root, "1-2", "busnum"), []byte("x"), 0o644)
		time.Sleep(3 * usb.DefaultWatchInterval)
		os.WriteFile(filepath.Join(root, "1-2", "busnum"), []byte("1"), 0o644)
		usbtest.RemoveDevice(root, "1-2")
		if e, _ := next(); e.Added || e.Device.Path != "/dev/bus/usb/001/004" {
			t.Errorf("event %+v; want 001/004 leaving", e)
		}
	})
}

func TestWatchEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := tree(t, phone("1-1", 3))
		ctx, cancel := context.WithCancel(t.Context())
		ch := usb.Bus{SysRoot: root}.Watch(ctx, time.Second, nil)
		synctest.Wait() // blocked sending the first event nobody reads
		cancel()
		synctest.Wait()
		select {
		case _, ok := <-ch:
			if ok {
				t.Error("an event after the context ended")
			}
		default:
			t.Error("the channel is still open after the context ended")
		}
	})
}
