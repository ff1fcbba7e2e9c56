package muxusb_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb/muxusbtest"
)

const maxPacket = 512

// rawDevice plays the device's side packet by packet, so tests see and
// choose every byte.
type rawDevice struct {
	t    *testing.T
	pipe muxusb.Pipe
	v2   bool
	seq  uint16
	buf  []byte
	raw  []byte // the last transfer read
}

// read returns the host's next packet; every host packet is one
// transfer. A host that sends nothing fails the test after a while
// rather than hanging it.
func (d *rawDevice) read() muxusb.Packet {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(d.t.Context(), 10*time.Second)
	defer cancel()
	for {
		n, err := d.pipe.In(ctx, d.buf)
		if err != nil {
			d.t.Fatalf("device read: %v", err)
		}
		if n == 0 {
			continue // a zero-length packet
		}
		d.raw = d.buf[:n]
		p, err := muxusb.ParsePacket(d.raw, d.v2)
		if err != nil {
			d.t.Fatalf("device read: %v", err)
		}
		return p
	}
}

func (d *rawDevice) readTCP(flags uint8) muxusb.TCPHeader {
	d.t.Helper()
	p := d.read()
	if p.Header.Protocol != muxusb.ProtoTCP || p.TCP.Flags != flags {
		d.t.Fatalf("host sent %+v, want TCP with flags %#x", p, flags)
	}
	return p.TCP
}

func (d *rawDevice) send(p muxusb.Packet) {
	d.t.Helper()
	if d.v2 && p.Header.Protocol != muxusb.ProtoVersion {
		p.Header.V2 = true
		p.Header.TxSeq = d.seq
		d.seq++
	}
	b := p.Append(nil)
	if _, err := d.pipe.Out(d.t.Context(), b); err != nil {
		d.t.Fatalf("device write: %v", err)
	}
	if len(b)%maxPacket == 0 {
		d.pipe.Out(d.t.Context(), nil)
	}
}

func (d *rawDevice) sendTCP(h muxusb.TCPHeader, data string) {
	d.t.Helper()
	var payload []byte
	if data != "" {
		payload = []byte(data)
	}
	d.send(muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoTCP}, TCP: h, Payload: payload})
}

// start opens a host session against a raw device answering version.
func start(t *testing.T, version uint32) (*muxusb.Mux, *rawDevice, *muxusbtest.Link) {
	t.Helper()
	link := muxusbtest.NewLink(maxPacket)
	d := &rawDevice{t: t, pipe: link.Device(), buf: make([]byte, muxusb.MaxInPacket)}
	type opened struct {
		m   *muxusb.Mux
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		m, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: maxPacket, Name: "phone"})
		ch <- opened{m, err}
	}()
	if p := d.read(); hex.EncodeToString(d.raw) != "0000000000000014000000020000000000000000" || p.Version.Major != 2 {
		t.Fatalf("version request = % x", d.raw)
	}
	d.send(muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoVersion}, Version: muxusb.Version{Major: version}})
	if version == 2 {
		d.v2 = true
		if p := d.read(); p.Header.Protocol != muxusb.ProtoSetup || string(p.Payload) != "\x07" || p.Header.TxSeq != 0 || p.Header.RxSeq != 0xffff {
			t.Fatalf("after version 2 the host sent %+v, want SETUP 07 with sequence numbers 0, ffff", p)
		}
	}
	o := <-ch
	if o.err != nil {
		t.Fatalf("Open: %v", o.err)
	}
	t.Cleanup(func() { o.m.Close() })
	return o.m, d, link
}

const devISN = 1000 // the device's first sequence number

