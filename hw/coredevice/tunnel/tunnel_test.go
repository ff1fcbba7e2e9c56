package tunnel

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

var (
	hostAddr   = netip.MustParseAddr("fd35:d15d:9fa1::2")
	deviceAddr = netip.MustParseAddr("fd35:d15d:9fa1::1")
)

// link joins a host and a device network through a stream that, like the
// CDTunnel TLS stream, has no packet boundaries (a Unix socket pair).
func link(t *testing.T) (host, device *Network) {
	t.Helper()
	a, b := socketPair(t)
	var err error
	host, err = New(a, Config{Local: hostAddr, PrefixLen: 64, Peer: deviceAddr, MTU: 16000})
	if err != nil {
		t.Fatal(err)
	}
	device, err = New(b, Config{Local: deviceAddr, PrefixLen: 64, Peer: hostAddr, MTU: 16000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close(); device.Close() })
	return host, device
}

func socketPair(t *testing.T) (net.Conn, net.Conn) {
	path := t.TempDir() + "/s"
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() { c, _ := ln.Accept(); ch <- c }()
	a, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return a, <-ch
}

func TestTCP(t *testing.T) {
	host, device := link(t)
	ln, err := device.ListenTCP(58783)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := host.DialTCP(ctx, 58783)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.LocalAddr().(*net.TCPAddr).AddrPort().Addr(); got != hostAddr {
		t.Errorf("local address %v, want %v", got, hostAddr)
	}
	want := make([]byte, 1<<20)
	rand.Read(want)
	go c.Write(want)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("echoed bytes differ")
	}
}

func TestDialRefused(t *testing.T) {
	host, _ := link(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := host.DialTCP(ctx, 1); err == nil {
		t.Error("dial to a closed port succeeded")
	}
}

// TestUDP is the media path: the device sends RTP-sized datagrams to a
// port the host bound first, and the host answers (RTCP) to the device.
func TestUDP(t *testing.T) {
	host, device := link(t)
	hc, err := host.ListenUDP(0)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	port := uint16(hc.LocalAddr().(*net.UDPAddr).Port)
	dc, err := device.ListenUDP(5000)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	for i := range 20 {
		p := bytes.Repeat([]byte{byte(i)}, 1200)
		if _, err := dc.WriteTo(p, device.UDPAddr(port)); err != nil {
			t.Fatal(err)
		}
	}
	hc.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 2000)
	for i := range 20 {
		n, from, err := hc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if n != 1200 || buf[0] != byte(i) || from.(*net.UDPAddr).Port != 5000 {
			t.Errorf("datagram %d: %d bytes of %d from %v", i, n, buf[0], from)
		}
	}
	if _, err := hc.WriteTo([]byte("rtcp"), host.UDPAddr(5000)); err != nil {
		t.Fatal(err)
	}
	dc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, _, err := dc.ReadFrom(buf); err != nil || string(buf[:n]) != "rtcp" {
		t.Errorf("device read %q, %v", buf[:n], err)
	}
}

func TestStreamEnds(t *testing.T) {
	a, b := socketPair(t)
	n, err := New(a, Config{Local: hostAddr, PrefixLen: 64, Peer: deviceAddr, MTU: 1500})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	b.Close()
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("network still up after its stream ended")
	}
	if !errors.Is(n.Err(), io.EOF) {
		t.Errorf("Err = %v, want EOF", n.Err())
	}
	if _, err := n.DialTCP(t.Context(), 80); err == nil {
		t.Error("dial on a dead network succeeded")
	}
}

// TestDownDuringDial: a dial waiting for its SYN's answer ends when the
// network goes down.
func TestDownDuringDial(t *testing.T) {
	a, b := socketPair(t)
	defer b.Close()
	n, err := New(a, Config{Local: hostAddr, PrefixLen: 64, Peer: deviceAddr, MTU: 1500})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := n.DialTCP(t.Context(), 80) // nobody answers on b
		errc <- err
	}()
	// The SYN on the stream shows the dial is waiting.
	if _, err := io.ReadFull(b, make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	n.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("dial succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("dial still waiting after Close")
	}
}

func TestMalformedPacketEndsNetwork(t *testing.T) {
	a, b := socketPair(t)
	n, err := New(a, Config{Local: hostAddr, PrefixLen: 64, Peer: deviceAddr, MTU: 1500})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	b.Write(append([]byte{0x45}, make([]byte, 39)...)) // IPv4
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("network still up after a malformed packet")
	}
	if n.Err() == nil || errors.Is(n.Err(), io.EOF) {
		t.Errorf("Err = %v, want a framing error", n.Err())
	}
}

func TestConfig(t *testing.T) {
	a, _ := socketPair(t)
	if _, err := New(a, Config{Local: netip.MustParseAddr("10.0.0.1"), Peer: deviceAddr}); err == nil {
		t.Error("New with an IPv4 address succeeded")
	}
}
