package muxusb_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb/muxusbtest"
	"github.com/openlolo/openlolo/hw/usb"
	"github.com/openlolo/openlolo/hw/usb/usbtest"
)

var (
	ptpInterface    = usb.Interface{Number: 0, Class: 6, SubClass: 1, Protocol: 1, Endpoints: usbtest.Bulk}
	usbmuxInterface = usb.Interface{Number: 1, Class: 0xff, SubClass: 0xfe, Protocol: 2, Endpoints: usbtest.Bulk}
)

// iPhone is an iPhone as it first shows itself: configuration 1 active
// (PTP only), the usbmux interface in configuration 4.
func iPhone(name string, address int, serial string) usb.DeviceInfo {
	return usb.DeviceInfo{Name: name, Bus: 1, Address: address, Path: fmt.Sprintf("/dev/bus/usb/001/%03d", address),
		DeviceDescriptor: usb.DeviceDescriptor{USB: 0x200, MaxPacket0: 64, Vendor: muxusb.AppleVendor, Product: 0x12a8, NumConfigs: 2},
		Manufacturer:     "Apple Inc.", ProductName: "iPhone", Serial: serial, Speed: "480", ActiveConfig: 1,
		Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{ptpInterface}}, {Value: 4, Interfaces: []usb.Interface{ptpInterface, usbmuxInterface}}}}
}

func writeTree(t *testing.T, root string, devs ...usb.DeviceInfo) {
	t.Helper()
	for _, d := range devs {
		if err := usbtest.WriteDevice(root, d); err != nil {
			t.Fatal(err)
		}
	}
}

// echo answers a stream by sending back what it reads.
func echo(c net.Conn) {
	defer c.Close()
	io.Copy(c, c)
}

// watch runs h.WatchUSB on the device tree at root with claim until the
// test calls the stop it returns, which waits for the watch to end.
func watch(t *testing.T, h *muxusb.Host, root string, claim func(usb.DeviceInfo) (muxusb.Pipe, int, error)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.WatchUSB(ctx, muxusb.USB{Bus: usb.Bus{SysRoot: root}, Claim: claim})
	}()
	return func() {
		cancel()
		<-done
	}
}

// TestWatchUSB: an iPhone plugged in is attached with its serial as
// UDID and reachable; other devices are left alone; one whose interface
// cannot be claimed is skipped; unplugging drops it and ends its streams.
func TestWatchUSB(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		notApple := iPhone("1-2", 4, "X")
		notApple.Vendor = 0x18d1
		keyboard := iPhone("1-3", 5, "K")
		keyboard.Configs = keyboard.Configs[:1]
		writeTree(t, root, iPhone("1-1", 3, udid), notApple, keyboard, iPhone("1-4", 6, "BROKEN"), iPhone("1-5", 7, "SILENT"))

		var mu sync.Mutex
		var claimed []string
		claim := func(d usb.DeviceInfo) (muxusb.Pipe, int, error) {
			mu.Lock()
			claimed = append(claimed, d.Name)
			mu.Unlock()
			switch d.Serial {
			case "BROKEN":
				return nil, 0, errors.New("busy")
			case "SILENT": // gone before the version exchange
				link := muxusbtest.NewLink(512)
				link.Unplug()
				return link.Host(), 512, nil
			}
			phone := &muxusbtest.Phone{Connect: func(port uint16) func(net.Conn) {
				if port == lockdown.Port {
					return echo
				}
				return nil
			}}
			return phone.Start(t).Host(), 512, nil
		}
		h := &muxusb.Host{Records: lockdown.Store{Dir: t.TempDir()}}
		stop := watch(t, h, root, claim)
		synctest.Wait()

		devs, _ := h.ListDevices(t.Context())
		want := []usbmux.Device{{ID: 1, UDID: udid, ConnectionType: "USB", ProductID: 0x12a8, LocationID: 1<<16 | 3}}
		if !slices.Equal(devs, want) {
			t.Fatalf("devices %+v; want %+v", devs, want)
		}
		mu.Lock()
		if got := strings.Join(claimed, " "); got != "1-1 1-4 1-5" {
			t.Errorf("claimed %s; want only the Apple devices with a usbmux interface (1-1 1-4 1-5)", got)
		}
		mu.Unlock()

		c, err := h.Connect(t.Context(), 1, lockdown.Port)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("hello"))
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hello" {
			t.Fatalf("echo = %q, %v", buf, err)
		}

		usbtest.RemoveDevice(root, "1-1")
		time.Sleep(usb.DefaultWatchInterval)
		synctest.Wait()
		if devs, _ := h.ListDevices(t.Context()); len(devs) != 0 {
			t.Errorf("devices %+v after unplugging; want none", devs)
		}
		if _, err := c.Read(buf); err == nil {
			t.Error("a stream read after unplugging succeeded")
		}
		if _, err := h.Connect(t.Context(), 1, lockdown.Port); err == nil {
			t.Error("connect to an unplugged device succeeded")
		}
		stop()
	})
}

