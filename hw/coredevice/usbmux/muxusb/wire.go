package muxusb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Protocol is the protocol field of a mux header.
type Protocol uint32

// The protocols a mux packet carries.
const (
	ProtoVersion Protocol = 0
	ProtoControl Protocol = 1
	ProtoSetup   Protocol = 2
	ProtoTCP     Protocol = 6 // IPPROTO_TCP
)

// Sizes and limits of the wire format.
const (
	headerV1Size  = 8
	headerV2Size  = 16
	tcpHeaderSize = 20
	versionSize   = 12
	magicV2       = 0xfeedface
	// windowShift scales the TCP window field: the field counts 256-byte units.
	windowShift = 8
	// MaxOutPacket is the largest packet sent (usbmuxd's USB_MTU: three
	// 16 KiB URBs).
	MaxOutPacket = 3 * 16384
	// MaxInPacket is the largest packet accepted from the peer
	// (usbmuxd's DEV_MRU).
	MaxInPacket = 65536
	// maxPayload is the most stream data one packet carries.
	maxPayload = MaxOutPacket - headerV2Size - tcpHeaderSize
)

// TCP header flags.
const (
	FlagFIN uint8 = 0x01
	FlagSYN uint8 = 0x02
	FlagRST uint8 = 0x04
	FlagACK uint8 = 0x10
)

// ErrMalformed is wrapped by errors about bytes that are not a mux packet.
var ErrMalformed = errors.New("muxusb: malformed packet")

// Header is a mux packet header. Length counts the whole packet, header
// included; V2 headers carry the magic and the sequence numbers.
type Header struct {
	Protocol     Protocol
	Length       uint32
	V2           bool
	TxSeq, RxSeq uint16
}

func (h Header) size() int {
	if h.V2 {
		return headerV2Size
	}
	return headerV1Size
}

// TCPHeader is the 20-byte TCP header of a ProtoTCP packet. Window is in
// 256-byte units, as on the wire.
type TCPHeader struct {
	SrcPort, DstPort uint16
	Seq, Ack         uint32
	Flags            uint8
	Window           uint16
}

// Version is the body of a VERSION packet.
type Version struct {
	Major, Minor uint32
}

// Packet is one mux packet. TCP is set for ProtoTCP and Version for
// ProtoVersion; Payload is what follows the protocol's own header (stream
// data, the SETUP byte, a CONTROL message), nil when nothing does.
type Packet struct {
	Header  Header
	TCP     TCPHeader
	Version Version
	Payload []byte
}

func (p *Packet) bodyHeaderSize() int {
	switch p.Header.Protocol {
	case ProtoTCP:
		return tcpHeaderSize
	case ProtoVersion:
		return versionSize
	}
	return 0
}

// Append encodes p onto b, filling in Header.Length.
func (p *Packet) Append(b []byte) []byte {
	n := p.Header.size() + p.bodyHeaderSize() + len(p.Payload)
	p.Header.Length = uint32(n)
	b = binary.BigEndian.AppendUint32(b, uint32(p.Header.Protocol))
	b = binary.BigEndian.AppendUint32(b, p.Header.Length)
	if p.Header.V2 {
		b = binary.BigEndian.AppendUint32(b, magicV2)
		b = binary.BigEndian.AppendUint16(b, p.Header.TxSeq)
		b = binary.BigEndian.AppendUint16(b, p.Header.RxSeq)
	}
	switch p.Header.Protocol {
	case ProtoTCP:
		t := p.TCP
		b = binary.BigEndian.AppendUint16(b, t.SrcPort)
		b = binary.BigEndian.AppendUint16(b, t.DstPort)
		b = binary.BigEndian.AppendUint32(b, t.Seq)
		b = binary.BigEndian.AppendUint32(b, t.Ack)
		b = append(b, tcpHeaderSize/4<<4, t.Flags)
		b = binary.BigEndian.AppendUint16(b, t.Window)
		b = append(b, 0, 0, 0, 0) // checksum, urgent pointer
	case ProtoVersion:
		b = binary.BigEndian.AppendUint32(b, p.Version.Major)
		b = binary.BigEndian.AppendUint32(b, p.Version.Minor)
		b = binary.BigEndian.AppendUint32(b, 0)
	}
	return append(b, p.Payload...)
}

