package interop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"testing"

	ios "github.com/danielpaulus/go-ios/ios"
	gohttp "github.com/danielpaulus/go-ios/ios/http"
	goxpc "github.com/danielpaulus/go-ios/ios/xpc"
	"golang.org/x/net/http2"

	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

func tcpPair(t *testing.T) (client, device net.Conn) {
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

// TestRemoteXPCGoIOSClient: go-ios's HTTP/2 + XPC client (the code its
// RSD and CoreDevice services use) against our device side: its
// handshake, our RSD-style push on the root stream, its request with
// WANTING_REPLY, our reply on the reply stream (3 MB, many frames).
func TestRemoteXPCGoIOSClient(t *testing.T) {
	client, device := tcpPair(t)
	ctx := context.Background()
	big := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 3<<20/4)
	errc := make(chan error, 1)
	go func() {
		d, err := remotexpc.Accept(ctx, device)
		if err != nil {
			errc <- err
			return
		}
		hs := xpc.Dict{
			{Key: "MessageType", Value: "Handshake"},
			{Key: "MessagingProtocolVersion", Value: uint64(7)},
			{Key: "Properties", Value: xpc.Dict{{Key: "UniqueDeviceID", Value: udid}}},
			{Key: "Services", Value: xpc.Dict{{Key: "com.apple.coredevice.appservice", Value: xpc.Dict{{Key: "Port", Value: "53001"}}}}},
		}
		if err := d.SendOn(ctx, remotexpc.RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, ID: 1, Body: hs}); err != nil {
			errc <- err
			return
		}
		_, m, err := d.Receive(ctx)
		if err != nil {
			errc <- err
			return
		}
		if m.Flags&xpc.FlagWantingReply == 0 || m.Body.String("command") != "PULL" {
			errc <- fmt.Errorf("request %#v", m)
			return
		}
		errc <- d.SendOn(ctx, remotexpc.ReplyStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent | xpc.FlagReply, ID: m.ID,
			Body: xpc.Dict{{Key: "command", Value: "PULL_REPLY"}, {Key: "image", Value: big}}})
	}()

	h, err := gohttp.NewHttpConnection(client)
	if err != nil {
		t.Fatal(err)
	}
	x, err := ios.CreateXpcConnection(h)
	if err != nil {
		t.Fatalf("go-ios handshake against our device side: %v", err)
	}
	hs, err := x.ReceiveOnClientServerStream()
	if err != nil {
		t.Fatal(err)
	}
	props, _ := hs["Properties"].(map[string]interface{})
	if hs["MessageType"] != "Handshake" || props["UniqueDeviceID"] != udid {
		t.Errorf("go-ios read the handshake as %#v", hs)
	}
	if err := x.Send(map[string]interface{}{"command": "PULL", "pasteboardName": "general"}, goxpc.HeartbeatRequestFlag); err != nil {
		t.Fatal(err)
	}
	reply, err := x.ReceiveOnServerClientStream()
	if err != nil {
		t.Fatalf("go-ios reading our reply: %v", err)
	}
	if reply["command"] != "PULL_REPLY" || !bytes.Equal(reply["image"].([]byte), big) {
		t.Errorf("go-ios read reply %v with %d image bytes", reply["command"], len(reply["image"].([]byte)))
	}
	if err := <-errc; err != nil {
		t.Fatalf("device: %v", err)
	}
}

// TestRemoteXPCOurClient: our client against a device side whose XPC
// codec is go-ios's: go-ios decodes each message our client sends (the
// handshake and a request), and our client decodes go-ios's reply.
func TestRemoteXPCOurClient(t *testing.T) {
	client, device := tcpPair(t)
	seen := make(chan []goxpc.Message, 1)
	go func() {
		defer device.Close()
		pre := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(device, pre); err != nil {
			return
		}
		fr := http2.NewFramer(device, device)
		fr.WriteSettings()
		bufs := map[uint32]*bytes.Buffer{1: {}, 3: {}}
		var got []goxpc.Message
		for len(got) < 4 {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			d, ok := f.(*http2.DataFrame)
			if !ok {
				continue
			}
			bufs[d.StreamID].Write(d.Data())
			m, err := goxpc.DecodeMessage(bufs[d.StreamID])
			if err != nil {
				return
			}
			got = append(got, m)
		}
		var out bytes.Buffer
		goxpc.EncodeMessage(&out, goxpc.Message{Flags: goxpc.AlwaysSetFlag | goxpc.DataFlag | goxpc.HeartbeatReplyFlag, Id: got[3].Id,
			Body: map[string]interface{}{"CoreDevice.output": map[string]interface{}{"ok": true}}})
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, EndHeaders: true})
		fr.WriteData(3, false, out.Bytes())
		seen <- got
		io.Copy(io.Discard, device)
	}()
	ctx := context.Background()
	c, err := remotexpc.Dial(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Request(ctx, xpc.Dict{{Key: "CoreDevice.featureIdentifier", Value: "com.apple.coredevice.feature.getdeviceinfo"}})
	if err != nil {
		t.Fatalf("our Request against go-ios's codec: %v", err)
	}
	if !reply.Dict("CoreDevice.output").Bool("ok") {
		t.Errorf("reply %#v", reply)
	}
	got := <-seen
	wantFlags := []uint32{goxpc.AlwaysSetFlag, 0x201, goxpc.AlwaysSetFlag | goxpc.InitHandshakeFlag, goxpc.AlwaysSetFlag | goxpc.DataFlag | goxpc.HeartbeatRequestFlag}
	for i, m := range got {
		if m.Flags != wantFlags[i] {
			t.Errorf("message %d: go-ios read flags %#x, want %#x", i, m.Flags, wantFlags[i])
		}
	}
	// (go-ios's decoder does not return message ids, so they are not compared.)
	if got[3].Body["CoreDevice.featureIdentifier"] != "com.apple.coredevice.feature.getdeviceinfo" {
		t.Errorf("go-ios read the request as %#v", got[3])
	}
}
