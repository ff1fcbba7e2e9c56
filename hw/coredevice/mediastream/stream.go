package mediastream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// Service is DisplayService; its features and actions follow.
const Service = "com.apple.coredevice.displayservice"

// Features and actions (without the com.apple.coredevice.feature. and
// .action. prefixes the CoreDevice envelope adds).
const (
	StartFeature  = "startmediastream"
	StartAction   = "mediastreamstart"
	StatusFeature = "getmediastreamserverstatus"
	StatusAction  = "mediastreamstatus"
	StopFeature   = "stopmediastream"
	StopAction    = "mediastreamstop"
)

// Start is what a stream start asks for. The receiver's UDP socket must be
// bound before the request: the phone sends as soon as it answers.
type Start struct {
	Receiver        netip.AddrPort // the host's tunnel address and bound UDP port
	Sender          netip.Addr     // the phone's tunnel address
	DisplayID       int64          // 0: the main display (1)
	ClientSessionID xpc.UUID
	Offer           []byte // from Offer
}

// clientSupportedFeatures is devicectl's host feature mask.
const clientSupportedFeatures = 140

// Input is startmediastream's CoreDevice input. Typed option values are
// wrapped in their type's name ({int: 1}); the timeout is the phone's own
// for its side of the negotiation, in seconds.
func (s Start) Input() xpc.Dict {
	display := s.DisplayID
	if display == 0 {
		display = 1
	}
	return xpc.Dict{
		{Key: "clientSupportedFeatures", Value: uint64(clientSupportedFeatures)},
		{Key: "direction", Value: "output"},
		{Key: "negotiatorOffer", Value: s.Offer},
		{Key: "options", Value: xpc.Dict{
			{Key: "AVCMediaStreamNegotiatorAccessNetworkType", Value: xpc.Dict{{Key: "int", Value: int64(1)}}},
			{Key: "AVCMediaStreamNegotiatorTransportProtocolType", Value: xpc.Dict{{Key: "int", Value: int64(2)}}},
			{Key: "CoreDeviceVideoDisplayMode", Value: xpc.Dict{{Key: "string", Value: "DisplayByID"}}},
			{Key: "VideoStreamForDisplayID", Value: xpc.Dict{{Key: "int", Value: display}}},
			{Key: "avcMediaStreamOptionClientSessionID", Value: xpc.Dict{{Key: "uuid", Value: s.ClientSessionID}}},
		}},
		{Key: "receiverIP", Value: s.Receiver.Addr().String()},
		{Key: "receiverPort", Value: uint64(s.Receiver.Port())},
		{Key: "senderIP", Value: s.Sender.String()},
		{Key: "timeout", Value: uint64(20)},
		{Key: "type", Value: "video"},
	}
}

// ParseStart reads a start input back (the fake phone uses it).
func ParseStart(in xpc.Dict) (Start, error) {
	var s Start
	recv, err := netip.ParseAddr(in.String("receiverIP"))
	if err != nil {
		return s, fmt.Errorf("mediastream: receiverIP %q: %w", in.String("receiverIP"), err)
	}
	pv, _ := in.Get("receiverPort")
	port, ok := pv.(uint64)
	if !ok || port == 0 || port > 65535 {
		return s, fmt.Errorf("mediastream: receiverPort %T %v, want a uint64 port", pv, pv)
	}
	s.Receiver = netip.AddrPortFrom(recv, uint16(port))
	if s.Sender, err = netip.ParseAddr(in.String("senderIP")); err != nil {
		return s, fmt.Errorf("mediastream: senderIP %q: %w", in.String("senderIP"), err)
	}
	if n, _ := in.Uint("clientSupportedFeatures"); n != clientSupportedFeatures || in.String("type") != "video" || in.String("direction") != "output" {
		return s, fmt.Errorf("mediastream: not a video output stream request")
	}
	opts := in.Dict("options")
	id, _ := opts.Dict("avcMediaStreamOptionClientSessionID").Get("uuid")
	if s.ClientSessionID, ok = id.(xpc.UUID); !ok {
		return s, fmt.Errorf("mediastream: client session id is %T", id)
	}
	d, _ := opts.Dict("VideoStreamForDisplayID").Get("int")
	s.DisplayID, _ = d.(int64)
	s.Offer = in.Data("negotiatorOffer")
	return s, nil
}

