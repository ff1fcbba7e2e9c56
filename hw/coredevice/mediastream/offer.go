// Package mediastream speaks DisplayService's media stream
// (com.apple.coredevice.displayservice, iOS 27+): the negotiator offer a
// stream start carries, the start, status and stop inputs, the answer,
// and the RTP/RTCP packets of the stream. The box runs a stream only to
// hold dtuhidd's input gate open (HID reports reach UIKit only while this
// client streams); it does not decode the video.
//
// It is pure: building and parsing, no I/O. Wire facts come from go-ios's
// ios/display (MIT, Copyright (c) 2019 danielpaulus; merged after
// v1.3.2), idevice's display_stream (MIT) and appium-ios-remotexpc's
// display service (Apache-2.0); the captured Xcode media blob the tests
// pin is attributed there.
package mediastream

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// The offer's fixed values. The phone rejects any deviation with an
// opaque "Invalid Parameter".
const (
	modeVideo       = 5 // avcMediaStreamNegotiatorMode: 5 video, 6 audio
	decoderName     = "Viceroy 1.7.0"
	codecCapID      = 50115
	hevcFeatures    = "FLS;SW:1;"
	avcFeatures     = "FLS;VRAE:0;SW:1;"
	HEVCPayloadType = 123
	AVCPayloadType  = 100
	// capturedTimestamp is the host clock of the captured offer; the
	// phone does not check it.
	capturedTimestamp = uint64(17137042128614416384)
)

// Host identity the offer reports: Xcode's. A Mac16,11 identity made
// encoders stall (go-ios PR #845).
const (
	hostModel = "Mac15,9"
	hostOS    = "2205.3.1"
	hostBuild = "25F80"
)

type tier struct {
	kind, bps, buffer uint64
	hasBuffer         bool
}

// tiers is the bitrate table in the captured order (the order is part of
// what the phone accepts).
var tiers = []tier{
	{4074, 0, 16384, true},
	{0, 75_000_000, 524288, true},
	{0, 40_000_000, 12288, true},
	{16, 4100, 0, false},
	{0, 20_000_000, 98304, true},
	{4, 6500, 0, false},
	{0, 6_000_000, 131072, true},
	{0, 100_000_000, 1048576, true},
	{0, 60_000_000, 262144, true},
	{1, 299, 0, false},
}

// BlobParams are the media blob's tunable flags.
type BlobParams struct {
	SessionID uint32
	// LTRP (long-term reference pictures) and FEC: go-ios sends LTRP off
	// and FEC on (less tearing under loss); Xcode's capture had the
	// reverse. Both are accepted.
	LTRP, FEC   bool
	AllowRTCPFB bool
	Timestamp   uint64 // 0: the captured value
}

// DefaultBlob is what the box sends: LTRP off, FEC on.
func DefaultBlob(sessionID uint32) BlobParams { return BlobParams{SessionID: sessionID, FEC: true} }

func varint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// padded is v as a varint of exactly width bytes (redundant continuation
// bytes, as Apple writes the session id so it can be patched in place).
func padded(v uint64, width int) []byte {
	v &= 1<<(7*uint(width)) - 1
	b := varint(nil, v)
	for len(b) < width {
		b[len(b)-1] |= 0x80
		b = append(b, 0)
	}
	return b
}

func fieldVarint(b []byte, field, v uint64) []byte { return varint(varint(b, field<<3), v) }

func fieldBytes(b []byte, field uint64, v []byte) []byte {
	return append(varint(varint(b, field<<3|2), uint64(len(v))), v...)
}

func boolVal(x bool) uint64 {
	if x {
		return 1
	}
	return 0
}

func codecBank(pt uint64, features string, trailer uint64, pairs int) []byte {
	b := fieldVarint(nil, 1, pt)
	for i := range pairs {
		e := fieldVarint(nil, 1, 1)
		e = fieldVarint(e, 2, uint64(1+i%2))
		e = fieldVarint(e, 3, codecCapID)
		e = fieldVarint(e, 4, 0)
		b = fieldBytes(b, 2, e)
	}
	b = fieldBytes(b, 3, []byte(features))
	return fieldVarint(b, 4, trailer)
}

