package main

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
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

// iPhoneUSBChecks runs the box's own usbmux against the fake iPhone on
// the same kernel (FunctionFS behind dummy_hcd, serving muxusb's device
// side with its fake lockdownd on port 62078): the box finds it through
// usbdevfs, and reaches lockdown over the real USB path: type, pairing
// (the record kept in records), a TLS session with the kept record, a
// service start and a stream to that service; unplugged, the device is
// dropped.
func (s *suite) iPhoneUSBChecks(ctx context.Context, iphone *fakeIPhone, records string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	phone, err := startFakeIPhone(ctx, iphone.accept)
	if !s.report("usbmux-fake-iphone", err == nil, "%s", errOr(err, "FunctionFS gadget 05ac, ff/fe/02 bound to dummy_udc.0")) {
		return
	}
	defer phone.close()

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
	err = pairOverUSB(ctx, h, lc, d, "/etc/pairrecord")
	s.report("usbmux-lockdown-pair", err == nil, "%s", errOr(err, "paired with the host's record for the phone's key; kept in "+records))

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

// startFakeIPhone plugs the fake iPhone in and serves usbmux's device
// side on it until ctx ends: accept answers a stream to a port (nil
// refuses it).
func startFakeIPhone(ctx context.Context, accept func(port uint16) func(net.Conn)) (*fakeAndroid, error) {
	phone, err := startFake(iPhoneSpec)
	if err != nil {
		return nil, err
	}
	go func() {
		defer close(phone.done)
		muxusb.Serve(ctx, phone, muxusb.Config{MaxPacket: 512, Name: "fake iPhone"}, accept)
	}()
	return phone, nil
}

// pairOverUSB pairs as the CoreDevice backend does, with the record the
// host made for the fake iPhone (its two RSA keys take the emulated CPU
// tens of seconds): the key lockdownd reports must be the one the
// record's device certificate holds; then Pair, and the record kept.
func pairOverUSB(ctx context.Context, h *muxusb.Host, lc *lockdown.Client, d usbmux.Device, recordFile string) error {
	b, err := os.ReadFile(recordFile)
	if err != nil {
		return err
	}
	rec, err := lockdown.ParsePairRecord(b)
	if err != nil {
		return err
	}
	pub, err := lc.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		return err
	}
	key, err := publicKey(pub)
	if err != nil {
		return err
	}
	var cert *x509.Certificate
	if blk, _ := pem.Decode(rec.DeviceCertificate); blk != nil {
		cert, err = x509.ParseCertificate(blk.Bytes)
	}
	if cert == nil || err != nil || !key.Equal(cert.PublicKey) {
		return fmt.Errorf("the pair record in %s is not for the phone's DevicePublicKey (%v)", recordFile, err)
	}
	if err := lc.Pair(ctx, rec); err != nil {
		return err
	}
	return h.Records.Save(d.UDID, rec)
}

// publicKey parses DevicePublicKey (PEM, PKCS #1).
func publicKey(v any) (*rsa.PublicKey, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("DevicePublicKey is %T", v)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("DevicePublicKey is not PEM")
	}
	return x509.ParsePKCS1PublicKey(blk.Bytes)
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
	var found usbmux.Device
	if waitFor(limit, func() bool {
		devs, _ := h.ListDevices(ctx)
		found = usbmux.Device{}
		for _, d := range devs {
			if d.UDID == iPhoneUDID {
				found = d
			}
		}
		return (found.ID != 0) == attached || ctx.Err() != nil
	}) && ctx.Err() == nil {
		return found, nil
	}
	return usbmux.Device{}, fmt.Errorf("the iPhone was not %s within %v", map[bool]string{true: "attached", false: "dropped"}[attached], limit)
}
