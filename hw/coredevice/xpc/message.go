package xpc

import (
	"fmt"
	"io"
)

// Wrapper and payload magics and the payload version.
const (
	wrapperMagic   uint32 = 0x29B00B92
	payloadMagic   uint32 = 0x42133742
	payloadVersion uint32 = 5
)

// HeaderSize is the size of a message wrapper before its payload.
const HeaderSize = 24

// MaxPayload bounds a message's payload. Screenshots are the largest
// messages CoreDevice sends (a PNG of a few MB).
const MaxPayload = 64 << 20

// Flags of a message wrapper.
const (
	FlagAlwaysSet       uint32 = 0x00000001
	FlagPing            uint32 = 0x00000002
	FlagDataPresent     uint32 = 0x00000100
	FlagWantingReply    uint32 = 0x00010000
	FlagReply           uint32 = 0x00020000
	FlagFileTxRequest   uint32 = 0x00100000
	FlagFileTxResponse  uint32 = 0x00200000
	FlagInitHandshake   uint32 = 0x00400000
	flagHandshakeFollow uint32 = 0x00000200
)

// FlagHandshakeFollowUp is the 0x200 bit the host sets on the last
// handshake message of a RemoteXPC connection (sent as 0x201).
const FlagHandshakeFollowUp = flagHandshakeFollow

// Message is one RemoteXPC message: a wrapper and an optional root
// dictionary. A nil Body is a message without payload (body length 0); an
// empty non-nil Body is an empty dictionary.
type Message struct {
	Flags uint32
	ID    uint64
	Body  Dict
}

// Append appends m's wire form to b.
func (m Message) Append(b []byte) ([]byte, error) {
	start := len(b)
	b = le.AppendUint32(b, wrapperMagic)
	b = le.AppendUint32(b, m.Flags)
	b = le.AppendUint64(b, 0) // payload length, patched below
	b = le.AppendUint64(b, m.ID)
	if m.Body == nil {
		return b, nil
	}
	b = le.AppendUint32(b, payloadMagic)
	b = le.AppendUint32(b, payloadVersion)
	b, err := appendDict(b, m.Body, 0)
	if err != nil {
		return b[:start], fmt.Errorf("xpc: encode message: %w", err)
	}
	le.PutUint64(b[start+8:], uint64(len(b)-start-HeaderSize))
	return b, nil
}

// Marshal returns m's wire form.
func (m Message) Marshal() ([]byte, error) { return m.Append(nil) }

// PayloadLen returns the payload length a wrapper header declares, or an
// error when hdr is not a wrapper header or declares more than MaxPayload.
func PayloadLen(hdr []byte) (int, error) {
	if len(hdr) < HeaderSize {
		return 0, fmt.Errorf("%w: header of %d bytes, want %d", ErrMalformed, len(hdr), HeaderSize)
	}
	if m := le.Uint32(hdr); m != wrapperMagic {
		return 0, fmt.Errorf("%w: wrapper magic 0x%08x, want 0x%08x", ErrMalformed, m, wrapperMagic)
	}
	n := le.Uint64(hdr[8:])
	if n > MaxPayload {
		return 0, fmt.Errorf("%w: payload of %d bytes exceeds %d", ErrMalformed, n, MaxPayload)
	}
	return int(n), nil
}

// Unmarshal decodes one whole message that fills b exactly.
func Unmarshal(b []byte) (Message, error) {
	n, err := PayloadLen(b)
	if err != nil {
		return Message{}, err
	}
	if len(b) != HeaderSize+n {
		return Message{}, fmt.Errorf("%w: message of %d bytes declares %d", ErrMalformed, len(b), HeaderSize+n)
	}
	m := Message{Flags: le.Uint32(b[4:]), ID: le.Uint64(b[16:])}
	if n == 0 {
		return m, nil
	}
	p := b[HeaderSize:]
	if n < 8 {
		return Message{}, fmt.Errorf("%w: payload of %d bytes has no header", ErrMalformed, n)
	}
	if mg := le.Uint32(p); mg != payloadMagic {
		return Message{}, fmt.Errorf("%w: payload magic 0x%08x, want 0x%08x", ErrMalformed, mg, payloadMagic)
	}
	if v := le.Uint32(p[4:]); v != payloadVersion {
		return Message{}, fmt.Errorf("%w: payload version %d, want %d", ErrMalformed, v, payloadVersion)
	}
	v, err := DecodeObject(p[8:])
	if err != nil {
		return Message{}, fmt.Errorf("xpc: decode message: %w", err)
	}
	d, ok := v.(Dict)
	if !ok {
		return Message{}, fmt.Errorf("%w: root object is %T, not a dictionary", ErrMalformed, v)
	}
	m.Body = d
	return m, nil
}

// ReadMessage reads one message from r.
func ReadMessage(r io.Reader) (Message, error) {
	hdr := make([]byte, HeaderSize)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return Message{}, fmt.Errorf("xpc: read message header: %w", err)
	}
	n, err := PayloadLen(hdr)
	if err != nil {
		return Message{}, err
	}
	b := make([]byte, HeaderSize+n)
	copy(b, hdr)
	if _, err := io.ReadFull(r, b[HeaderSize:]); err != nil {
		return Message{}, fmt.Errorf("xpc: read message payload: %w", err)
	}
	return Unmarshal(b)
}

// WriteMessage writes m to w in one Write.
func WriteMessage(w io.Writer, m Message) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("xpc: write message: %w", err)
	}
	return nil
}