// ParsePacket decodes b, which holds exactly one packet; v2 says whether
// the session has moved to 16-byte headers. Payload aliases b.
func ParsePacket(b []byte, v2 bool) (Packet, error) {
	var p Packet
	p.Header.V2 = v2
	hs := p.Header.size()
	if len(b) < hs {
		return p, fmt.Errorf("%w: %d bytes, shorter than a %d-byte header", ErrMalformed, len(b), hs)
	}
	p.Header.Protocol = Protocol(binary.BigEndian.Uint32(b[0:]))
	p.Header.Length = binary.BigEndian.Uint32(b[4:])
	if int64(p.Header.Length) != int64(len(b)) {
		return p, fmt.Errorf("%w: header says %d bytes, packet has %d", ErrMalformed, p.Header.Length, len(b))
	}
	if v2 {
		if m := binary.BigEndian.Uint32(b[8:]); m != magicV2 {
			return p, fmt.Errorf("%w: magic %#x, want %#x", ErrMalformed, m, uint32(magicV2))
		}
		p.Header.TxSeq = binary.BigEndian.Uint16(b[12:])
		p.Header.RxSeq = binary.BigEndian.Uint16(b[14:])
	}
	body := b[hs:]
	switch p.Header.Protocol {
	case ProtoTCP:
		if len(body) < tcpHeaderSize {
			return p, fmt.Errorf("%w: TCP packet of %d bytes has no room for its header", ErrMalformed, len(b))
		}
		if off := int(body[12]>>4) * 4; off != tcpHeaderSize {
			return p, fmt.Errorf("%w: TCP data offset %d, want %d (options are not spoken)", ErrMalformed, off, tcpHeaderSize)
		}
		p.TCP = TCPHeader{
			SrcPort: binary.BigEndian.Uint16(body[0:]),
			DstPort: binary.BigEndian.Uint16(body[2:]),
			Seq:     binary.BigEndian.Uint32(body[4:]),
			Ack:     binary.BigEndian.Uint32(body[8:]),
			Flags:   body[13],
			Window:  binary.BigEndian.Uint16(body[14:]),
		}
		p.Payload = body[tcpHeaderSize:]
	case ProtoVersion:
		if len(body) < versionSize {
			return p, fmt.Errorf("%w: VERSION packet of %d bytes", ErrMalformed, len(b))
		}
		p.Version = Version{Major: binary.BigEndian.Uint32(body[0:]), Minor: binary.BigEndian.Uint32(body[4:])}
		p.Payload = body[versionSize:]
	case ProtoControl, ProtoSetup:
		p.Payload = body
	default:
		return p, fmt.Errorf("%w: unknown protocol %d", ErrMalformed, p.Header.Protocol)
	}
	if len(p.Payload) == 0 {
		p.Payload = nil
	}
	return p, nil
}

// framer cuts the bytes of IN transfers into packets: a packet may span
// transfers, and a transfer may end one packet and start the next.
type framer struct {
	buf []byte
}

func (f *framer) push(b []byte) { f.buf = append(f.buf, b...) }

// dropStale drops the whole packets at the front that are not VERSION
// and returns how many: before its answer to a host's VERSION, a device
// may still send what it had queued for a host session that ended (a box
// that restarted mid-stream), in that session's framing.
func (f *framer) dropStale() int {
	dropped := 0
	for len(f.buf) >= headerV1Size && Protocol(binary.BigEndian.Uint32(f.buf)) != ProtoVersion {
		n := binary.BigEndian.Uint32(f.buf[4:])
		if n < headerV1Size || uint64(n) > uint64(len(f.buf)) {
			break // malformed (next says so), or not whole yet
		}
		f.buf = f.buf[:copy(f.buf, f.buf[n:])]
		dropped++
	}
	return dropped
}

// next returns the next whole packet, or ok false when more bytes are
// needed. An error means the stream cannot be framed any more.
func (f *framer) next(v2 bool) (p Packet, ok bool, err error) {
	if len(f.buf) < headerV1Size {
		return p, false, nil
	}
	n := binary.BigEndian.Uint32(f.buf[4:])
	if Protocol(binary.BigEndian.Uint32(f.buf)) == ProtoVersion {
		v2 = false // a host starting a session says VERSION before it knows the version
	}
	min := uint32(headerV1Size)
	if v2 {
		min = headerV2Size
	}
	if n < min || n > MaxInPacket {
		return p, false, fmt.Errorf("%w: length %d (want %d to %d)", ErrMalformed, n, min, MaxInPacket)
	}
	if uint32(len(f.buf)) < n {
		return p, false, nil
	}
	raw := make([]byte, n)
	copy(raw, f.buf)
	f.buf = f.buf[:copy(f.buf, f.buf[n:])]
	p, err = ParsePacket(raw, v2)
	return p, err == nil, err
}