// accept answers the host's SYN to port with a window of win units.
func (d *rawDevice) accept(m *muxusb.Mux, port uint16, win uint16) (*muxusb.Conn, muxusb.TCPHeader) {
	d.t.Helper()
	ch := make(chan net.Conn, 1)
	go func() {
		c, err := m.Connect(d.t.Context(), port)
		if err != nil {
			d.t.Errorf("Connect: %v", err)
		}
		ch <- c
	}()
	syn := d.readTCP(muxusb.FlagSYN)
	if syn.DstPort != port || syn.Seq != 0 || syn.Ack != 0 || syn.Window != 512 {
		d.t.Fatalf("SYN = %+v, want to port %d, seq 0, ack 0, window 512 (128 KiB)", syn, port)
	}
	d.sendTCP(muxusb.TCPHeader{SrcPort: port, DstPort: syn.SrcPort, Seq: devISN, Ack: 1, Flags: muxusb.FlagSYN | muxusb.FlagACK, Window: win}, "")
	ack := d.readTCP(muxusb.FlagACK)
	if ack.Seq != 1 || ack.Ack != devISN+1 {
		d.t.Fatalf("ACK of SYN|ACK = %+v, want seq 1, ack %d", ack, devISN+1)
	}
	c := <-ch
	if c == nil {
		d.t.FailNow()
	}
	return c.(*muxusb.Conn), syn
}

func TestVersions(t *testing.T) {
	t.Run("v1 device: 8-byte headers, no SETUP", func(t *testing.T) {
		m, d, _ := start(t, 1)
		go m.Connect(t.Context(), 62078)
		p := d.read()
		if p.Header.V2 || p.Header.Length != 28 || p.TCP.Flags != muxusb.FlagSYN {
			t.Errorf("SYN to a v1 device = %+v, want a 28-byte packet with a v1 header", p)
		}
	})
	t.Run("v2 device: sequence numbers count packets", func(t *testing.T) {
		m, d, _ := start(t, 2)
		go m.Connect(t.Context(), 62078)
		if p := d.read(); p.Header.TxSeq != 1 {
			t.Errorf("SYN after SETUP has tx_seq %d, want 1", p.Header.TxSeq)
		}
	})
	t.Run("v3 device refused", func(t *testing.T) {
		link := muxusbtest.NewLink(maxPacket)
		d := &rawDevice{t: t, pipe: link.Device(), buf: make([]byte, muxusb.MaxInPacket)}
		go func() {
			d.read()
			d.send(muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoVersion}, Version: muxusb.Version{Major: 3}})
		}()
		_, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: maxPacket})
		if !errors.Is(err, muxusb.ErrVersion) {
			t.Errorf("Open against a v3 device = %v, want ErrVersion", err)
		}
	})
	t.Run("silent device: ctx ends the exchange", func(t *testing.T) {
		link := muxusbtest.NewLink(maxPacket)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		if _, err := muxusb.Open(ctx, link.Host(), muxusb.Config{MaxPacket: maxPacket}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Open against a silent device = %v, want DeadlineExceeded", err)
		}
	})
	// A device that takes no bulk OUT transfer (a phone still setting
	// its interface up, or wedged): the version packet's write ends
	// with ctx too, or the box's usbmux hangs on that phone for good.
	t.Run("device that reads nothing: ctx ends the write", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			if _, err := muxusb.Open(ctx, stuckPipe{}, muxusb.Config{MaxPacket: maxPacket}); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Open against a device that reads nothing = %v, want DeadlineExceeded", err)
			}
		})
	})
}

// stuckPipe is a device that never completes a transfer: each waits for
// its ctx, as hw/usb's do.
type stuckPipe struct{}

func (stuckPipe) In(ctx context.Context, _ []byte) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (stuckPipe) Out(ctx context.Context, _ []byte) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (stuckPipe) Close() error { return nil }

func TestConnectRefused(t *testing.T) {
	m, d, _ := start(t, 2)
	errc := make(chan error, 1)
	go func() { _, err := m.Connect(t.Context(), 1234); errc <- err }()
	syn := d.readTCP(muxusb.FlagSYN)
	d.sendTCP(muxusb.TCPHeader{SrcPort: 1234, DstPort: syn.SrcPort, Ack: 1, Flags: muxusb.FlagRST | muxusb.FlagACK}, "")
	if err := <-errc; !errors.Is(err, muxusb.ErrRefused) {
		t.Fatalf("Connect = %v, want ErrRefused", err)
	}

	// A Connect given up on resets its stream, so a late SYN|ACK finds
	// nothing.
	ctx, cancel := context.WithCancel(t.Context())
	go func() { _, err := m.Connect(ctx, 62078); errc <- err }()
	syn = d.readTCP(muxusb.FlagSYN)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Connect = %v, want Canceled", err)
	}
	if rst := d.readTCP(muxusb.FlagRST); rst.SrcPort != syn.SrcPort || rst.DstPort != 62078 {
		t.Errorf("RST after a cancelled Connect = %+v", rst)
	}
	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN, Ack: 1, Flags: muxusb.FlagSYN | muxusb.FlagACK, Window: 512}, "")
	if rst := d.readTCP(muxusb.FlagRST); rst.Ack != devISN {
		t.Errorf("answer to a SYN|ACK for no stream = %+v, want RST acking %d", rst, devISN)
	}
}

