package interop

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	ios "github.com/danielpaulus/go-ios/ios"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/usbmuxtest"
)

const udid = "00008110-000A1B2C3D4E5F60"

// fakePhone starts our fake usbmuxd with one phone whose lockdownd is
// dev, and points go-ios at it.
func fakePhone(t *testing.T, dev *lockdowntest.Device) (*usbmuxtest.Server, string) {
	srv := &usbmuxtest.Server{}
	srv.Connect = func(id uint64, port uint16) func(net.Conn) {
		if port == lockdown.Port {
			return dev.Serve
		}
		return nil
	}
	path := srv.Start(t)
	srv.Attach(usbmux.Device{ID: 5, UDID: udid, ConnectionType: "USB", ProductID: 0x12a8, LocationID: 0x100000})
	t.Setenv("USBMUXD_SOCKET_ADDRESS", "unix://"+path)
	return srv, path
}

func goiosMux(t *testing.T, path string) *ios.UsbMuxConnection {
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	m := ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(conn))
	t.Cleanup(func() { m.Close() })
	return m
}

// TestUsbmuxGoIOSClient: go-ios's usbmux client against our fake
// usbmuxd: go-ios's requests decode on our side, our replies on theirs.
func TestUsbmuxGoIOSClient(t *testing.T) {
	srv, path := fakePhone(t, &lockdowntest.Device{UDID: udid})
	list, err := goiosMux(t, path).ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(list.DeviceList) != 1 {
		t.Fatalf("go-ios sees %d devices", len(list.DeviceList))
	}
	d := list.DeviceList[0]
	if d.DeviceID != 5 || d.Properties.SerialNumber != udid || d.Properties.ConnectionType != "USB" || d.Properties.ProductID != 0x12a8 || d.Properties.LocationID != 0x100000 {
		t.Errorf("go-ios decoded %+v", d)
	}
	buid, err := goiosMux(t, path).ReadBuid()
	if err != nil || buid == "" {
		t.Errorf("go-ios ReadBuid = %q, %v", buid, err)
	}
	rec := &lockdown.PairRecord{HostID: "HOST", SystemBUID: buid, HostCertificate: []byte("c"), HostPrivateKey: []byte("k"), EscrowBag: []byte{1, 2}}
	b, _ := rec.Marshal()
	srv.SetPairRecord(udid, b)
	pr, err := goiosMux(t, path).ReadPair(udid)
	if err != nil || pr.HostID != "HOST" || pr.SystemBUID != buid || !bytes.Equal(pr.EscrowBag, []byte{1, 2}) {
		t.Errorf("go-ios ReadPair = %+v, %v", pr, err)
	}
	if err := goiosMux(t, path).Connect(5, 1234); err == nil {
		t.Error("go-ios Connect to a port nobody serves succeeded")
	}
	if got := srv.Requests(); len(got) < 4 || got[0] != "ListDevices" || got[1] != "ReadBUID" || got[2] != "ReadPairRecord" || got[3] != "Connect" {
		t.Errorf("our server decoded go-ios's requests as %v", got)
	}
}

// TestUsbmuxWeDecodeGoIOS: the bytes go-ios writes for a Connect decode
// with our reader, with the port byte-swapped as usbmuxd wants.
func TestUsbmuxWeDecodeGoIOS(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(a)).Connect(5, 62078)
	tag, m, err := usbmux.ReadMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := m.Uint("PortNumber")
	id, _ := m.Uint("DeviceID")
	if m.String("MessageType") != "Connect" || id != 5 || port != 0x7ef2 || tag == 0 {
		t.Errorf("decoded tag %d %#v", tag, m)
	}
}

