package usbmux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Protocol constants of the header.
const (
	headerSize     = 16
	versionPlist   = 1
	messagePlist   = 8
	maxMessageSize = 4 << 20 // pair records and device lists are a few KB
)

// ErrMalformed is wrapped by errors about bytes that are not a usbmuxd
// message.
var ErrMalformed = errors.New("usbmux: malformed message")

// WriteMessage writes one plist message with tag to w.
func WriteMessage(w io.Writer, tag uint32, msg plist.Dict) error {
	body, err := plist.Marshal(msg)
	if err != nil {
		return fmt.Errorf("usbmux: encode %s: %w", msg.String("MessageType"), err)
	}
	b := make([]byte, headerSize, headerSize+len(body))
	binary.LittleEndian.PutUint32(b[0:], uint32(headerSize+len(body)))
	binary.LittleEndian.PutUint32(b[4:], versionPlist)
	binary.LittleEndian.PutUint32(b[8:], messagePlist)
	binary.LittleEndian.PutUint32(b[12:], tag)
	if _, err := w.Write(append(b, body...)); err != nil {
		return fmt.Errorf("usbmux: write %s: %w", msg.String("MessageType"), err)
	}
	return nil
}

// ReadMessage reads one plist message and returns its tag and body.
func ReadMessage(r io.Reader) (uint32, plist.Dict, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, fmt.Errorf("usbmux: read header: %w", err)
	}
	n := binary.LittleEndian.Uint32(h[0:])
	version := binary.LittleEndian.Uint32(h[4:])
	typ := binary.LittleEndian.Uint32(h[8:])
	tag := binary.LittleEndian.Uint32(h[12:])
	if version != versionPlist || typ != messagePlist {
		return 0, nil, fmt.Errorf("%w: version %d, type %d (want %d, %d: the binary protocol is not spoken)", ErrMalformed, version, typ, versionPlist, messagePlist)
	}
	if n < headerSize || n > maxMessageSize {
		return 0, nil, fmt.Errorf("%w: length %d", ErrMalformed, n)
	}
	body := make([]byte, n-headerSize)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, fmt.Errorf("usbmux: read body: %w", err)
	}
	d, err := plist.UnmarshalDict(body)
	if err != nil {
		return 0, nil, fmt.Errorf("usbmux: %w", err)
	}
	return tag, d, nil
}

// Result codes of a Result message.
const (
	ResultOK            = 0
	ResultBadCommand    = 1
	ResultBadDevice     = 2
	ResultConnRefused   = 3
	ResultNoSuchService = 4 // also: no such pair record
	ResultBadVersion    = 6
)

// ResultError is a non-zero Result from usbmuxd.
type ResultError struct {
	Op     string // the request, e.g. "Connect"
	Number uint64
}

func (e *ResultError) Error() string {
	var what string
	switch e.Number {
	case ResultBadCommand:
		what = "bad command"
	case ResultBadDevice:
		what = "no such device (unplugged?)"
	case ResultConnRefused:
		what = "connection refused by the device"
	case ResultNoSuchService:
		what = "not found"
	case ResultBadVersion:
		what = "protocol version not supported"
	default:
		what = "error"
	}
	return fmt.Sprintf("usbmux: %s: %s (result %d)", e.Op, what, e.Number)
}

// swapPort returns port in network byte order read as a little-endian
// integer: usbmuxd's Connect wants htons(port).
func swapPort(port uint16) uint64 { return uint64(port>>8 | port<<8) }
