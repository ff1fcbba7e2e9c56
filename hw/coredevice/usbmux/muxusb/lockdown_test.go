package muxusb_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb/muxusbtest"
)

const udid = "00008110-000A1B2C3D4E5F60"

// plugIn serves dev's lockdownd on a fake phone over an in-memory USB
// cable, opens the host's session, and attaches it to a Host keeping
// records in dir.
func plugIn(t *testing.T, dev *lockdowntest.Device, dir string) (*muxusb.Host, usbmux.Device, *muxusbtest.Link, *muxusb.Mux) {
	t.Helper()
	phone := &muxusbtest.Phone{Connect: func(port uint16) func(net.Conn) {
		if port == lockdown.Port {
			return dev.Serve
		}
		return nil
	}}
	link := phone.Start(t)
	m, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: 512, Name: udid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	h := &muxusb.Host{Records: lockdown.Store{Dir: dir}}
	d := h.Attach(m, usbmux.Device{UDID: udid, ProductID: 0x12a8})
	return h, d, link, m
}

func dialLockdown(t *testing.T, mux usbmux.Mux, d usbmux.Device) *lockdown.Client {
	t.Helper()
	conn, err := mux.Connect(t.Context(), d.ID, lockdown.Port)
	if err != nil {
		t.Fatal(err)
	}
	c := lockdown.NewClient(conn, "test")
	t.Cleanup(func() { c.Close() })
	return c
}

// TestLockdownOverUSB reaches the fake lockdownd through the mux: it
// answers QueryType, pairs, and runs a TLS session with the record the
// Host kept, after a "restart" (a new Host on the same directory).
func TestLockdownOverUSB(t *testing.T) {
	ctx := t.Context()
	dev := &lockdowntest.Device{UDID: udid, ProductType: "iPhone17,1", ProductVersion: "27.0"}
	dir := t.TempDir()
	h, d, _, _ := plugIn(t, dev, dir)

	devs, err := h.ListDevices(ctx)
	if err != nil || len(devs) != 1 || devs[0] != d || d.ConnectionType != "USB" || d.ID == 0 {
		t.Fatalf("ListDevices = %+v, %v; want [%+v]", devs, err, d)
	}
	c := dialLockdown(t, h, d)
	if typ, err := c.QueryType(ctx); err != nil || typ != "com.apple.mobile.lockdown" {
		t.Fatalf("QueryType = %q, %v", typ, err)
	}
	if _, err := h.ReadPairRecord(ctx, udid); !errors.Is(err, usbmux.ErrNoPairRecord) {
		t.Fatalf("ReadPairRecord before pairing = %v, want ErrNoPairRecord", err)
	}
	pub, err := c.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		t.Fatal(err)
	}
	buid, err := h.ReadBUID(ctx)
	if err != nil || buid == "" {
		t.Fatalf("ReadBUID = %q, %v", buid, err)
	}
	rec, err := lockdown.NewPairRecord(pub.([]byte), buid, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pair(ctx, rec); err != nil {
		t.Fatal(err)
	}
	b, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SavePairRecord(ctx, udid, d.ID, b); err != nil {
		t.Fatal(err)
	}

	// The box restarts: a new Host on the same state directory still
	// has the record and the BUID, and the phone takes the session.
	h2, d2, _, _ := plugIn(t, dev, dir)
	if buid2, err := h2.ReadBUID(ctx); err != nil || buid2 != buid {
		t.Fatalf("ReadBUID after restart = %q, %v; want %q", buid2, err, buid)
	}
	kept, err := h2.ReadPairRecord(ctx, udid)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := lockdown.ParsePairRecord(kept)
	if err != nil {
		t.Fatal(err)
	}
	c2 := dialLockdown(t, h2, d2)
	if _, err := c2.StartSession(ctx, loaded); err != nil {
		t.Fatalf("StartSession with the kept record: %v", err)
	}
	if v, err := c2.GetValue(ctx, "", "UniqueDeviceID"); err != nil || v != udid {
		t.Errorf("GetValue inside the TLS session = %v, %v", v, err)
	}
}

func TestHostErrors(t *testing.T) {
	ctx := t.Context()
	dev := &lockdowntest.Device{UDID: udid}
	h, d, link, m := plugIn(t, dev, t.TempDir())

	var re *usbmux.ResultError
	if _, err := h.Connect(ctx, d.ID+1, lockdown.Port); !errors.As(err, &re) || re.Number != usbmux.ResultBadDevice {
		t.Errorf("Connect to an unknown device = %v, want BADDEV", err)
	}
	if _, err := h.Connect(ctx, d.ID, 1234); !errors.Is(err, muxusb.ErrRefused) {
		t.Errorf("Connect to a closed port = %v, want ErrRefused", err)
	}
	if err := h.SavePairRecord(ctx, udid, d.ID, []byte("not a plist")); err == nil {
		t.Error("SavePairRecord took a broken record")
	}
	if _, err := h.ReadPairRecord(ctx, "../escape"); err == nil || errors.Is(err, usbmux.ErrNoPairRecord) {
		t.Errorf("ReadPairRecord of a bad UDID = %v, want a bad-id error", err)
	}

	// Unplugged: the device leaves the list and Connect says it is gone.
	link.Unplug()
	<-m.Done()
	if !errors.Is(m.Err(), muxusb.ErrDeviceGone) {
		t.Errorf("session error after unplugging = %v, want ErrDeviceGone", m.Err())
	}
	if devs, err := h.ListDevices(ctx); len(devs) != 0 || err != nil {
		t.Errorf("ListDevices after unplugging = %+v, %v", devs, err)
	}
	if _, err := h.Connect(ctx, d.ID, lockdown.Port); !errors.As(err, &re) || re.Number != usbmux.ResultBadDevice {
		t.Errorf("Connect after unplugging = %v, want BADDEV", err)
	}
}
