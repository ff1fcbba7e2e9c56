package adbusb_test

import (
	"bytes"
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

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/usb"
)

// wire is one bulk endpoint pair's direction as USB moves it: an OUT
// transfer becomes packets of maxPacket bytes (the last one short, or an
// explicit zero-length packet), and an IN transfer takes packets until
// its buffer is full or a packet is short.
type wire struct {
	maxPacket int
	packets   chan []byte

	mu   sync.Mutex
	sent []int // the length of every packet sent
}

func newWire() *wire { return &wire{maxPacket: 512, packets: make(chan []byte, 1<<14)} }

func (w *wire) out(ctx context.Context, b []byte) (int, error) {
	pkts := [][]byte{}
	for len(b) > 0 {
		n := min(w.maxPacket, len(b))
		pkts, b = append(pkts, bytes.Clone(b[:n])), b[n:]
	}
	if len(pkts) == 0 {
		pkts = append(pkts, nil)
	}
	total := 0
	for _, p := range pkts {
		w.mu.Lock()
		w.sent = append(w.sent, len(p))
		w.mu.Unlock()
		select {
		case w.packets <- p:
		case <-ctx.Done():
			return total, ctx.Err()
		}
		total += len(p)
	}
	return total, nil
}

func (w *wire) in(ctx context.Context, b []byte) (int, error) {
	got := 0
	for {
		var p []byte
		select {
		case p = <-w.packets:
		case <-ctx.Done():
			return got, ctx.Err()
		}
		if len(p) > len(b)-got {
			return got, usb.ErrOverflow
		}
		got += copy(b[got:], p)
		if len(p) < w.maxPacket || got == len(b) {
			return got, nil
		}
	}
}

func (w *wire) lengths() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.sent)
}

// link joins a host transport to a device transport.
func link() (host, device *adbusb.Transport, toDevice, toHost *wire) {
	toDevice, toHost = newWire(), newWire()
	host = adbusb.NewTransport(adbusb.Pipe{In: toHost.in, Out: toDevice.out, MaxPacket: 512, MaxTransfer: 16 << 10})
	device = adbusb.NewTransport(adbusb.Pipe{In: toDevice.in, Out: toHost.out, MaxPacket: 512, MaxTransfer: 16 << 10})
	return host, device, toDevice, toHost
}

