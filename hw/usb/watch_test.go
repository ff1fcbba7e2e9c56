package usb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

func TestWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		fakeTree(t, root, map[string]map[string]string{"1-1": phoneAttrs("3")})
		ch := Bus{SysRoot: root}.Watch(t.Context(), 0, nil)
		next := func() (Event, time.Duration) {
			start := time.Now()
			return <-ch, time.Since(start)
		}
		if e, _ := next(); !e.Added || e.Device.Path != "/dev/bus/usb/001/003" {
			t.Fatalf("first event %+v; want the phone present at start", e)
		}
		// Unplugged and plugged again at a new address within one tick.
		os.RemoveAll(filepath.Join(root, "1-1"))
		fakeTree(t, root, map[string]map[string]string{"1-2": phoneAttrs("4")})
		e, waited := next()
		if !e.Added || e.Device.Path != "/dev/bus/usb/001/004" || waited != DefaultWatchInterval {
			t.Errorf("event %+v after %v; want the arrival at 001/004 after one interval", e, waited)
		}
		if e, _ := next(); e.Added || e.Device.Path != "/dev/bus/usb/001/003" {
			t.Errorf("event %+v; want 001/003 leaving", e)
		}
		// Broken listings are retried, not fatal.
		os.WriteFile(filepath.Join(root, "1-2", "busnum"), []byte("x"), 0o644)
		time.Sleep(3 * DefaultWatchInterval)
		os.WriteFile(filepath.Join(root, "1-2", "busnum"), []byte("1"), 0o644)
		os.RemoveAll(filepath.Join(root, "1-2"))
		if e, _ := next(); e.Added || e.Device.Path != "/dev/bus/usb/001/004" {
			t.Errorf("event %+v; want 001/004 leaving", e)
		}
	})
}

func TestWatchEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		fakeTree(t, root, map[string]map[string]string{"1-1": phoneAttrs("3")})
		ctx, cancel := context.WithCancel(t.Context())
		ch := Bus{SysRoot: root}.Watch(ctx, time.Second, nil)
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