// TestSequenceAndAck follows the numbers both ways.
func TestSequenceAndAck(t *testing.T) {
	m, d, _ := start(t, 2)
	c, syn := d.accept(m, 62078, 512)
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	p := d.read()
	if p.TCP.Seq != 1 || p.TCP.Ack != devISN+1 || p.TCP.Flags != muxusb.FlagACK || string(p.Payload) != "hello" {
		t.Fatalf("data = %+v %q, want seq 1, ack %d, ACK, hello", p.TCP, p.Payload, devISN+1)
	}
	if _, err := c.Write([]byte("again")); err != nil {
		t.Fatal(err)
	}
	if p := d.read(); p.TCP.Seq != 6 {
		t.Fatalf("second data at seq %d, want 6", p.TCP.Seq)
	}

	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 1, Ack: 11, Flags: muxusb.FlagACK, Window: 512}, "world!")
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "world!" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	// Drained: the host acknowledges what its reader took.
	if ack := d.readTCP(muxusb.FlagACK); ack.Ack != devISN+7 || ack.Seq != 11 || ack.Window != 512 {
		t.Errorf("ACK after reading = %+v, want seq 11, ack %d, window 512", ack, devISN+7)
	}

	// Data at the wrong sequence number breaks the stream.
	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 99, Ack: 11, Flags: muxusb.FlagACK, Window: 512}, "lost")
	if _, err := c.Read(buf); !errors.Is(err, muxusb.ErrProtocol) {
		t.Errorf("Read after a sequence gap = %v, want ErrProtocol", err)
	}
	d.readTCP(muxusb.FlagRST)
}

// TestWindow: a writer stops at the device's window and goes on as the
// device acknowledges; a context or a deadline unblocks it.
func TestWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, d, _ := start(t, 2)
		c, syn := d.accept(m, 62078, 1) // 256 bytes
		data := bytes.Repeat([]byte("x"), 600)
		type result struct {
			n   int
			err error
		}
		done := make(chan result, 1)
		go func() { n, err := c.Write(data); done <- result{n, err} }()
		if p := d.read(); len(p.Payload) != 256 {
			t.Fatalf("first segment %d bytes, want the 256-byte window", len(p.Payload))
		}
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("Write returned %+v past the window", r)
		default:
		}
		d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 1, Ack: 1 + 256, Flags: muxusb.FlagACK, Window: 1}, "")
		if p := d.read(); len(p.Payload) != 256 || p.TCP.Seq != 257 {
			t.Fatalf("after the ACK: %d bytes at %d, want 256 at 257", len(p.Payload), p.TCP.Seq)
		}
		d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 1, Ack: 1 + 512, Flags: muxusb.FlagACK, Window: 1}, "")
		if p := d.read(); len(p.Payload) != 88 {
			t.Fatalf("last segment %d bytes, want 88", len(p.Payload))
		}
		if r := <-done; r.n != 600 || r.err != nil {
			t.Fatalf("Write = %+v", r)
		}

		// The window is full again (88 unacknowledged of 256, then 168
		// more); a cancelled context and a deadline each end the wait.
		ctx, cancel := context.WithCancel(t.Context())
		go func() { n, err := c.WriteContext(ctx, data); done <- result{n, err} }()
		if p := d.read(); len(p.Payload) != 168 {
			t.Fatalf("segment %d bytes, want the 168 left in the window", len(p.Payload))
		}
		synctest.Wait()
		cancel()
		if r := <-done; r.n != 168 || !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled WriteContext = %+v, want 168 bytes and Canceled", r)
		}
		c.SetWriteDeadline(time.Now().Add(time.Second))
		start := time.Now()
		if n, err := c.Write(data); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Second {
			t.Fatalf("Write past the deadline = %d, %v after %v", n, err, time.Since(start))
		}
	})
}

func TestReadDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, d, _ := start(t, 2)
		c, _ := d.accept(m, 62078, 512)
		c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Read = %v, want ErrDeadlineExceeded", err)
		}
	})
}

// TestPeerReset: the device's RST ends the stream after its data.
func TestPeerReset(t *testing.T) {
	m, d, _ := start(t, 2)
	c, syn := d.accept(m, 62078, 512)
	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 1, Ack: 1, Flags: muxusb.FlagACK, Window: 512}, "bye")
	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 4, Ack: 1, Flags: muxusb.FlagRST}, "")
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "bye" {
		t.Fatalf("ReadAll = %q, %v; want bye then EOF", got, err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, muxusb.ErrReset) {
		t.Errorf("Write after RST = %v, want ErrReset", err)
	}
}

// TestClose: closing sends RST, and the stream is gone on both ends.
func TestClose(t *testing.T) {
	m, d, _ := start(t, 2)
	c, syn := d.accept(m, 62078, 512)
	c.Close()
	if rst := d.readTCP(muxusb.FlagRST); rst.SrcPort != syn.SrcPort || rst.DstPort != 62078 {
		t.Errorf("RST = %+v", rst)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close = %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close = %v, want net.ErrClosed", err)
	}
}

// TestDeviceGone: unplugging fails every stream and the session.
func TestDeviceGone(t *testing.T) {
	m, d, link := start(t, 2)
	c, _ := d.accept(m, 62078, 512)
	errc := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 8)); errc <- err }()
	link.Unplug()
	if err := <-errc; !errors.Is(err, muxusb.ErrDeviceGone) {
		t.Errorf("Read when unplugged = %v, want ErrDeviceGone", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, muxusb.ErrDeviceGone) {
		t.Errorf("Write when unplugged = %v, want ErrDeviceGone", err)
	}
	<-m.Done()
	if _, err := m.Connect(t.Context(), 62078); !errors.Is(err, muxusb.ErrDeviceGone) {
		t.Errorf("Connect when unplugged = %v, want ErrDeviceGone", err)
	}
}

// TestZeroLengthPacket: a packet that fills its last USB packet is
// followed by a zero-length one, or the device would wait for more.
func TestZeroLengthPacket(t *testing.T) {
	m, d, link := start(t, 2)
	c, _ := d.accept(m, 62078, 512)
	before := link.HostTransfers()
	payload := bytes.Repeat([]byte("z"), maxPacket-16-20)
	if _, err := c.Write(payload); err != nil {
		t.Fatal(err)
	}
	if p := d.read(); !bytes.Equal(p.Payload, payload) {
		t.Fatalf("payload %d bytes", len(p.Payload))
	}
	if n := link.HostTransfers() - before; n != 2 {
		t.Errorf("a %d-byte packet took %d transfers, want 2 (the packet and a zero-length one)", maxPacket, n)
	}
}

// TestStreamThroughFakePhone moves a megabyte each way through the fake
// phone's mux: packets larger than one IN transfer, windows on both ends,
// at both mux versions.
func TestStreamThroughFakePhone(t *testing.T) {
	for _, version := range []uint32{1, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			phone := &muxusbtest.Phone{Version: version, Connect: echoAll}
			link := phone.Start(t)
			m, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: maxPacket})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			c, err := m.Connect(t.Context(), 7)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 1<<20)
			for i := range data {
				data[i] = byte(i * 7)
			}
			go func() { c.Write(data) }()
			got := make([]byte, len(data))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("echoed bytes differ")
			}
		})
	}
}

