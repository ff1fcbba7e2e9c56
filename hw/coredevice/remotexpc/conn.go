package remotexpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// The two streams RemoteXPC uses.
const (
	RootStream  uint32 = 1
	ReplyStream uint32 = 3
)

// Window sizes: ours is large so screenshots (a few MB) need few updates.
const (
	initialWindow = 16 << 20
	refillAt      = 1 << 20
	maxFrameData  = 16384 // the HTTP/2 default; we never raise it
	maxReadFrame  = 1 << 20
)

// ErrClosed is returned after the peer ended the connection (GOAWAY,
// RST_STREAM) or Close was called.
var ErrClosed = errors.New("remotexpc: connection closed")

// Conn is one RemoteXPC connection, client or device side. Send may be
// called concurrently with Receive; Receive must not be called
// concurrently with itself.
type Conn struct {
	conn net.Conn
	fr   *http2.Framer

	wmu     sync.Mutex
	opened  map[uint32]bool // streams we sent HEADERS for
	nextID  map[uint32]uint64
	rbuf    map[uint32]*bytes.Buffer
	unacked map[uint32]int // received DATA bytes not yet given back as window
	peerSet bool           // peer SETTINGS seen
}

func newConn(c net.Conn) *Conn {
	fr := http2.NewFramer(c, c)
	// Devices keep to the 16 KB default; a looser bound than that still
	// stops a non-HTTP/2 peer's bytes from reading as a huge frame.
	fr.SetMaxReadFrameSize(maxReadFrame)
	return &Conn{
		conn:    c,
		fr:      fr,
		opened:  map[uint32]bool{},
		nextID:  map[uint32]uint64{RootStream: 1, ReplyStream: 1},
		rbuf:    map[uint32]*bytes.Buffer{RootStream: {}, ReplyStream: {}},
		unacked: map[uint32]int{},
	}
}

// Close closes the underlying connection.
func (c *Conn) Close() error { return c.conn.Close() }

// bound makes ctx's end interrupt blocking I/O on the connection.
func (c *Conn) bound(ctx context.Context) func() {
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	return func() {
		if !stop() {
			c.conn.SetDeadline(time.Time{})
		}
	}
}

func wrapCtx(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("remotexpc: %s: %w", op, ctx.Err())
	}
	return err
}

// Dial runs the client side of the RemoteXPC handshake on conn (a TCP
// stream to a service port through the tunnel).
func Dial(ctx context.Context, conn net.Conn) (*Conn, error) {
	c := newConn(conn)
	defer c.bound(ctx)()
	err := c.clientHandshake()
	if err != nil {
		return nil, wrapCtx(ctx, "handshake", err)
	}
	return c, nil
}

func (c *Conn) clientHandshake() error {
	if _, err := io.WriteString(c.conn, http2.ClientPreface); err != nil {
		return fmt.Errorf("remotexpc: write preface: %w", err)
	}
	if err := c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: initialWindow},
	); err != nil {
		return fmt.Errorf("remotexpc: write settings: %w", err)
	}
	if err := c.fr.WriteWindowUpdate(0, initialWindow-65535); err != nil {
		return fmt.Errorf("remotexpc: write window update: %w", err)
	}
	steps := []struct {
		stream uint32
		msg    xpc.Message
	}{
		{RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet, Body: xpc.Dict{}}},
		{ReplyStream, xpc.Message{}}, // HEADERS only: stream 3 must open before the 0x201 message
		{RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagHandshakeFollowUp}},
		{ReplyStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagInitHandshake}},
	}
	for i, s := range steps {
		if i == 1 {
			if err := c.openStream(s.stream); err != nil {
				return err
			}
			continue
		}
		if err := c.writeMessage(s.stream, s.msg); err != nil {
			return err
		}
	}
	// Read until the peer's SETTINGS; handleControl acknowledges it.
	for !c.peerSet {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return fmt.Errorf("remotexpc: waiting for the peer's settings: %w", err)
		}
		if err := c.handleFrame(f); err != nil {
			return err
		}
	}
	return nil
}

