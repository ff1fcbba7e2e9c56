package remotexpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// pair returns two ends of a loopback TCP connection (net.Pipe would
// deadlock: both sides write their SETTINGS before reading).
func pair(t *testing.T) (client, device net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		ch <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	device = <-ch
	t.Cleanup(func() { client.Close(); device.Close() })
	return client, device
}

// TestHandshakeOrder pins the frames a client sends, in order: the device
// refuses other orders ("Invalid or missing remote device connection
// version flags").
func TestHandshakeOrder(t *testing.T) {
	client, device := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := Dial(t.Context(), client)
		done <- err
	}()
	pre := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(device, pre); err != nil || string(pre) != http2.ClientPreface {
		t.Fatalf("preface %q, %v", pre, err)
	}
	fr := http2.NewFramer(device, device)
	type step struct {
		typ    http2.FrameType
		stream uint32
		flags  uint32 // XPC wrapper flags for DATA
		empty  bool   // DATA: payload length 0
	}
	want := []step{
		{http2.FrameSettings, 0, 0, false},
		{http2.FrameWindowUpdate, 0, 0, false},
		{http2.FrameHeaders, 1, 0, false},
		{http2.FrameData, 1, 0x1, false},
		{http2.FrameHeaders, 3, 0, false},
		{http2.FrameData, 1, 0x201, true},
		{http2.FrameData, 3, 0x400001, true},
	}
	for i, w := range want {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		h := f.Header()
		if h.Type != w.typ || h.StreamID != w.stream {
			t.Fatalf("frame %d = %v on stream %d, want %v on %d", i, h.Type, h.StreamID, w.typ, w.stream)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if v, _ := f.Value(http2.SettingInitialWindowSize); v != initialWindow {
				t.Errorf("initial window %d", v)
			}
			if v, _ := f.Value(http2.SettingMaxConcurrentStreams); v != 100 {
				t.Errorf("max streams %d", v)
			}
		case *http2.WindowUpdateFrame:
			if f.Increment != initialWindow-65535 {
				t.Errorf("window increment %d", f.Increment)
			}
		case *http2.DataFrame:
			m, err := xpc.Unmarshal(f.Data())
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			if m.Flags != w.flags || (m.Body == nil) != w.empty || m.ID != 0 {
				t.Errorf("frame %d: message %#v, want flags %#x, empty %v", i, m, w.flags, w.empty)
			}
		}
	}
	fr.WriteSettings()
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := f.(*http2.SettingsFrame); ok && s.IsAck() {
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Dial: %v", err)
	}
}

func TestRequestReply(t *testing.T) {
	client, device := pair(t)
	ctx := t.Context()
	big := bytes.Repeat([]byte("PNG!"), 3<<20/4) // 3 MB: many frames, window refills
	errc := make(chan error, 1)
	go func() {
		d, err := Accept(ctx, device)
		if err != nil {
			errc <- err
			return
		}
		// The device pushes its handshake on the root stream (as RSD does).
		if err := d.SendOn(ctx, RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, ID: 1, Body: xpc.Dict{{Key: "MessageType", Value: "Handshake"}}}); err != nil {
			errc <- err
			return
		}
		s, m, err := d.Receive(ctx)
		if err != nil {
			errc <- err
			return
		}
		if s != RootStream || m.Flags&xpc.FlagWantingReply == 0 || m.Body.String("cmd") != "shot" {
			errc <- errors.New("request not as sent")
			return
		}
		errc <- d.SendOn(ctx, ReplyStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent | xpc.FlagReply, ID: m.ID, Body: xpc.Dict{{Key: "image", Value: big}}})
	}()
	c, err := Dial(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	s, hs, err := c.Receive(ctx)
	if err != nil || s != RootStream || hs.Body.String("MessageType") != "Handshake" {
		t.Fatalf("first message = %d %#v, %v", s, hs, err)
	}
	reply, err := c.Request(ctx, xpc.Dict{{Key: "cmd", Value: "shot"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(reply.Data("image"), big) {
		t.Errorf("reply image of %d bytes, want %d", len(reply.Data("image")), len(big))
	}
	if err := <-errc; err != nil {
		t.Fatalf("device: %v", err)
	}
}

func TestGoAway(t *testing.T) {
	client, device := pair(t)
	go func() {
		d, err := Accept(t.Context(), device)
		if err == nil {
			d.wmu.Lock()
			d.fr.WriteGoAway(0, http2.ErrCodeInternal, nil)
			d.wmu.Unlock()
		}
	}()
	c, err := Dial(t.Context(), client)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Request(t.Context(), xpc.Dict{{Key: "k", Value: "v"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Request after GOAWAY = %v, want ErrClosed", err)
	}
}

func TestReceiveCancelled(t *testing.T) {
	client, device := pair(t)
	go Accept(t.Context(), device)
	c, err := Dial(t.Context(), client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, _, err := c.Receive(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Receive = %v, want DeadlineExceeded", err)
	}
}

func TestDialNotHTTP2(t *testing.T) {
	client, device := pair(t)
	go func() {
		io.ReadFull(device, make([]byte, len(http2.ClientPreface)))
		device.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	}()
	if _, err := Dial(t.Context(), client); err == nil {
		t.Error("Dial against an HTTP/1 server succeeded")
	}
}

func TestMalformedMessage(t *testing.T) {
	client, device := pair(t)
	go func() {
		d, err := Accept(t.Context(), device)
		if err != nil {
			return
		}
		d.wmu.Lock()
		d.fr.WriteData(ReplyStream, false, bytes.Repeat([]byte{0xAA}, 30))
		d.wmu.Unlock()
	}()
	c, err := Dial(t.Context(), client)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Receive(t.Context()); !errors.Is(err, xpc.ErrMalformed) {
		t.Errorf("Receive of garbage = %v, want xpc.ErrMalformed", err)
	}
}