// Answer is what the phone agreed to.
type Answer struct {
	ClientSessionID xpc.UUID
	SourcePort      uint16 // the phone's RTP/RTCP port (RTCP feedback goes there)
	LocalSSRC       uint32 // the phone's SSRC
	RemoteSSRC      uint32 // ours
	PayloadType     uint8  // 123 HEVC, 100 AVC
}

// number reads an integer that may be wrapped in its type's name.
func number(d xpc.Dict, key string) (uint64, bool) {
	if n, ok := d.Uint(key); ok {
		return n, true
	}
	w := d.Dict(key)
	for _, k := range []string{"uint", "int"} {
		if n, ok := w.Uint(k); ok {
			return n, true
		}
	}
	return 0, false
}

// ParseAnswer reads startmediastream's output: connection.options' client
// session id and connection.streamConfig.
func ParseAnswer(out xpc.Dict) (Answer, error) {
	conn := out.Dict("connection")
	if conn == nil {
		return Answer{}, fmt.Errorf("mediastream: answer has no connection (keys %v)", keys(out))
	}
	var a Answer
	idv, _ := conn.Dict("options").Dict("avcMediaStreamOptionClientSessionID").Get("uuid")
	switch id := idv.(type) {
	case xpc.UUID:
		a.ClientSessionID = id
	case string:
		u, err := xpc.ParseUUID(id)
		if err != nil {
			return Answer{}, fmt.Errorf("mediastream: answer session id %q: %w", id, err)
		}
		a.ClientSessionID = u
	}
	sc := conn.Dict("streamConfig")
	port, ok := number(sc, "SourcePort")
	if !ok || port == 0 || port > 65535 {
		return Answer{}, fmt.Errorf("mediastream: answer has no SourcePort (streamConfig keys %v)", keys(sc))
	}
	a.SourcePort = uint16(port)
	l, _ := number(sc, "LocalSSRC")
	r, _ := number(sc, "RemoteSSRC")
	pt, _ := number(sc, "RxPayloadType")
	a.LocalSSRC, a.RemoteSSRC, a.PayloadType = uint32(l), uint32(r), uint8(pt)
	return a, nil
}

// Output is the start answer a phone sends for a (the fake phone's).
func (a Answer) Output() xpc.Dict {
	return xpc.Dict{{Key: "connection", Value: xpc.Dict{
		{Key: "options", Value: xpc.Dict{{Key: "avcMediaStreamOptionClientSessionID", Value: xpc.Dict{{Key: "uuid", Value: a.ClientSessionID}}}}},
		{Key: "streamConfig", Value: xpc.Dict{
			{Key: "SourcePort", Value: uint64(a.SourcePort)},
			{Key: "LocalSSRC", Value: uint64(a.LocalSSRC)},
			{Key: "RemoteSSRC", Value: uint64(a.RemoteSSRC)},
			{Key: "RxPayloadType", Value: uint64(a.PayloadType)},
			{Key: "RTCPTimeoutEnabled", Value: true},
		}},
	}}}
}

// StopInput stops the stream with the given client session id.
func StopInput(id xpc.UUID) xpc.Dict {
	return xpc.Dict{{Key: "avcMediaStreamOptionClientSessionID", Value: xpc.Dict{{Key: "uuid", Value: id}}}}
}

// ParseStop returns the session a stop input names.
func ParseStop(in xpc.Dict) (xpc.UUID, bool) {
	v, _ := in.Dict("avcMediaStreamOptionClientSessionID").Get("uuid")
	id, ok := v.(xpc.UUID)
	return id, ok
}

// Sessions counts the streams getmediastreamserverstatus reports.
func Sessions(out xpc.Dict) (int, error) {
	v, ok := out.Get("sessions")
	if !ok {
		return 0, fmt.Errorf("mediastream: status has no sessions (keys %v)", keys(out))
	}
	a, ok := v.([]any)
	if !ok {
		return 0, fmt.Errorf("mediastream: status sessions is %T", v)
	}
	return len(a), nil
}

func keys(d xpc.Dict) []string {
	k := make([]string, len(d))
	for i, e := range d {
		k[i] = e.Key
	}
	return k
}

// ErrNotRTP is wrapped for datagrams that are neither RTP nor RTCP.
var ErrNotRTP = errors.New("mediastream: not an RTP packet")

