package mediastream

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// capturedBlob is the uncompressed media blob of an offer Xcode sent to a
// phone (session id 2368635137, LTRP on, FEC off), as go-ios's
// ios/display/offer_test.go pins it (https://github.com/danielpaulus/go-ios,
// MIT, Copyright (c) 2019 danielpaulus; the capture is also in
// pymobiledevice3's media_stream_offer.py). The phone rejects any drift with
// "Invalid Parameter", so this is the encoder's contract.
const capturedBlob = "080110012a7f088182bae90810001a3f087b120a0801100118c387032000120a" +
	"0801100218c387032000120a0801100118c387032000120a0801100218c38703" +
	"20001a09464c533b53573a313b20011a2e0864120a0801100118c38703200012" +
	"0a0801100218c3870320001a10464c533b565241453a303b53573a313b200e38" +
	"01403f6001320d56696365726f7920312e372e3040004a0908ea1f1000188080" +
	"014a0b080010c0d1e123188080204a0a08001080b489131880604a0508101084" +
	"204a0b08001080dac409188080064a05080410e4324a0b080010809bee021880" +
	"80084a0b08001080c2d72f188080404a0b080010808ece1c188080104a050801" +
	"10ab026880c0dd87d2a0c0e9ed017002800100900101"

func TestMediaBlobMatchesCapture(t *testing.T) {
	got := MediaBlob(BlobParams{SessionID: 2368635137, LTRP: true, FEC: false})
	if hex.EncodeToString(got) != capturedBlob {
		t.Errorf("media blob drifted from the Xcode capture\n got %x\nwant %s", got, capturedBlob)
	}
	if def := MediaBlob(DefaultBlob(2368635137)); bytes.Equal(def, got) {
		t.Error("the default blob (LTRP off, FEC on) equals the capture's flags")
	}
}

func TestPadded(t *testing.T) {
	for _, tc := range []struct {
		v     uint64
		width int
		want  string
	}{{0, 5, "8080808000"}, {1, 3, "818000"}, {300, 2, "ac02"}, {2368635137, 5, "8182bae908"}} {
		if got := hex.EncodeToString(padded(tc.v, tc.width)); got != tc.want {
			t.Errorf("padded(%d, %d) = %s, want %s", tc.v, tc.width, got, tc.want)
		}
	}
}

func TestOffer(t *testing.T) {
	id, _ := xpc.ParseUUID("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	b, err := Offer(id, DefaultBlob(7))
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOffer(b)
	if err != nil {
		t.Fatal(err)
	}
	if o.CallID != "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE" || o.Mode != 5 || !bytes.Equal(o.MediaBlob, MediaBlob(DefaultBlob(7))) ||
		!bytes.Contains(o.Endpoint, []byte("Mac15,9")) {
		t.Errorf("offer = %+v", o)
	}
	if _, err := ParseOffer([]byte("bplist00junk")); err == nil {
		t.Error("ParseOffer(junk) = nil")
	}
}

func TestStartRoundTrip(t *testing.T) {
	s := Start{
		Receiver: netip.MustParseAddrPort("[fd00::2]:49152"), Sender: netip.MustParseAddr("fd00::1"),
		ClientSessionID: xpc.UUID{1, 2, 3}, Offer: []byte("offer"),
	}
	in := s.Input()
	back, err := ParseStart(in)
	s.DisplayID = 1
	if err != nil || back.Receiver != s.Receiver || back.Sender != s.Sender || back.ClientSessionID != s.ClientSessionID ||
		back.DisplayID != 1 || string(back.Offer) != "offer" {
		t.Errorf("ParseStart = %+v, %v", back, err)
	}
	in = in.Set("receiverPort", int64(49152))
	if _, err := ParseStart(in); err == nil {
		t.Error("ParseStart took an int64 receiverPort")
	}
	a := Answer{ClientSessionID: xpc.UUID{9}, SourcePort: 5000, LocalSSRC: 11, RemoteSSRC: 22, PayloadType: HEVCPayloadType}
	if got, err := ParseAnswer(a.Output()); err != nil || got != a {
		t.Errorf("ParseAnswer = %+v, %v", got, err)
	}
	if _, err := ParseAnswer(xpc.Dict{}); err == nil {
		t.Error("ParseAnswer(empty) = nil")
	}
	if id, ok := ParseStop(StopInput(xpc.UUID{9})); !ok || id != (xpc.UUID{9}) {
		t.Errorf("ParseStop = %v, %v", id, ok)
	}
	if n, err := Sessions(xpc.Dict{{Key: "sessions", Value: []any{xpc.Dict{}}}}); err != nil || n != 1 {
		t.Errorf("Sessions = %d, %v", n, err)
	}
}

func TestPackets(t *testing.T) {
	b := RTP(HEVCPayloadType, true, 65535, 90000, 0xdeadbeef, []byte{1, 2})
	p, err := ParsePacket(b)
	if err != nil || p.RTCP || p.PayloadType != HEVCPayloadType || !p.Marker || p.Seq != 65535 || p.SSRC != 0xdeadbeef || !bytes.Equal(p.Payload, []byte{1, 2}) {
		t.Errorf("ParsePacket = %+v, %v", p, err)
	}
	rr := ReceiverReport(1, 2, 70000)
	// The bytes the research notes (81 C9 0007 <ours> <theirs> 0 0 seq 0 0 0, then SDES 81 CA 0002 <ours> 01 00 00 00).
	want := "81c9000700000001000000020000000000011170000000000000000000000000" + "81ca00020000000101000000"
	if hex.EncodeToString(rr) != want {
		t.Errorf("ReceiverReport\n got %x\nwant %s", rr, want)
	}
	if p, err := ParsePacket(rr); err != nil || !p.RTCP {
		t.Errorf("ParsePacket(RR) = %+v, %v", p, err)
	}
	if r, err := ParseReceiverReport(rr); err != nil || r != (Report{1, 2, 70000}) {
		t.Errorf("ParseReceiverReport = %+v, %v", r, err)
	}
	for _, bad := range [][]byte{nil, {0x40, 0, 0, 0, 0, 0, 0, 0}, {0x80, 100, 0, 0, 0, 0, 0, 0, 0}, {0x91, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if _, err := ParsePacket(bad); err == nil {
			t.Errorf("ParsePacket(% x) = nil", bad)
		}
	}
}

func FuzzParsePacket(f *testing.F) {
	f.Add(RTP(123, false, 1, 2, 3, []byte("x")))
	f.Add(ReceiverReport(1, 2, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePacket(b)
		if err == nil && !p.RTCP && len(p.Payload) > len(b) {
			t.Fatal("payload longer than the packet")
		}
	})
}
