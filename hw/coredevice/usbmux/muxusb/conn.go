package muxusb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

type connState int

const (
	stateConnecting connState = iota // SYN sent
	stateOpen                        // SYN, SYN|ACK, ACK done
	stateRefused                     // RST (or anything but SYN|ACK) answered the SYN
)

// Conn is one stream to a device port. It is a net.Conn; WriteContext is
// Write bounded by a context as well as the write deadline.
type Conn struct {
	m   *Mux
	key connKey

	wmu sync.Mutex // one Write at a time, so segments stay in order

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced when anything below changes
	state      connState
	closed     bool  // Close was called
	peerClosed bool  // the device sent RST or FIN
	gone       error // the session ended, or the stream broke
	rbuf       bytes.Buffer
	txNext     uint32 // sequence number of our next byte
	peerAck    uint32 // the device has our bytes before this
	peerWin    uint32 // bytes the device takes past peerAck
	rxNext     uint32 // sequence number of the device's next byte
	consumed   uint32 // our reader has the device's bytes before this
	acked      uint32 // the acknowledgement we last sent

	readDL, writeDL deadline
}

func newConn(m *Mux, key connKey) *Conn {
	return &Conn{m: m, key: key, changed: make(chan struct{})}
}

// signalLocked wakes every waiter.
func (c *Conn) signalLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitLocked waits, with c.mu released, until something changes, ctx
// ends or dl closes.
func (c *Conn) waitLocked(ctx context.Context, dl <-chan struct{}) error {
	ch := c.changed
	c.mu.Unlock()
	defer c.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-dl:
		return os.ErrDeadlineExceeded
	}
}

// headerLocked is the TCP header of our next packet; it acknowledges
// what our reader has consumed.
func (c *Conn) headerLocked(flags uint8) TCPHeader {
	c.acked = c.consumed
	return TCPHeader{SrcPort: c.key.local, DstPort: c.key.remote, Seq: c.txNext, Ack: c.consumed,
		Flags: flags, Window: window >> windowShift}
}

// input takes one packet for this stream from the session's reader.
func (c *Conn) input(p Packet) {
	t := p.TCP
	c.mu.Lock()
	if c.closed || c.peerClosed || c.gone != nil || c.state == stateRefused {
		c.mu.Unlock()
		return
	}
	if c.state == stateConnecting {
		if t.Flags != FlagSYN|FlagACK {
			c.state = stateRefused
			c.signalLocked()
			c.mu.Unlock()
			c.m.remove(c)
			return
		}
		c.state = stateOpen
		c.txNext = 1 // our SYN took sequence number 0
		c.rxNext, c.consumed = t.Seq+1, t.Seq+1
		c.peerAck, c.peerWin = t.Ack, uint32(t.Window)<<windowShift
		ack := c.headerLocked(FlagACK)
		c.signalLocked()
		c.mu.Unlock()
		c.m.sendTCP(ack, nil)
		return
	}
	if t.Flags&(FlagRST|FlagFIN) != 0 {
		// The device is done with the stream: the reader gets what is
		// buffered, then EOF.
		c.peerClosed = true
		var rst *TCPHeader
		if t.Flags&FlagRST == 0 {
			h := c.headerLocked(FlagRST)
			rst = &h
		}
		c.signalLocked()
		c.mu.Unlock()
		c.m.remove(c)
		if rst != nil {
			c.m.sendTCP(*rst, nil)
		}
		return
	}
	if t.Flags&FlagACK != 0 {
		if d := t.Ack - c.peerAck; d > 0 && d <= c.txNext-c.peerAck {
			c.peerAck = t.Ack
		}
		c.peerWin = uint32(t.Window) << windowShift
	}
	var broke error
	switch {
	case len(p.Payload) == 0:
	case t.Seq != c.rxNext:
		broke = fmt.Errorf("%w: port %d: data at sequence %d, want %d", ErrProtocol, c.key.remote, t.Seq, c.rxNext)
	case c.rbuf.Len()+len(p.Payload) > window:
		broke = fmt.Errorf("%w: port %d: %d bytes past a %d-byte window", ErrProtocol, c.key.remote, c.rbuf.Len()+len(p.Payload), window)
	default:
		c.rbuf.Write(p.Payload)
		c.rxNext += uint32(len(p.Payload))
	}
	c.signalLocked()
	if broke == nil {
		c.mu.Unlock()
		return
	}
	c.gone = broke
	rst := c.headerLocked(FlagRST)
	c.mu.Unlock()
	c.m.remove(c)
	c.m.sendTCP(rst, nil)
}

// kill fails the stream because the session ended.
func (c *Conn) kill(err error) {
	c.mu.Lock()
	if c.gone == nil {
		c.gone = err
	}
	c.signalLocked()
	c.mu.Unlock()
}

func (c *Conn) readErrLocked() error {
	switch {
	case c.closed:
		return net.ErrClosed
	case c.gone != nil:
		return fmt.Errorf("muxusb: read from port %d: %w", c.key.remote, c.gone)
	case c.peerClosed:
		return io.EOF
	}
	return nil
}