// Packet is an RTP packet's header fields the keep-alive needs.
type Packet struct {
	RTCP        bool // an RTCP packet (payload types 64..95 with the marker bit)
	PayloadType uint8
	Marker      bool
	Seq         uint16
	Timestamp   uint32
	SSRC        uint32
	Payload     []byte
}

// ParsePacket reads an RTP or RTCP datagram (version 2; CSRCs and a
// header extension are skipped).
func ParsePacket(b []byte) (Packet, error) {
	if len(b) < 8 || b[0]>>6 != 2 {
		return Packet{}, fmt.Errorf("%w (% x)", ErrNotRTP, b[:min(len(b), 4)])
	}
	if pt := b[1] & 0x7F; pt >= 64 && pt <= 95 {
		return Packet{RTCP: true, PayloadType: b[1], SSRC: binary.BigEndian.Uint32(b[4:])}, nil
	}
	if len(b) < 12 {
		return Packet{}, fmt.Errorf("%w: %d bytes", ErrNotRTP, len(b))
	}
	p := Packet{PayloadType: b[1] & 0x7F, Marker: b[1]&0x80 != 0, Seq: binary.BigEndian.Uint16(b[2:]),
		Timestamp: binary.BigEndian.Uint32(b[4:]), SSRC: binary.BigEndian.Uint32(b[8:])}
	off := 12 + 4*int(b[0]&0x0F)
	if b[0]&0x10 != 0 {
		if len(b) < off+4 {
			return Packet{}, fmt.Errorf("%w: truncated extension", ErrNotRTP)
		}
		off += 4 + 4*int(binary.BigEndian.Uint16(b[off+2:]))
	}
	if len(b) < off {
		return Packet{}, fmt.Errorf("%w: header of %d bytes in %d", ErrNotRTP, off, len(b))
	}
	p.Payload = b[off:]
	return p, nil
}

// RTP builds an RTP packet (the fake phone's stream).
func RTP(pt uint8, marker bool, seq uint16, ts, ssrc uint32, payload []byte) []byte {
	b := make([]byte, 12, 12+len(payload))
	b[0] = 0x80
	b[1] = pt & 0x7F
	if marker {
		b[1] |= 0x80
	}
	binary.BigEndian.PutUint16(b[2:], seq)
	binary.BigEndian.PutUint32(b[4:], ts)
	binary.BigEndian.PutUint32(b[8:], ssrc)
	return append(b, payload...)
}

// Receiver-report packet types.
const (
	rtcpRR   = 201
	rtcpSDES = 202
)

// ReceiverReport is the compound RTCP keep-alive the host sends about
// once a second to the phone's SourcePort: a receiver report with one
// block about the phone's stream (no loss, the extended highest sequence
// number) and an SDES with an empty CNAME. Without it the phone's
// encoder stalls after about 25 s.
func ReceiverReport(ours, theirs, extHighestSeq uint32) []byte {
	b := make([]byte, 0, 44)
	b = append(b, 0x81, rtcpRR, 0, 7)
	b = binary.BigEndian.AppendUint32(b, ours)
	b = binary.BigEndian.AppendUint32(b, theirs)
	b = binary.BigEndian.AppendUint32(b, 0) // fraction lost, cumulative lost
	b = binary.BigEndian.AppendUint32(b, extHighestSeq)
	b = append(b, make([]byte, 12)...) // jitter, LSR, DLSR
	b = append(b, 0x81, rtcpSDES, 0, 2)
	b = binary.BigEndian.AppendUint32(b, ours)
	return append(b, 1, 0, 0, 0) // CNAME of length 0, end, padding
}

// Report is a parsed ReceiverReport.
type Report struct {
	From, About, ExtHighestSeq uint32
}

// ParseReceiverReport reads the receiver report at the start of a
// compound RTCP packet.
func ParseReceiverReport(b []byte) (Report, error) {
	if len(b) < 32 || b[0] != 0x81 || b[1] != rtcpRR || binary.BigEndian.Uint16(b[2:]) != 7 {
		return Report{}, fmt.Errorf("mediastream: not a receiver report (% x)", b[:min(len(b), 4)])
	}
	return Report{From: binary.BigEndian.Uint32(b[4:]), About: binary.BigEndian.Uint32(b[8:]), ExtHighestSeq: binary.BigEndian.Uint32(b[16:])}, nil
}