// openStream sends the empty HEADERS that open stream id (once).
func (c *Conn) openStream(id uint32) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.openStreamLocked(id)
}

func (c *Conn) openStreamLocked(id uint32) error {
	if c.opened[id] {
		return nil
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true}); err != nil {
		return fmt.Errorf("remotexpc: open stream %d: %w", id, err)
	}
	c.opened[id] = true
	return nil
}

// writeMessage sends m on stream, opening it first, in DATA frames of at
// most the default frame size.
func (c *Conn) writeMessage(stream uint32, m xpc.Message) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.openStreamLocked(stream); err != nil {
		return err
	}
	for len(b) > 0 {
		n := min(len(b), maxFrameData)
		if err := c.fr.WriteData(stream, false, b[:n]); err != nil {
			return fmt.Errorf("remotexpc: write message: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// Send sends body on the root stream with the next message id; wantReply
// asks the service to answer on the reply stream.
func (c *Conn) Send(ctx context.Context, body xpc.Dict, wantReply bool) error {
	flags := xpc.FlagAlwaysSet
	if len(body) > 0 {
		flags |= xpc.FlagDataPresent
	}
	if wantReply {
		flags |= xpc.FlagWantingReply
	}
	c.wmu.Lock()
	id := c.nextID[RootStream]
	c.nextID[RootStream]++
	c.wmu.Unlock()
	defer c.bound(ctx)()
	return wrapCtx(ctx, "send", c.writeMessage(RootStream, xpc.Message{Flags: flags, ID: id, Body: body}))
}

// SendOn sends m as is on stream (the device side of fakes uses it to
// answer on the reply stream with the request's id).
func (c *Conn) SendOn(ctx context.Context, stream uint32, m xpc.Message) error {
	defer c.bound(ctx)()
	return wrapCtx(ctx, "send", c.writeMessage(stream, m))
}

// Receive returns the next complete message with a body on either stream,
// and the stream it came on. Messages without a body (handshake
// acknowledgements, pings) are skipped.
func (c *Conn) Receive(ctx context.Context) (uint32, xpc.Message, error) {
	defer c.bound(ctx)()
	for {
		popped := false
		for _, s := range []uint32{RootStream, ReplyStream} {
			m, ok, err := c.pop(s)
			if err != nil {
				return 0, xpc.Message{}, err
			}
			if !ok {
				continue
			}
			popped = true
			if m.Body != nil && !(m.ID == 0 && len(m.Body) == 0) {
				return s, m, nil
			}
		}
		if popped {
			continue
		}
		f, err := c.fr.ReadFrame()
		if err != nil {
			return 0, xpc.Message{}, wrapCtx(ctx, "receive", fmt.Errorf("remotexpc: read frame: %w", err))
		}
		if err := c.handleFrame(f); err != nil {
			return 0, xpc.Message{}, err
		}
	}
}

// Request sends body wanting a reply and returns the reply's body (the
// next message on the reply stream).
func (c *Conn) Request(ctx context.Context, body xpc.Dict) (xpc.Dict, error) {
	if err := c.Send(ctx, body, true); err != nil {
		return nil, err
	}
	for {
		s, m, err := c.Receive(ctx)
		if err != nil {
			return nil, err
		}
		if s == ReplyStream {
			return m.Body, nil
		}
	}
}

// pop removes one whole message from stream's buffer if there is one.
func (c *Conn) pop(stream uint32) (xpc.Message, bool, error) {
	buf := c.rbuf[stream]
	if buf.Len() < xpc.HeaderSize {
		return xpc.Message{}, false, nil
	}
	n, err := xpc.PayloadLen(buf.Bytes())
	if err != nil {
		return xpc.Message{}, false, fmt.Errorf("remotexpc: stream %d: %w", stream, err)
	}
	if buf.Len() < xpc.HeaderSize+n {
		return xpc.Message{}, false, nil
	}
	m, err := xpc.Unmarshal(buf.Next(xpc.HeaderSize + n))
	if err != nil {
		return xpc.Message{}, false, fmt.Errorf("remotexpc: stream %d: %w", stream, err)
	}
	return m, true, nil
}

func (c *Conn) handleFrame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		buf, ok := c.rbuf[f.StreamID]
		if !ok {
			return fmt.Errorf("remotexpc: DATA on unexpected stream %d", f.StreamID)
		}
		if buf.Len()+len(f.Data()) > xpc.HeaderSize+xpc.MaxPayload {
			return fmt.Errorf("remotexpc: stream %d: message larger than %d bytes", f.StreamID, xpc.MaxPayload)
		}
		buf.Write(f.Data())
		return c.refill(f.StreamID, int(f.Length))
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		c.peerSet = true
		c.wmu.Lock()
		defer c.wmu.Unlock()
		if err := c.fr.WriteSettingsAck(); err != nil {
			return fmt.Errorf("remotexpc: settings ack: %w", err)
		}
	case *http2.PingFrame:
		if f.IsAck() {
			return nil
		}
		c.wmu.Lock()
		defer c.wmu.Unlock()
		if err := c.fr.WritePing(true, f.Data); err != nil {
			return fmt.Errorf("remotexpc: ping ack: %w", err)
		}
	case *http2.GoAwayFrame:
		return fmt.Errorf("%w: GOAWAY (%v)", ErrClosed, f.ErrCode)
	case *http2.RSTStreamFrame:
		return fmt.Errorf("%w: RST_STREAM on stream %d (%v)", ErrClosed, f.StreamID, f.ErrCode)
	case *http2.HeadersFrame:
		if _, ok := c.rbuf[f.StreamID]; !ok {
			return fmt.Errorf("remotexpc: HEADERS on unexpected stream %d", f.StreamID)
		}
	}
	// WINDOW_UPDATE and PRIORITY need nothing: our messages are small
	// next to the window.
	return nil
}

// refill gives received bytes back to the peer as window, in batches.
func (c *Conn) refill(stream uint32, n int) error {
	c.unacked[0] += n
	c.unacked[stream] += n
	if c.unacked[0] < refillAt {
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, s := range []uint32{0, RootStream, ReplyStream} {
		if k := c.unacked[s]; k > 0 {
			if err := c.fr.WriteWindowUpdate(s, uint32(k)); err != nil {
				return fmt.Errorf("remotexpc: window update: %w", err)
			}
			c.unacked[s] = 0
		}
	}
	return nil
}

// Accept runs the device side of the handshake on conn (for fake devices
// in tests): it reads the preface, answers SETTINGS, and acknowledges each
// handshake message on its stream as devices do.
func Accept(ctx context.Context, conn net.Conn) (*Conn, error) {
	c := newConn(conn)
	defer c.bound(ctx)()
	pre := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(conn, pre); err != nil || string(pre) != http2.ClientPreface {
		return nil, wrapCtx(ctx, "accept", fmt.Errorf("remotexpc: no HTTP/2 preface (%q): %v", pre, err))
	}
	if err := c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: initialWindow},
	); err != nil {
		return nil, wrapCtx(ctx, "accept", err)
	}
	// Wait for the three handshake messages: the empty dictionary on the
	// root stream, then 0x201 on root and INIT_HANDSHAKE on reply, in
	// either order.
	seen := 0
	for seen < 3 {
		progress := false
		for _, s := range []uint32{RootStream, ReplyStream} {
			m, ok, err := c.pop(s)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			progress = true
			seen++
			if err := c.writeMessage(s, xpc.Message{Flags: m.Flags, Body: m.Body}); err != nil {
				return nil, wrapCtx(ctx, "accept", err)
			}
		}
		if progress {
			continue
		}
		f, err := c.fr.ReadFrame()
		if err != nil {
			return nil, wrapCtx(ctx, "accept", fmt.Errorf("remotexpc: handshake: %w", err))
		}
		if err := c.handleFrame(f); err != nil {
			return nil, err
		}
	}
	return c, nil
}