// MediaBlob is the uncompressed video media blob protobuf: version
// fields, the video settings (padded session id, RTCP feedback, HEVC and
// AVC codec banks, LTRP, pixel formats, FEC, black frame on clear), the
// decoder name, the bitrate tiers and trailing constants.
func MediaBlob(p BlobParams) []byte {
	vs := append(varint(nil, 1<<3), padded(uint64(p.SessionID), 5)...)
	vs = fieldVarint(vs, 2, boolVal(p.AllowRTCPFB))
	vs = fieldBytes(vs, 3, codecBank(HEVCPayloadType, hevcFeatures, 1, 4))
	vs = fieldBytes(vs, 3, codecBank(AVCPayloadType, avcFeatures, 14, 2))
	vs = fieldVarint(vs, 7, boolVal(p.LTRP))
	vs = fieldVarint(vs, 8, 63)
	if p.FEC {
		vs = fieldVarint(vs, 10, 1)
	}
	vs = fieldVarint(vs, 12, 1)

	b := fieldVarint(nil, 1, 1)
	b = fieldVarint(b, 2, 1)
	b = fieldBytes(b, 5, vs)
	b = fieldBytes(b, 6, []byte(decoderName))
	b = fieldVarint(b, 8, 0)
	for _, t := range tiers {
		e := fieldVarint(nil, 1, t.kind)
		e = fieldVarint(e, 2, t.bps)
		if t.hasBuffer {
			e = fieldVarint(e, 3, t.buffer)
		}
		b = fieldBytes(b, 9, e)
	}
	ts := p.Timestamp
	if ts == 0 {
		ts = capturedTimestamp
	}
	b = fieldVarint(b, 13, ts)
	b = fieldVarint(b, 14, 2)
	b = fieldVarint(b, 16, 0)
	return fieldVarint(b, 18, 1)
}

// endpointInfo describes the host: protobuf {1: 0, 2: 1, 3: model, 4: OS,
// 5: build}.
func endpointInfo() []byte {
	b := fieldVarint(nil, 1, 0)
	b = fieldVarint(b, 2, 1)
	b = fieldBytes(b, 3, []byte(hostModel))
	b = fieldBytes(b, 4, []byte(hostOS))
	return fieldBytes(b, 5, []byte(hostBuild))
}

// Offer is the negotiatorOffer: a binary plist of the host's endpoint
// info, the video mode, the media blob compressed with zlib at best
// compression (the phone rejects other levels) and the call id in upper
// case.
func Offer(callID xpc.UUID, p BlobParams) ([]byte, error) {
	var z bytes.Buffer
	w, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("mediastream: offer: %w", err)
	}
	w.Write(MediaBlob(p))
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("mediastream: offer: %w", err)
	}
	b, err := plist.MarshalBinary(plist.Dict{
		{Key: "avcMediaStreamNegotiatorMediaBlob", Value: z.Bytes()},
		{Key: "avcMediaStreamNegotiatorMode", Value: int64(modeVideo)},
		{Key: "avcMediaStreamOptionCallID", Value: strings.ToUpper(callID.String())},
		{Key: "avcMediaStreamOptionRemoteEndpointInfo", Value: endpointInfo()},
	})
	if err != nil {
		return nil, fmt.Errorf("mediastream: offer: %w", err)
	}
	return b, nil
}

// ParsedOffer is what a phone reads from an offer (the fake phone checks
// it).
type ParsedOffer struct {
	CallID    string
	Mode      int64
	MediaBlob []byte // inflated
	Endpoint  []byte
}

// ParseOffer decodes an offer built by Offer.
func ParseOffer(b []byte) (ParsedOffer, error) {
	d, err := plist.UnmarshalDict(b)
	if err != nil {
		return ParsedOffer{}, fmt.Errorf("mediastream: offer: %w", err)
	}
	var o ParsedOffer
	o.CallID = d.String("avcMediaStreamOptionCallID")
	mode, _ := d.Uint("avcMediaStreamNegotiatorMode")
	o.Mode = int64(mode)
	o.Endpoint = d.Data("avcMediaStreamOptionRemoteEndpointInfo")
	z := d.Data("avcMediaStreamNegotiatorMediaBlob")
	if !bytes.HasPrefix(z, []byte{0x78, 0xDA}) {
		return ParsedOffer{}, fmt.Errorf("mediastream: offer: media blob is not zlib at best compression (% x)", z[:min(2, len(z))])
	}
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return ParsedOffer{}, fmt.Errorf("mediastream: offer: %w", err)
	}
	var blob bytes.Buffer
	if _, err := blob.ReadFrom(r); err != nil {
		return ParsedOffer{}, fmt.Errorf("mediastream: offer: %w", err)
	}
	o.MediaBlob = blob.Bytes()
	if o.CallID == "" || o.CallID != strings.ToUpper(o.CallID) || o.Mode != modeVideo || len(o.Endpoint) == 0 {
		return ParsedOffer{}, fmt.Errorf("mediastream: offer: call id %q, mode %d, endpoint %d bytes", o.CallID, o.Mode, len(o.Endpoint))
	}
	return o, nil
}