// TestPeerFIN: a FIN ends the stream like RST, and the host answers RST
// (usbmux streams end with RST).
func TestPeerFIN(t *testing.T) {
	m, d, _ := start(t, 2)
	c, syn := d.accept(m, 62078, 512)
	d.sendTCP(muxusb.TCPHeader{SrcPort: 62078, DstPort: syn.SrcPort, Seq: devISN + 1, Ack: 1, Flags: muxusb.FlagFIN | muxusb.FlagACK}, "")
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read after FIN = %v, want EOF", err)
	}
	if rst := d.readTCP(muxusb.FlagRST); rst.SrcPort != syn.SrcPort {
		t.Errorf("answer to FIN = %+v", rst)
	}
}

// TestControlLogged: the device's CONTROL messages reach the log.
func TestControlLogged(t *testing.T) {
	var logs bytes.Buffer
	link := muxusbtest.NewLink(maxPacket)
	d := &rawDevice{t: t, pipe: link.Device(), buf: make([]byte, muxusb.MaxInPacket)}
	go func() {
		d.read()
		d.send(muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoVersion}, Version: muxusb.Version{Major: 1}})
		d.send(muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoControl}, Payload: []byte("\x03lockdownd crashed")})
		// Data for no stream: the host's RST answer comes after it
		// has handled the CONTROL packet.
		d.sendTCP(muxusb.TCPHeader{SrcPort: 5, DstPort: 6, Seq: 9, Flags: muxusb.FlagACK}, "x")
	}()
	m, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: maxPacket, Name: "phone",
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if rst := d.readTCP(muxusb.FlagRST); rst.SrcPort != 6 || rst.DstPort != 5 || rst.Ack != 9 {
		t.Errorf("answer to data for no stream = %+v, want RST 6 -> 5 acking 9", rst)
	}
	m.Close()
	<-m.Done()
	if want := `level=WARN msg="muxusb: device reports an error" device=phone message="lockdownd crashed"`; !strings.Contains(logs.String(), want) {
		t.Errorf("log = %q, want it to hold %q", logs.String(), want)
	}
}

// TestManyStreams runs streams side by side through the fake phone, each
// to its own port, so their packets interleave on the one pipe.
func TestManyStreams(t *testing.T) {
	phone := &muxusbtest.Phone{Connect: func(port uint16) func(net.Conn) {
		return func(c net.Conn) {
			defer c.Close()
			fmt.Fprintf(c, "port %d\n", port)
			io.Copy(c, c)
		}
	}}
	m, err := muxusb.Open(t.Context(), phone.Start(t).Host(), muxusb.Config{MaxPacket: maxPacket})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	errc := make(chan error, 8)
	for i := range 8 {
		go func() {
			port := uint16(100 + i)
			c, err := m.Connect(t.Context(), port)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			want := fmt.Sprintf("port %d\n", port) + strings.Repeat(fmt.Sprint(i), 200<<10)
			go c.Write([]byte(want[len(want)-200<<10:]))
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil {
				errc <- fmt.Errorf("port %d: %w", port, err)
				return
			}
			if string(got) != want {
				errc <- fmt.Errorf("port %d: the stream got another's bytes", port)
				return
			}
			errc <- nil
		}()
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// FuzzSession feeds arbitrary bytes from the device to a live session:
// it never panics, and still closes cleanly.
func FuzzSession(f *testing.F) {
	tcp := func(h muxusb.TCPHeader, data string) []byte {
		p := muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoTCP, V2: true}, TCP: h, Payload: []byte(data)}
		return p.Append(nil)
	}
	f.Add(tcp(muxusb.TCPHeader{SrcPort: 62078, DstPort: 1, Seq: 5, Ack: 1, Flags: muxusb.FlagSYN | muxusb.FlagACK, Window: 512}, ""))
	f.Add(append(tcp(muxusb.TCPHeader{SrcPort: 62078, DstPort: 1, Seq: 5, Ack: 1, Flags: muxusb.FlagSYN | muxusb.FlagACK, Window: 512}, ""),
		tcp(muxusb.TCPHeader{SrcPort: 62078, DstPort: 1, Seq: 6, Ack: 1, Flags: muxusb.FlagACK, Window: 0}, "data")...))
	f.Add(tcp(muxusb.TCPHeader{SrcPort: 62078, DstPort: 1, Flags: muxusb.FlagRST}, "reason"))
	f.Add([]byte("\x00\x00\x00\x01\x00\x00\x00\x11\xfe\xed\xfa\xce\x00\x00\x00\x00\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		link := muxusbtest.NewLink(maxPacket)
		dev := link.Device()
		go func() {
			buf := make([]byte, 16384)
			dev.In(t.Context(), buf)
			v := muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoVersion}, Version: muxusb.Version{Major: 2}}
			dev.Out(t.Context(), v.Append(nil))
			dev.Out(t.Context(), data)
		}()
		m, err := muxusb.Open(t.Context(), link.Host(), muxusb.Config{MaxPacket: maxPacket})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
		defer cancel()
		if c, err := m.Connect(ctx, 62078); err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Millisecond))
			c.Write([]byte("x"))
			c.Read(make([]byte, 8))
			c.Close()
		}
		m.Close()
		<-m.Done()
	})
}

