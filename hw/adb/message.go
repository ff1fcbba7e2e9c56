package adb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Command is the first word of an ADB message.
type Command uint32

// The commands of the ADB protocol.
const (
	CmdCNXN Command = 0x4e584e43 // connect: version, max data, "<type>:<serial>:<banner>"
	CmdAUTH Command = 0x48545541 // authentication: type, 0, token, signature or public key
	CmdOPEN Command = 0x4e45504f // open a stream: local id, 0, service name
	CmdOKAY Command = 0x59414b4f // stream ready or data acknowledged: local id, remote id
	CmdWRTE Command = 0x45545257 // stream data: local id, remote id, data
	CmdCLSE Command = 0x45534c43 // stream closed: local id, remote id
	CmdSTLS Command = 0x534c5453 // switch to TLS (not supported)
)

// String returns the command's four letters, or its number when it is
// not one of the protocol's.
func (c Command) String() string {
	switch c {
	case CmdCNXN, CmdAUTH, CmdOPEN, CmdOKAY, CmdWRTE, CmdCLSE, CmdSTLS:
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(c))
		return string(b[:])
	}
	return fmt.Sprintf("0x%08x", uint32(c))
}

// Protocol versions and payload sizes.
const (
	// VersionMin is the first protocol version: every message carries a
	// checksum of its data.
	VersionMin = 0x01000000
	// VersionSkipChecksum and later may leave the checksum zero.
	VersionSkipChecksum = 0x01000001

	// MaxPayload is the largest data this side accepts or sends (adb.h's
	// MAX_PAYLOAD); the connection uses the smaller of both sides' values.
	MaxPayload = 1 << 20
	// MaxPayloadV1 is what a peer of the first version takes.
	MaxPayloadV1 = 4 << 10
	// maxHandshakeData bounds CNXN and AUTH data, before the peer's
	// limit is known (protocol.txt: at most 4096 bytes).
	maxHandshakeData = 4096

	headerSize = 24
)

// AUTH types (arg0 of an AUTH message).
const (
	AuthToken        = 1 // device → host: 20 random bytes to sign
	AuthSignature    = 2 // host → device: the token signed with the host's key
	AuthRSAPublicKey = 3 // host → device: the host's public key, for the owner to allow
)

// Message is one ADB message: a command, its two arguments and its data.
type Message struct {
	Command    Command
	Arg0, Arg1 uint32
	Data       []byte
}

// Errors of the message layer.
var (
	ErrBadMagic    = errors.New("adb: message header is corrupt (magic does not match the command)")
	ErrTooLarge    = errors.New("adb: message data is larger than the connection allows")
	ErrBadChecksum = errors.New("adb: message data does not match its checksum")
)

func checksum(data []byte) uint32 {
	var sum uint32
	for _, b := range data {
		sum += uint32(b)
	}
	return sum
}

// WriteMessage writes m to w as one header and its data. withChecksum
// fills in the data checksum (needed when the peer's version is below
// [VersionSkipChecksum]).
func WriteMessage(w io.Writer, m Message, withChecksum bool) error {
	buf := make([]byte, headerSize+len(m.Data))
	binary.LittleEndian.PutUint32(buf[0:], uint32(m.Command))
	binary.LittleEndian.PutUint32(buf[4:], m.Arg0)
	binary.LittleEndian.PutUint32(buf[8:], m.Arg1)
	binary.LittleEndian.PutUint32(buf[12:], uint32(len(m.Data)))
	if withChecksum {
		binary.LittleEndian.PutUint32(buf[16:], checksum(m.Data))
	}
	binary.LittleEndian.PutUint32(buf[20:], uint32(m.Command)^0xffffffff)
	copy(buf[headerSize:], m.Data)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("adb: write %v: %w", m.Command, err)
	}
	return nil
}

// ReadMessage reads one message from r. Data longer than maxData is
// refused with [ErrTooLarge] before it is read. A nonzero checksum must
// match the data; a zero one is taken as "not sent" unless
// requireChecksum (the peer's version is below [VersionSkipChecksum]).
func ReadMessage(r io.Reader, maxData uint32, requireChecksum bool) (Message, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Message{}, err
	}
	m := Message{
		Command: Command(binary.LittleEndian.Uint32(h[0:])),
		Arg0:    binary.LittleEndian.Uint32(h[4:]),
		Arg1:    binary.LittleEndian.Uint32(h[8:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	check := binary.LittleEndian.Uint32(h[16:])
	if binary.LittleEndian.Uint32(h[20:]) != uint32(m.Command)^0xffffffff {
		return Message{}, ErrBadMagic
	}
	if n > maxData {
		return Message{}, fmt.Errorf("%w: %v with %d bytes (at most %d)", ErrTooLarge, m.Command, n, maxData)
	}
	if n > 0 {
		m.Data = make([]byte, n)
		if _, err := io.ReadFull(r, m.Data); err != nil {
			return Message{}, fmt.Errorf("adb: read %v data: %w", m.Command, noEOF(err))
		}
	}
	if (check != 0 || requireChecksum) && check != checksum(m.Data) {
		return Message{}, fmt.Errorf("%w: %v", ErrBadChecksum, m.Command)
	}
	return m, nil
}

// noEOF turns a clean EOF in the middle of a message into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
