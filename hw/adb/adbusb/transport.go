// Package adbusb carries ADB over USB: it finds a phone's ADB interface
// (class ff, subclass 42, protocol 01) on the host ports, claims it
// through hw/usb, and gives hw/adb's handshake a byte transport over its
// two bulk endpoints.
//
// ADB on USB sends each message's 24-byte header and its payload as two
// transfers, and adbd refuses a header that is not a transfer of its
// own: [NewTransport] does that framing for either side (the box's
// usbdevfs endpoints, or a fake device's FunctionFS files in tests).
package adbusb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/openlolo/openlolo/hw/adb"
)

// headerSize is an ADB message header's size on the wire.
const headerSize = 24

// ErrFraming means the peer broke ADB's USB framing (a header that is
// not one 24-byte transfer).
var ErrFraming = errors.New("adbusb: the peer broke ADB's USB framing")

// Pipe is one side's pair of bulk endpoints.
type Pipe struct {
	// In runs one IN transfer into buf and returns the bytes received:
	// fewer than len(buf) at a short packet, 0 for a zero-length packet.
	In func(ctx context.Context, buf []byte) (int, error)
	// Out runs one OUT transfer of buf; an empty buf is a zero-length
	// packet.
	Out func(ctx context.Context, buf []byte) (int, error)
	// MaxPacket is the OUT endpoint's packet size: a payload that fills
	// its last packet is followed by a zero-length packet, so a peer
	// reading in large chunks (adbd does) sees where it ends.
	MaxPacket int
	// MaxTransfer bounds one OUT transfer (0: no bound); longer payloads
	// go as several transfers of whole packets.
	MaxTransfer int
	// Close releases the endpoints; it is called once, by the
	// transport's Close.
	Close func() error
}

// Transport is an io.ReadWriteCloser of ADB messages over a [Pipe]:
// reads yield the messages' bytes, writes take whole messages (header
// and payload, in one Write or several) and send the header and the
// payload as transfers of their own. Close ends transfers in flight.
type Transport struct {
	p      Pipe
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	cerr   error

	rmu   sync.Mutex
	rbuf  []byte // received and not yet read
	rleft int    // payload bytes of the current message still to receive

	wmu      sync.Mutex
	wbuf     []byte // the header or payload being written
	wneed    int    // bytes wbuf needs before it can be sent
	wpayload bool   // wbuf is a payload, not a header
}

// NewTransport frames ADB messages over p.
func NewTransport(p Pipe) *Transport {
	ctx, cancel := context.WithCancel(context.Background())
	return &Transport{p: p, ctx: ctx, cancel: cancel, wneed: headerSize}
}

// Read reads message bytes: a header transfer, then its payload.
// Zero-length packets between messages are skipped.
func (t *Transport) Read(b []byte) (int, error) {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	for len(t.rbuf) == 0 {
		if err := t.receive(); err != nil {
			return 0, err
		}
	}
	n := copy(b, t.rbuf)
	t.rbuf = t.rbuf[n:]
	return n, nil
}

// receive runs the next transfer: a header, or (part of) its payload.
func (t *Transport) receive() error {
	if t.rleft == 0 {
		// A packet's room: a header merged with its payload is a
		// framing error, not an overflow.
		h := make([]byte, max(headerSize, t.p.MaxPacket))
		n, err := t.p.In(t.ctx, h)
		if err != nil {
			return t.failed("read", err)
		}
		if n == 0 {
			return nil // a zero-length packet
		}
		if n != headerSize {
			return fmt.Errorf("%w: a header transfer of %d bytes (want %d)", ErrFraming, n, headerSize)
		}
		size := binary.LittleEndian.Uint32(h[12:])
		if size > adb.MaxPayload {
			return fmt.Errorf("%w: %d bytes of payload (at most %d)", adb.ErrTooLarge, size, adb.MaxPayload)
		}
		t.rbuf, t.rleft = h[:headerSize], int(size)
		return nil
	}
	buf := make([]byte, t.rleft)
	n, err := t.p.In(t.ctx, buf)
	if err != nil {
		return t.failed("read", err)
	}
	t.rbuf, t.rleft = buf[:n], t.rleft-n
	return nil
}

// Write takes message bytes; each completed header and each completed
// payload goes out as transfers of its own.
func (t *Transport) Write(b []byte) (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.ctx.Err() != nil {
		return 0, t.failed("write", t.ctx.Err())
	}
	n := len(b)
	for len(b) > 0 {
		take := min(t.wneed-len(t.wbuf), len(b))
		t.wbuf = append(t.wbuf, b[:take]...)
		b = b[take:]
		if len(t.wbuf) < t.wneed {
			break
		}
		if err := t.flush(); err != nil {
			return n - len(b), err
		}
	}
	return n, nil
}

// flush sends the header or payload now complete in wbuf.
func (t *Transport) flush() error {
	if !t.wpayload {
		size := int(binary.LittleEndian.Uint32(t.wbuf[12:]))
		if err := t.send(t.wbuf); err != nil {
			return err
		}
		if size > 0 {
			t.wbuf, t.wneed, t.wpayload = t.wbuf[:0], size, true
			return nil
		}
	} else {
		if err := t.send(t.wbuf); err != nil {
			return err
		}
		if t.p.MaxPacket > 0 && len(t.wbuf)%t.p.MaxPacket == 0 {
			if _, err := t.p.Out(t.ctx, nil); err != nil {
				return t.failed("write a zero-length packet", err)
			}
		}
	}
	t.wbuf, t.wneed, t.wpayload = t.wbuf[:0], headerSize, false
	return nil
}

// send runs OUT transfers of b, at most MaxTransfer bytes each.
func (t *Transport) send(b []byte) error {
	for len(b) > 0 {
		chunk := b
		if t.p.MaxTransfer > 0 && len(chunk) > t.p.MaxTransfer {
			chunk = chunk[:t.p.MaxTransfer]
		}
		n, err := t.p.Out(t.ctx, chunk)
		if err != nil {
			return t.failed("write", err)
		}
		b = b[n:]
	}
	return nil
}

// failed names a transfer error; after Close it is net.ErrClosed.
func (t *Transport) failed(op string, err error) error {
	if t.ctx.Err() != nil {
		return fmt.Errorf("adbusb: %s: %w", op, net.ErrClosed)
	}
	return fmt.Errorf("adbusb: %s: %w", op, err)
}

// Close ends transfers in flight and closes the pipe.
func (t *Transport) Close() error {
	t.once.Do(func() {
		t.cancel()
		if t.p.Close != nil {
			t.cerr = t.p.Close()
		}
	})
	return t.cerr
}

var _ io.ReadWriteCloser = (*Transport)(nil)