// echoAll answers a stream to any port with echo.
func echoAll(uint16) func(net.Conn) { return echo }

// leavingHost is a host's end of the cable whose Close only stops its
// reads, as a host process exiting does: the device hears nothing.
type leavingHost struct {
	muxusb.Pipe
	ctx   context.Context
	leave context.CancelFunc
}

func (h leavingHost) In(_ context.Context, p []byte) (int, error) { return h.Pipe.In(h.ctx, p) }
func (h leavingHost) Close() error                                { h.leave(); return nil }

// TestNewHostSession: a host that went away without a word (usbmuxd or
// the box restarted) is followed by a new one on the same cable; the
// phone answers its VERSION, which comes with the short header, and its
// streams work, the first host's port numbers included.
func TestNewHostSession(t *testing.T) {
	for _, version := range []uint32{1, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			phone := &muxusbtest.Phone{Version: version, Connect: echoAll}
			link := phone.Start(t)
			for session := range 2 {
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				hctx, leave := context.WithCancel(context.Background())
				m, err := muxusb.Open(ctx, leavingHost{link.Host(), hctx, leave}, muxusb.Config{MaxPacket: maxPacket})
				if err != nil {
					t.Fatalf("session %d: %v", session, err)
				}
				c, err := m.Connect(ctx, 7)
				if err != nil {
					t.Fatalf("session %d: connect: %v", session, err)
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				got := make([]byte, 4)
				if _, err := c.Write([]byte("ping")); err != nil {
					t.Fatalf("session %d: write: %v", session, err)
				}
				if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
					t.Fatalf("session %d: echo %q, %v", session, got, err)
				}
				m.Close() // the stream stays open on the phone's side
				cancel()
			}
		})
	}
}

// TestStaleBeforeVersion: what the phone had queued for a host session
// that ended (v2 TCP packets, a box that restarted mid-stream) comes
// before its answer to the new host's VERSION; the host skips it and the
// session works.
func TestStaleBeforeVersion(t *testing.T) {
	l := muxusbtest.NewLink(maxPacket)
	for i := range 3 {
		stale := muxusb.Packet{Header: muxusb.Header{Protocol: muxusb.ProtoTCP, V2: true, TxSeq: uint16(i)},
			TCP: muxusb.TCPHeader{SrcPort: 62078, DstPort: 1, Seq: 100, Ack: 1, Flags: muxusb.FlagACK, Window: 512}, Payload: []byte("old session")}
		if _, err := l.Device().Out(t.Context(), stale.Append(nil)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		muxusb.Serve(ctx, l.Device(), muxusb.Config{MaxPacket: maxPacket}, echoAll)
	}()
	defer func() { cancel(); <-done }()
	octx, ocancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer ocancel()
	m, err := muxusb.Open(octx, l.Host(), muxusb.Config{MaxPacket: maxPacket})
	if err != nil {
		t.Fatalf("Open after stale packets: %v", err)
	}
	defer m.Close()
	c, err := m.Connect(octx, 7)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte("ping"))
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
		t.Fatalf("echo %q, %v", got, err)
	}
}
