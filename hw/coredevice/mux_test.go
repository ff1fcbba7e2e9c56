package coredevice_test

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
	"github.com/openlolo/openlolo/phone"
)

// iPhoneTree is a sysfs tree with an iPhone showing its usbmux
// interface (its device node does not exist: claiming it fails).
func iPhoneTree(t *testing.T) usb.Bus {
	t.Helper()
	root := t.TempDir()
	err := usbtest.WriteDevice(root, usb.DeviceInfo{Name: "1-1", Bus: 1, Address: 2, Serial: "00008110-000A1B2C3D4E5F60",
		DeviceDescriptor: usb.DeviceDescriptor{USB: 0x200, Vendor: 0x05ac, Product: 0x12a8, NumConfigs: 1}, ActiveConfig: 1,
		Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{{Class: 0xff, SubClass: 0xfe, Protocol: 2, Endpoints: usbtest.Bulk}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return usb.Bus{SysRoot: root, DevRoot: t.TempDir()}
}

// TestBackendOwnUSB: without --usbmuxd the box looks at its own USB
// ports; with no iPhone there it says none is attached (not that a
// daemon is missing).
func TestBackendOwnUSB(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := coredevice.Open(t.Context(), coredevice.Options{USB: usb.Bus{SysRoot: t.TempDir()}, StateDir: t.TempDir(), Retry: 10 * time.Millisecond})
		defer b.Close()
		time.Sleep(time.Second)
		synctest.Wait()
		if st := b.State(); st.Code != "detached" || !strings.Contains(st.Reason, "No iPhone is attached") {
			t.Errorf("state %+v; want detached, no iPhone attached", st)
		}
	})
}

// TestAutoOwnUSB: --phone auto without --usbmuxd takes coredevice when
// an iPhone is on a USB port, and passes when none is.
func TestAutoOwnUSB(t *testing.T) {
	auto := func(bus usb.Bus) (phone.Phone, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		o := coredevice.Registration(coredevice.Options{USB: bus}).Flags(fs)
		return o.Auto(t.Context(), phone.Env{StateDir: t.TempDir()})
	}
	if _, err := auto(usb.Bus{SysRoot: t.TempDir()}); !errors.Is(err, phone.ErrUnavailable) || !strings.Contains(err.Error(), "no iPhone on a USB port") {
		t.Errorf("auto with no iPhone = %v; want unavailable", err)
	}
	p, err := auto(iPhoneTree(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if got := p.Info().Backend; got != "coredevice" {
		t.Errorf("auto with an iPhone: backend %q", got)
	}
}

// TestSelfTestOwnUSB: selftest without --usbmuxd waits for the box's own
// usbmux to find an iPhone, and says when none comes.
func TestSelfTestOwnUSB(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		start := time.Now()
		failed := coredevice.SelfTest(t.Context(), &out, coredevice.SelfTestOptions{USB: iPhoneTree(t), StateDir: t.TempDir()})
		if failed != 1 || !strings.Contains(out.String(), "FAIL    usbmux           no iPhone on USB") {
			t.Errorf("failed %d; report:\n%s", failed, out.String())
		}
		if waited := time.Since(start); waited < 5*time.Second {
			t.Errorf("gave up after %v; want a few seconds of looking", waited)
		}
	})
}
