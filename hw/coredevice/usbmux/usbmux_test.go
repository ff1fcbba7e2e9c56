package usbmux_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/usbmuxtest"
)

var phone = usbmux.Device{ID: 7, UDID: "00008110-000A1B2C3D4E5F60", ConnectionType: "USB", ProductID: 0x12a8, LocationID: 0x1100000}

func TestGoldenListDevicesRequest(t *testing.T) {
	b, err := os.ReadFile("testdata/readdevices.bin")
	if err != nil {
		t.Fatal(err)
	}
	tag, m, err := usbmux.ReadMessage(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if tag != 0 || m.String("MessageType") != "ListDevices" || m.String("ProgName") != "go-usbmux" {
		t.Errorf("tag %d, message %#v", tag, m)
	}
	var out bytes.Buffer
	if err := usbmux.WriteMessage(&out, tag, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes()[4:16], b[4:16]) {
		t.Errorf("header %x, want %x", out.Bytes()[:16], b[:16])
	}
	_, again, err := usbmux.ReadMessage(&out)
	if err != nil || !reflect.DeepEqual(again, m) {
		t.Errorf("re-encoded message = %#v, %v", again, err)
	}
}

func TestReadMessageMalformed(t *testing.T) {
	var good bytes.Buffer
	usbmux.WriteMessage(&good, 1, plist.Dict{{Key: "MessageType", Value: "Result"}})
	g := good.Bytes()
	mut := func(i int, v byte) []byte { b := append([]byte{}, g...); b[i] = v; return b }
	for name, b := range map[string][]byte{
		"binary protocol": mut(4, 0),
		"not plist type":  mut(8, 1),
		"too short":       mut(0, 3),
		"too long":        mut(3, 0x7f),
		"bad plist":       bytes.Replace(g, []byte("<dict>"), []byte("<dicX>"), 1),
	} {
		if _, _, err := usbmux.ReadMessage(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: ReadMessage succeeded", name)
		}
	}
	if _, _, err := usbmux.ReadMessage(bytes.NewReader(g[:20])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v", err)
	}
}

func TestClient(t *testing.T) {
	ctx := t.Context()
	srv := &usbmuxtest.Server{}
	var gotPort uint16
	srv.Connect = func(id uint64, port uint16) func(net.Conn) {
		gotPort = port
		return func(conn net.Conn) {
			io.Copy(conn, conn) // echo
			conn.Close()
		}
	}
	c := &usbmux.Client{Socket: srv.Start(t)}

	devs, err := c.ListDevices(ctx)
	if err != nil || len(devs) != 0 {
		t.Fatalf("ListDevices = %v, %v; want none", devs, err)
	}
	srv.Attach(phone)
	devs, err = c.ListDevices(ctx)
	if err != nil || !reflect.DeepEqual(devs, []usbmux.Device{phone}) {
		t.Fatalf("ListDevices = %#v, %v", devs, err)
	}

	if _, err := c.ReadPairRecord(ctx, phone.UDID); !errors.Is(err, usbmux.ErrNoPairRecord) {
		t.Errorf("ReadPairRecord before saving = %v, want ErrNoPairRecord", err)
	}
	if err := c.SavePairRecord(ctx, phone.UDID, phone.ID, []byte("record")); err != nil {
		t.Fatal(err)
	}
	if rec, err := c.ReadPairRecord(ctx, phone.UDID); err != nil || string(rec) != "record" {
		t.Errorf("ReadPairRecord = %q, %v", rec, err)
	}
	if b, err := c.ReadBUID(ctx); err != nil || b == "" {
		t.Errorf("ReadBUID = %q, %v", b, err)
	}

	conn, err := c.Connect(ctx, phone.ID, 62078)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("ping"))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
		t.Errorf("echo = %q, %v", buf, err)
	}
	conn.Close()
	if gotPort != 62078 {
		t.Errorf("server saw port %d, want 62078 (PortNumber must be byte-swapped)", gotPort)
	}

	var re *usbmux.ResultError
	if _, err := c.Connect(ctx, 99, 62078); !errors.As(err, &re) || re.Number != usbmux.ResultBadDevice {
		t.Errorf("Connect to a missing device = %v, want result %d", err, usbmux.ResultBadDevice)
	}
	srv.Connect = nil
	if _, err := c.Connect(ctx, phone.ID, 1); !errors.As(err, &re) || re.Number != usbmux.ResultConnRefused {
		t.Errorf("refused Connect = %v", err)
	}
}

func TestListen(t *testing.T) {
	srv := &usbmuxtest.Server{}
	c := &usbmux.Client{Socket: srv.Start(t)}
	srv.Attach(phone)
	ctx, cancel := context.WithCancel(t.Context())
	events, wait, err := c.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func() usbmux.Event {
		select {
		case ev := <-events:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return usbmux.Event{}
	}
	if ev := next(); ev.Kind != usbmux.Attached || ev.Device != phone {
		t.Errorf("first event = %#v, want the attached phone", ev)
	}
	srv.Detach(phone.ID)
	if ev := next(); ev.Kind != usbmux.Detached || ev.Device.ID != phone.ID {
		t.Errorf("second event = %#v, want Detached %d", ev, phone.ID)
	}
	cancel()
	for range events {
	}
	if err := wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("wait = %v, want context.Canceled", err)
	}
}

func TestNoDaemon(t *testing.T) {
	c := &usbmux.Client{Socket: t.TempDir() + "/none"}
	if _, err := c.ListDevices(t.Context()); err == nil {
		t.Error("ListDevices without usbmuxd succeeded")
	}
}

func TestCancelledExchange(t *testing.T) {
	// A daemon that accepts and never answers: the context must end the call.
	path := t.TempDir() + "/mute"
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	c := &usbmux.Client{Socket: path}
	if _, err := c.ListDevices(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListDevices = %v, want DeadlineExceeded", err)
	}
	if _, err := c.Connect(ctx, 1, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect = %v, want DeadlineExceeded", err)
	}
}

// TestRealUsbmuxd asks Debian's usbmuxd for its devices; there are none
// here. scripts/test-usbmuxd.sh runs it with OPENLOLO_USBMUXD set to the
// daemon's socket (CI runs that script; without it the test is skipped).
func TestRealUsbmuxd(t *testing.T) {
	path := os.Getenv("OPENLOLO_USBMUXD")
	if path == "" {
		t.Skip("OPENLOLO_USBMUXD is not set (scripts/test-usbmuxd.sh sets it)")
	}
	c := &usbmux.Client{Socket: path}
	devs, err := c.ListDevices(t.Context())
	if err != nil {
		t.Fatalf("ListDevices against usbmuxd: %v", err)
	}
	if len(devs) != 0 {
		t.Errorf("usbmuxd lists %v; the CI machine has no iPhone", devs)
	}
	if _, err := c.ReadPairRecord(t.Context(), phone.UDID); !errors.Is(err, usbmux.ErrNoPairRecord) {
		t.Errorf("ReadPairRecord of an unknown UDID = %v, want ErrNoPairRecord", err)
	}
	var re *usbmux.ResultError
	if _, err := c.Connect(t.Context(), 1, 62078); !errors.As(err, &re) || re.Number != usbmux.ResultBadDevice {
		t.Errorf("Connect to no device = %v, want result %d", err, usbmux.ResultBadDevice)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	events, wait, err := c.Listen(ctx)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	for ev := range events {
		t.Errorf("event %#v with no device attached", ev)
	}
	if err := wait(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("listen ended with %v", err)
	}
}