// TestPairingGoIOSAgainstOurDevice: go-ios pairs with our fake lockdownd
// (its certificates pass our device's checks) and saves the record in our
// fake usbmuxd; our lockdown client then opens a TLS session with
// go-ios's record, and go-ios opens one with a record we made.
func TestPairingGoIOSAgainstOurDevice(t *testing.T) {
	dev := &lockdowntest.Device{UDID: udid, ProductVersion: "27.0",
		Services: map[string]lockdowntest.Service{"com.apple.internal.devicecompute.CoreDeviceProxy": {Port: 49152, SSL: true}}}
	srv, path := fakePhone(t, dev)
	if err := ios.Pair(ios.DeviceEntry{DeviceID: 5, Properties: ios.DeviceProperties{SerialNumber: udid}}); err != nil {
		t.Fatalf("go-ios Pair against our lockdownd: %v", err)
	}
	saved := srv.PairRecord(udid)
	if saved == nil {
		t.Fatal("go-ios did not save a pair record")
	}
	rec, err := lockdown.ParsePairRecord(saved)
	if err != nil {
		t.Fatalf("our ParsePairRecord of go-ios's record: %v", err)
	}
	ctx := context.Background()
	mux := &usbmux.Client{Socket: path}
	conn, err := mux.Connect(ctx, 5, lockdown.Port)
	if err != nil {
		t.Fatal(err)
	}
	c := lockdown.NewClient(conn, "interop")
	defer c.Close()
	if _, err := c.StartSession(ctx, rec); err != nil {
		t.Fatalf("our StartSession with go-ios's record: %v", err)
	}
	svc, err := c.StartService(ctx, "com.apple.internal.devicecompute.CoreDeviceProxy", rec.EscrowBag)
	if err != nil || svc.Port != 49152 || !svc.SSL {
		t.Errorf("StartService = %+v, %v", svc, err)
	}

	// The other way: a record we made, used by go-ios's session code.
	ours := pairWithOurs(t, mux)
	ld, err := goiosMux(t, path).ConnectLockdown(5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ld.StartSession(ios.PairRecord{
		HostID: ours.HostID, SystemBUID: ours.SystemBUID, HostCertificate: ours.HostCertificate,
		HostPrivateKey: ours.HostPrivateKey, RootCertificate: ours.RootCertificate, DeviceCertificate: ours.DeviceCertificate,
	}); err != nil {
		t.Fatalf("go-ios StartSession with our record: %v", err)
	}
	v, err := ld.GetProductVersion()
	if err != nil || v != "27.0" {
		t.Errorf("go-ios GetProductVersion in session = %q, %v", v, err)
	}
	resp, err := ld.StartService("com.apple.internal.devicecompute.CoreDeviceProxy")
	if err != nil || resp.Port != 49152 || !resp.EnableServiceSSL {
		t.Errorf("go-ios StartService = %+v, %v", resp, err)
	}
}

func pairWithOurs(t *testing.T, mux *usbmux.Client) *lockdown.PairRecord {
	t.Helper()
	ctx := context.Background()
	conn, err := mux.Connect(ctx, 5, lockdown.Port)
	if err != nil {
		t.Fatal(err)
	}
	c := lockdown.NewClient(conn, "interop")
	defer c.Close()
	pub, err := c.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		t.Fatal(err)
	}
	buid, _ := mux.ReadBUID(ctx)
	rec, err := lockdown.NewPairRecord(pub.([]byte), buid, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pair(ctx, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestLockdownWeDecodeGoIOS: go-ios's lockdown requests decode with our
// reader (4-byte big-endian length, XML plist).
func TestLockdownWeDecodeGoIOS(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		ld := ios.NewLockDownConnection(ios.NewDeviceConnectionWithConn(a))
		ld.GetValueForDomain("ProductVersion", "")
	}()
	m, err := lockdown.ReadMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.String("Request") != "GetValue" || m.String("Key") != "ProductVersion" || m.String("Label") == "" {
		t.Errorf("decoded %#v", m)
	}
	// And our reply decodes in go-ios.
	lockdown.WriteMessage(b, plist.Dict{{Key: "Request", Value: "GetValue"}, {Key: "Value", Value: "27.0"}})
}