func (c *Conn) writeErrLocked() error {
	switch {
	case c.closed:
		return net.ErrClosed
	case c.gone != nil:
		return fmt.Errorf("muxusb: write to port %d: %w", c.key.remote, c.gone)
	case c.peerClosed:
		return fmt.Errorf("muxusb: write to port %d: %w", c.key.remote, ErrReset)
	}
	return nil
}

// Read reads what the device sent; after the device closes the stream
// it returns the rest, then io.EOF.
func (c *Conn) Read(b []byte) (int, error) {
	c.mu.Lock()
	for c.rbuf.Len() == 0 {
		if err := c.readErrLocked(); err != nil {
			c.mu.Unlock()
			return 0, err
		}
		if len(b) == 0 {
			c.mu.Unlock()
			return 0, nil
		}
		if err := c.waitLocked(context.Background(), c.readDL.wait()); err != nil {
			c.mu.Unlock()
			return 0, err
		}
	}
	n, _ := c.rbuf.Read(b)
	c.consumed += uint32(n)
	var ack *TCPHeader
	// Acknowledge when the buffer is drained or a quarter window has
	// been consumed, which reopens the device's window.
	if c.readErrLocked() == nil && (c.rbuf.Len() == 0 || c.consumed-c.acked >= window/4) {
		h := c.headerLocked(FlagACK)
		ack = &h
	}
	c.mu.Unlock()
	if ack != nil {
		c.m.sendTCP(*ack, nil)
	}
	return n, nil
}

// Write writes b, waiting for the device's window as needed.
func (c *Conn) Write(b []byte) (int, error) { return c.WriteContext(context.Background(), b) }

// WriteContext is Write that also gives up when ctx ends. It returns how
// much of b was sent.
func (c *Conn) WriteContext(ctx context.Context, b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n := 0
	for {
		c.mu.Lock()
		var room uint32
		for {
			if err := c.writeErrLocked(); err != nil {
				c.mu.Unlock()
				return n, err
			}
			if inFlight := c.txNext - c.peerAck; c.peerWin > inFlight {
				room = c.peerWin - inFlight
				break
			}
			if err := c.waitLocked(ctx, c.writeDL.wait()); err == os.ErrDeadlineExceeded {
				c.mu.Unlock()
				return n, err
			} else if err != nil {
				c.mu.Unlock()
				return n, fmt.Errorf("muxusb: write to port %d: waiting for the device's window: %w", c.key.remote, err)
			}
		}
		if len(b) == 0 {
			c.mu.Unlock()
			return n, nil
		}
		k := min(len(b), int(room), maxPayload)
		h := c.headerLocked(FlagACK)
		c.txNext += uint32(k)
		c.mu.Unlock()
		if err := c.m.sendTCP(h, b[:k]); err != nil {
			return n, fmt.Errorf("muxusb: write to port %d: %w", c.key.remote, err)
		}
		n += k
		b = b[k:]
	}
}

// Close resets the stream (usbmux streams end with RST) and releases it.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	open := c.state == stateOpen && !c.peerClosed && c.gone == nil
	c.closed = true
	rst := c.headerLocked(FlagRST)
	c.signalLocked()
	c.mu.Unlock()
	c.m.remove(c)
	c.readDL.set(time.Time{})
	c.writeDL.set(time.Time{})
	if open {
		c.m.sendTCP(rst, nil)
	}
	return nil
}

// Addr is a device port as a net.Addr.
type Addr struct {
	Device string
	Port   uint16
}

// Network returns "usbmux".
func (Addr) Network() string { return "usbmux" }

func (a Addr) String() string { return fmt.Sprintf("%s:%d", a.Device, a.Port) }

// LocalAddr is the host's end: the local port on the session.
func (c *Conn) LocalAddr() net.Addr { return Addr{Device: "host", Port: c.key.local} }

// RemoteAddr is the device port.
func (c *Conn) RemoteAddr() net.Addr { return Addr{Device: c.m.cfg.Name, Port: c.key.remote} }

// SetDeadline sets the read and write deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline makes Read fail with os.ErrDeadlineExceeded after t.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.readDL.set(t)
	c.wake()
	return nil
}

// SetWriteDeadline makes Write fail with os.ErrDeadlineExceeded after t.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.writeDL.set(t)
	c.wake()
	return nil
}

// wake lets waiters pick up a new deadline.
func (c *Conn) wake() {
	c.mu.Lock()
	c.signalLocked()
	c.mu.Unlock()
}

// deadline is a channel closed when a time passes.
type deadline struct {
	mu    sync.Mutex
	timer *time.Timer
	ch    chan struct{}
}

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	if d.ch == nil || isClosed(d.ch) {
		d.ch = make(chan struct{})
	}
	if t.IsZero() {
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		close(d.ch)
		return
	}
	ch := d.ch
	d.timer = time.AfterFunc(dur, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.ch == ch && !isClosed(ch) {
			close(ch)
		}
	})
}

// wait returns the channel; nil (never ready) when no deadline was set.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ch
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
