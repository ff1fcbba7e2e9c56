package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/usb"
)

// The fake iPhone: Apple's vendor ID, an iPhone's product ID, a UDID as
// its USB serial, and a plain service lockdownd starts on echoPort.
const (
	iPhoneProduct = 0x12a8
	iPhoneUDID    = "00008110-FAKE0000000001"
	echoService   = "com.openlolo.echo"
	echoPort      = 5555
)

var iPhoneSpec = fakeSpec{name: "usbmux", vendor: muxusb.AppleVendor, product: iPhoneProduct, serial: iPhoneUDID,
	manufacturer: "Apple Inc.", model: "iPhone", class: muxusb.InterfaceClass, subClass: muxusb.InterfaceSubClass,
	protocol: muxusb.InterfaceProtocol, iface: "Apple USB Multiplexor"}

// iPhoneUSBChecks runs the box's own usbmux against a fake iPhone on the
// same kernel (FunctionFS behind dummy_hcd, serving muxusb's device side
// with hw/coredevice's fake lockdownd on port 62078): the box finds it
// through usbdevfs, and reaches lockdown over the real USB path: type,
// pairing, a TLS session with the kept record, a service start and a
// stream to that service; unplugged, the device is dropped.
func (s *suite) iPhoneUSBChecks(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dev := &lockdowntest.Device{UDID: iPhoneUDID, ProductType: "iPhone17,1", ProductVersion: "27.0",
		Services: map[string]lockdowntest.Service{echoService: {Port: echoPort}}}
	phone, err := startFake(iPhoneSpec)
	if !s.report("usbmux-fake-iphone", err == nil, "%s", errOr(err, "FunctionFS gadget 05ac, ff/fe/02 bound to dummy_udc.0")) {
		return
	}
	defer phone.close()
	go func() {
		defer close(phone.done)
		muxusb.Serve(ctx, phone, muxusb.Config{MaxPacket: 512, Name: "fake iPhone"}, func(port uint16) func(net.Conn) {
			switch port {
			case lockdown.Port:
				return dev.Serve
			case echoPort:
				return func(c net.Conn) { defer c.Close(); io.Copy(c, c) }
			}
			return nil
		})
	}()

	records, _ := os.MkdirTemp("", "coredevice")
	h := &muxusb.Host{Records: lockdown.Store{Dir: records}}
	go h.WatchUSB(ctx, muxusb.USB{Bus: usb.Bus{}, Interval: 20 * time.Millisecond})
	t0 := time.Now()
	d, err := waitIPhone(ctx, h, true, 10*time.Second)
	if !s.report("usbmux-attach", err == nil && d.UDID == iPhoneUDID, "%s after %v: %+v", errOr(err, "attached"), time.Since(t0).Round(time.Millisecond), d) {
		return
	}
	conn, err := h.Connect(ctx, d.ID, lockdown.Port)
	if !s.report("usbmux-connect-lockdown", err == nil, "%s", errOr(err, "a stream to port 62078")) {
		return
	}
	lc := lockdown.NewClient(conn, "kerneltest")
	defer lc.Close()
	typ, err := lc.QueryType(ctx)
	s.report("usbmux-lockdown-querytype", err == nil && typ == "com.apple.mobile.lockdown", "%q %s", typ, errOr(err, ""))
	err = pairOverUSB(ctx, h, lc, d)
	s.report("usbmux-lockdown-pair", err == nil, "%s", errOr(err, "paired; record kept in "+records))

	// A new stream, as after a restart: the kept record opens a TLS
	// session, and a service starts and carries bytes.
	rec, err := lockdown.Store{Dir: records}.Load(iPhoneUDID)
	var lc2 *lockdown.Client
	if err == nil {
		var c net.Conn
		if c, err = h.Connect(ctx, d.ID, lockdown.Port); err == nil {
			lc2 = lockdown.NewClient(c, "kerneltest")
			defer lc2.Close()
			_, err = lc2.StartSession(ctx, rec)
		}
	}
	var udid any
	if err == nil {
		udid, err = lc2.GetValue(ctx, "", "UniqueDeviceID")
	}
	if !s.report("usbmux-lockdown-tls", err == nil && udid == iPhoneUDID, "UniqueDeviceID %v in the TLS session %s", udid, errOr(err, "")) {
		return
	}
	svc, err := lc2.StartService(ctx, echoService, nil)
	var echoed string
	if err == nil {
		echoed, err = echoOver(ctx, h, d, svc.Port)
	}
	s.report("usbmux-service-start", err == nil && echoed == "ping", "%s port %d echoed %q %s", echoService, svc.Port, echoed, errOr(err, ""))

	err = phone.unplug()
	if err == nil {
		_, err = waitIPhone(ctx, h, false, 10*time.Second)
	}
	s.report("usbmux-device-gone", err == nil, "%s", errOr(err, "the unplugged iPhone left the list"))
}

// pairOverUSB pairs as the CoreDevice backend does: the device's key,
// the host's BUID, a new record, Pair, and the record kept.
func pairOverUSB(ctx context.Context, h *muxusb.Host, lc *lockdown.Client, d usbmux.Device) error {
	pub, err := lc.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		return err
	}
	key, ok := pub.([]byte)
	if !ok {
		return fmt.Errorf("DevicePublicKey is %T", pub)
	}
	buid, err := h.ReadBUID(ctx)
	if err != nil {
		return err
	}
	rec, err := lockdown.NewPairRecord(key, buid, nil, time.Now())
	if err != nil {
		return err
	}
	if err := lc.Pair(ctx, rec); err != nil {
		return err
	}
	return h.Records.Save(d.UDID, rec)
}

// echoOver sends "ping" to port on d and returns what came back.
func echoOver(ctx context.Context, h *muxusb.Host, d usbmux.Device, port uint16) (string, error) {
	c, err := h.Connect(ctx, d.ID, port)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("ping")); err != nil {
		return "", err
	}
	b := make([]byte, 4)
	_, err = io.ReadFull(c, b)
	return string(b), err
}

// waitIPhone waits for the fake iPhone to be listed (attached) or to
// leave the list.
func waitIPhone(ctx context.Context, h *muxusb.Host, attached bool, limit time.Duration) (usbmux.Device, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		devs, _ := h.ListDevices(ctx)
		var found usbmux.Device
		for _, d := range devs {
			if d.UDID == iPhoneUDID {
				found = d
			}
		}
		if (found.ID != 0) == attached {
			return found, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return usbmux.Device{}, fmt.Errorf("the iPhone was not %s within %v", map[bool]string{true: "attached", false: "dropped"}[attached], limit)
}