// TestWatchUSBEndsSessions: when the watch ends, the sessions it opened
// close.
func TestWatchUSBEndsSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, iPhone("1-1", 3, udid))
		link := (&muxusbtest.Phone{}).Start(t)
		h := &muxusb.Host{Records: lockdown.Store{Dir: t.TempDir()}}
		stop := watch(t, h, root, func(usb.DeviceInfo) (muxusb.Pipe, int, error) { return link.Host(), 512, nil })
		synctest.Wait()
		if devs, _ := h.ListDevices(t.Context()); len(devs) != 1 {
			t.Fatalf("devices %+v; want the iPhone", devs)
		}
		stop()
		synctest.Wait()
		if devs, _ := h.ListDevices(t.Context()); len(devs) != 0 {
			t.Errorf("devices %+v after the watch ended; want none", devs)
		}
	})
}

func TestClaimErrors(t *testing.T) {
	root := t.TempDir()
	noBulk := iPhone("1-2", 4, "B")
	noBulk.Configs[1].Interfaces = []usb.Interface{{Number: 1, Class: 0xff, SubClass: 0xfe, Protocol: 2}}
	notApple := iPhone("1-3", 5, "X")
	notApple.Vendor = 0x18d1
	missing := iPhone("1-1", 3, udid)
	missing.Path = filepath.Join(root, "none")
	for _, tc := range []struct {
		dev  usb.DeviceInfo
		want string
	}{
		{notApple, "shows no usbmux interface"},
		{noBulk, "has no bulk IN and OUT endpoints"},
		{missing, "none"},
	} {
		if _, _, err := muxusb.Claim(tc.dev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Claim(%s) = %v; want an error saying %q", tc.dev, err, tc.want)
		}
	}
}

func TestDevices(t *testing.T) {
	root := t.TempDir()
	notApple := iPhone("1-2", 4, "X")
	notApple.Vendor = 0x18d1
	writeTree(t, root, iPhone("1-1", 3, udid), notApple)
	devs, err := muxusb.Devices(usb.Bus{SysRoot: root})
	if err != nil || len(devs) != 1 || devs[0].Serial != udid {
		t.Errorf("Devices = %v, %v; want the iPhone only", devs, err)
	}
}

// TestWatchUSBRetries: a device whose interface cannot be claimed yet is
// tried again after 2, 4 and 8 s while it stays plugged in, and attached
// once it answers; one that never answers is left after four tries; one
// unplugged while waiting is not tried again.
func TestWatchUSBRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, iPhone("1-1", 3, "LATE"), iPhone("1-2", 4, "NEVER"), iPhone("1-3", 5, "GONE"))
		var mu sync.Mutex
		tries := map[string][]time.Duration{}
		start := time.Now()
		claim := func(d usb.DeviceInfo) (muxusb.Pipe, int, error) {
			mu.Lock()
			defer mu.Unlock()
			tries[d.Serial] = append(tries[d.Serial], time.Since(start))
			if d.Serial == "LATE" && len(tries[d.Serial]) == 3 {
				return (&muxusbtest.Phone{}).Start(t).Host(), 512, nil
			}
			return nil, 0, errors.New("busy")
		}
		h := &muxusb.Host{Records: lockdown.Store{Dir: t.TempDir()}}
		stop := watch(t, h, root, claim)
		synctest.Wait()
		usbtest.RemoveDevice(root, "1-3") // unplugged before its first retry
		time.Sleep(time.Minute)
		synctest.Wait()

		devs, _ := h.ListDevices(t.Context())
		if len(devs) != 1 || devs[0].UDID != "LATE" {
			t.Errorf("devices %+v; want LATE, attached at its third try", devs)
		}
		mu.Lock()
		for serial, want := range map[string][]time.Duration{
			"LATE":  {0, 2 * time.Second, 6 * time.Second},
			"NEVER": {0, 2 * time.Second, 6 * time.Second, 14 * time.Second},
			"GONE":  {0},
		} {
			if got := tries[serial]; !slices.Equal(got, want) {
				t.Errorf("%s tried at %v; want %v", serial, got, want)
			}
		}
		mu.Unlock()
		stop()
	})
}