func TestShellAndScreencapOverUSB(t *testing.T) {
	screen := bytes.Repeat([]byte("rgba"), 300_000) // 1.2 MB: more than one message
	dev := &adbtest.Device{Model: "Pixel_Fake", Allow: func(string) bool { return true },
		Handler: func(ctx context.Context, line string, stdout, stderr io.Writer) int {
			switch line {
			case "screencap":
				stdout.Write(screen)
			case "echo hi":
				fmt.Fprintln(stdout, "hi")
			default:
				return 127
			}
			return 0
		}}
	host, device, toDevice, _ := link()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan struct{})
	go func() { dev.ServeConn(ctx, device); close(served) }()
	key, err := adb.LoadOrCreateKey(filepath.Join(t.TempDir(), "adbkey"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := adb.Client(ctx, host, adb.ClientConfig{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Shell(ctx, "echo hi")
	if err != nil || string(res.Stdout) != "hi\n" || res.ExitCode != 0 {
		t.Errorf("shell: %+v %v", res, err)
	}
	got, err := c.Exec(ctx, "screencap")
	if err != nil || !bytes.Equal(got, screen) {
		t.Errorf("exec screencap: %d bytes (want %d) %v", len(got), len(screen), err)
	}
	// Every header went as a 24-byte transfer of its own.
	if l := toDevice.lengths(); l[0] != 24 {
		t.Errorf("first packet to the device: %d bytes, want the 24-byte CNXN header", l[0])
	}
	c.Close()
	cancel() // the fake device hangs up
	<-served
}

func TestZeroLengthPacketAfterFullPayload(t *testing.T) {
	for _, tc := range []struct {
		size int
		want []int
	}{
		{512, []int{24, 512, 0}},
		{1024, []int{24, 512, 512, 0}},
		{100, []int{24, 100}},
		{24, []int{24, 24}}, // a payload the size of a header is still a payload
		{0, []int{24}},
	} {
		host, _, toDevice, _ := link()
		if err := adb.WriteMessage(host, adb.Message{Command: adb.CmdWRTE, Data: make([]byte, tc.size)}, false); err != nil {
			t.Fatal(err)
		}
		if err := adb.WriteMessage(host, adb.Message{Command: adb.CmdOKAY}, false); err != nil {
			t.Fatal(err)
		}
		if got, want := toDevice.lengths(), append(tc.want, 24); !slices.Equal(got, want) {
			t.Errorf("payload %d: packets %v, want %v", tc.size, got, want)
		}
	}
}

func TestReadSkipsZeroLengthPackets(t *testing.T) {
	host, _, _, toHost := link()
	var msg bytes.Buffer
	adb.WriteMessage(&msg, adb.Message{Command: adb.CmdWRTE, Arg0: 7, Data: make([]byte, 512)}, true)
	b := msg.Bytes()
	ctx := t.Context()
	toHost.out(ctx, nil) // stray zero-length packet
	toHost.out(ctx, b[:24])
	toHost.out(ctx, b[24:])
	toHost.out(ctx, nil) // the one after a full payload
	adb.WriteMessage(&msg, adb.Message{Command: adb.CmdOKAY}, true)
	toHost.out(ctx, msg.Bytes()[len(b):])
	for _, want := range []adb.Command{adb.CmdWRTE, adb.CmdOKAY} {
		m, err := adb.ReadMessage(host, adb.MaxPayload, true)
		if err != nil || m.Command != want {
			t.Fatalf("ReadMessage: %v %v, want %v", m.Command, err, want)
		}
	}
}

func TestReadFramingErrors(t *testing.T) {
	var big bytes.Buffer
	adb.WriteMessage(&big, adb.Message{Command: adb.CmdWRTE}, false)
	hdr := big.Bytes()
	hdr[12], hdr[13], hdr[14] = 0, 0, 0x20 // 2 MiB of payload
	for _, tc := range []struct {
		name     string
		transfer []byte
		want     error
	}{
		{"header and payload in one transfer", make([]byte, 30), adbusb.ErrFraming},
		{"payload too large", hdr, adb.ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, _, _, toHost := link()
			toHost.out(t.Context(), tc.transfer)
			if _, err := host.Read(make([]byte, 64)); !errors.Is(err, tc.want) {
				t.Errorf("Read: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCloseStopsRead(t *testing.T) {
	closed := 0
	w := newWire()
	tr := adbusb.NewTransport(adbusb.Pipe{In: w.in, Out: w.out, Close: func() error { closed++; return nil }})
	errc := make(chan error)
	go func() {
		_, err := tr.Read(make([]byte, 24))
		errc <- err
	}()
	tr.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close: %v, want net.ErrClosed", err)
	}
	tr.Close()
	if closed != 1 {
		t.Errorf("pipe closed %d times, want once", closed)
	}
	if _, err := tr.Write(make([]byte, 24)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
}

func TestTransferErrorsAreWrapped(t *testing.T) {
	tr := adbusb.NewTransport(adbusb.Pipe{
		In:  func(context.Context, []byte) (int, error) { return 0, usb.ErrDeviceGone },
		Out: func(context.Context, []byte) (int, error) { return 0, usb.ErrDeviceGone },
	})
	if _, err := tr.Read(make([]byte, 24)); !errors.Is(err, usb.ErrDeviceGone) {
		t.Errorf("Read: %v", err)
	}
	if _, err := tr.Write(make([]byte, 24)); !errors.Is(err, usb.ErrDeviceGone) {
		t.Errorf("Write: %v", err)
	}
}

func TestEndpoints(t *testing.T) {
	bulk := []usb.Endpoint{{Address: 0x81, Attributes: 2, MaxPacket: 512}, {Address: 0x01, Attributes: 2, MaxPacket: 512}}
	phone := usb.DeviceInfo{Name: "1-1", Configs: []usb.Config{{Value: 1, Interfaces: []usb.Interface{
		{Number: 0, Class: 6, SubClass: 1, Protocol: 1, Endpoints: bulk},
		{Number: 1, Class: 0xff, SubClass: 0x42, Protocol: 1, Endpoints: bulk},
	}}}}
	c, i, in, out, err := adbusb.Endpoints(phone)
	if err != nil || c.Value != 1 || i.Number != 1 || in.Address != 0x81 || out.Address != 0x01 {
		t.Errorf("Endpoints: config %d interface %d in %#x out %#x %v", c.Value, i.Number, in.Address, out.Address, err)
	}
	noDebug := phone
	noDebug.Configs = []usb.Config{{Value: 1, Interfaces: phone.Configs[0].Interfaces[:1]}}
	if _, err := adbusb.Dial(t.Context(), noDebug, adb.ClientConfig{}); !errors.Is(err, adbusb.ErrNoInterface) || !strings.Contains(err.Error(), "USB debugging") {
		t.Errorf("Dial without ADB interface: %v", err)
	}
	noBulk := phone
	noBulk.Configs = []usb.Config{{Value: 1, Interfaces: []usb.Interface{{Number: 1, Class: 0xff, SubClass: 0x42, Protocol: 1}}}}
	if _, _, _, _, err := adbusb.Endpoints(noBulk); err == nil || !strings.Contains(err.Error(), "no bulk IN and OUT") {
		t.Errorf("Endpoints without bulk endpoints: %v", err)
	}
}
