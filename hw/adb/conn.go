package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Errors of a connection.
var (
	// ErrUnauthorized: the phone has not allowed the box's key (yet). Its
	// owner must tap "Allow" in the "Allow USB debugging?" dialog.
	ErrUnauthorized = errors.New("adb: the phone has not allowed this box's key")
	// ErrClosed: the connection or the stream is closed.
	ErrClosed = errors.New("adb: closed")
	// ErrRefused: the phone refused to open the service (unknown service,
	// or one this build of Android does not offer).
	ErrRefused = errors.New("adb: the phone refused the service")
)

// Conn is an ADB connection after its handshake: streams to services,
// multiplexed over one transport. Its methods may be called from several
// goroutines.
type Conn struct {
	rw      io.ReadWriteCloser
	version uint32 // the smaller of both sides' protocol versions
	maxData uint32 // the largest data either side sends
	banner  string // the peer's CNXN banner

	wmu sync.Mutex // one message at a time on the transport

	mu      sync.Mutex
	streams map[uint32]*Stream // by local id
	nextID  uint32
	accept  chan *Stream // server side: streams the peer opened; nil on the host side
	offers  func(service string) bool
	err     error // why the connection ended
	done    chan struct{}
}

// newConn starts a connection after its handshake. A server (device side)
// accepts the streams the peer opens that offers allows (nil: all).
func newConn(rw io.ReadWriteCloser, version, maxData uint32, banner string, server bool, offers func(string) bool) *Conn {
	c := &Conn{
		rw:      rw,
		version: version,
		maxData: maxData,
		banner:  banner,
		streams: make(map[uint32]*Stream),
		done:    make(chan struct{}),
		offers:  offers,
	}
	if server {
		c.accept = make(chan *Stream, 16)
	}
	go c.readLoop()
	return c
}

// Banner is the peer's CNXN banner, for a phone
// "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…".
func (c *Conn) Banner() string { return c.banner }

// Features lists the features in the peer's banner (shell_v2, cmd, …).
func (c *Conn) Features() []string { return bannerFeatures(c.banner) }

// HasFeature reports whether the peer's banner names feature f.
func (c *Conn) HasFeature(f string) bool {
	for _, g := range c.Features() {
		if g == f {
			return true
		}
	}
	return false
}

// Property returns a property of the peer's banner (ro.product.model,
// ro.product.name, ro.product.device), or "".
func (c *Conn) Property(name string) string {
	_, props, _ := strings.Cut(c.banner, "::")
	for _, kv := range strings.Split(props, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

func bannerFeatures(banner string) []string {
	_, props, _ := strings.Cut(banner, "::")
	for _, kv := range strings.Split(props, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "features" && v != "" {
			return strings.Split(v, ",")
		}
	}
	return nil
}

// MaxData is the largest message data the connection carries.
func (c *Conn) MaxData() uint32 { return c.maxData }

// Done is closed when the connection has ended; [Conn.Err] says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it runs).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection and every stream on it.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

func (c *Conn) send(m Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return c.Err()
	default:
	}
	if err := WriteMessage(c.rw, m, c.version < VersionSkipChecksum); err != nil {
		c.fail(err)
		return err
	}
	return nil
}

// fail ends the connection with err (the first error wins).
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	streams := c.streams
	c.streams = map[uint32]*Stream{}
	close(c.done)
	c.mu.Unlock()
	c.rw.Close()
	for _, s := range streams {
		s.closedByPeer(err)
	}
}

func (c *Conn) readLoop() {
	for {
		m, err := ReadMessage(c.rw, MaxPayload, c.version < VersionSkipChecksum)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: the peer closed the connection", ErrClosed)
			}
			c.fail(err)
			return
		}
		if err := c.dispatch(m); err != nil {
			c.fail(err)
			return
		}
	}
}

func (c *Conn) stream(local uint32) *Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[local]
}

func (c *Conn) dispatch(m Message) error {
	switch m.Command {
	case CmdOPEN:
		service := strings.TrimRight(string(m.Data), "\x00")
		if c.accept == nil || m.Arg0 == 0 || (c.offers != nil && !c.offers(service)) {
			// A host does not serve streams (no reverse forwarding here).
			return c.send(Message{Command: CmdCLSE, Arg0: 0, Arg1: m.Arg0})
		}
		s := c.newStream(service)
		s.remote = m.Arg0
		close(s.opened)
		if err := c.send(Message{Command: CmdOKAY, Arg0: s.local, Arg1: s.remote}); err != nil {
			return err
		}
		select {
		case c.accept <- s:
		default:
			s.Close()
		}
	case CmdOKAY:
		s := c.stream(m.Arg1)
		if s == nil {
			return nil
		}
		s.mu.Lock()
		if s.remote == 0 {
			s.remote = m.Arg0
			s.mu.Unlock()
			close(s.opened)
			return nil
		}
		s.mu.Unlock()
		select {
		case s.ack <- struct{}{}:
		default:
		}
	case CmdWRTE:
		s := c.stream(m.Arg1)
		if s == nil {
			return c.send(Message{Command: CmdCLSE, Arg0: 0, Arg1: m.Arg0})
		}
		s.received(m.Data)
	case CmdCLSE:
		s := c.stream(m.Arg1)
		if s == nil {
			return nil
		}
		c.forget(s)
		s.closedByPeer(nil)
	case CmdCNXN:
		return fmt.Errorf("%w: the peer started a new connection", ErrClosed)
	case CmdAUTH, CmdSTLS:
		return fmt.Errorf("adb: unexpected %v after the handshake", m.Command)
	default:
		return fmt.Errorf("adb: unknown command %v", m.Command)
	}
	return nil
}

func (c *Conn) newStream(service string) *Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	s := &Stream{
		c:       c,
		local:   c.nextID,
		service: service,
		opened:  make(chan struct{}),
		ack:     make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	s.cond = sync.NewCond(&s.mu)
	if c.err == nil {
		c.streams[s.local] = s
	} else {
		s.closed, s.err = true, c.err
		close(s.done)
	}
	return s
}

func (c *Conn) forget(s *Stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streams[s.local] == s {
		delete(c.streams, s.local)
	}
}

// Open opens a stream to a service on the peer ("shell,v2,raw:ls",
// "exec:screencap", "tcp:8080", …).
func (c *Conn) Open(ctx context.Context, service string) (*Stream, error) {
	s := c.newStream(service)
	if err := c.send(Message{Command: CmdOPEN, Arg0: s.local, Data: []byte(service + "\x00")}); err != nil {
		c.forget(s)
		return nil, fmt.Errorf("adb: open %q: %w", service, err)
	}
	select {
	case <-s.opened:
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("adb: open %q: %w", service, ctx.Err())
	case <-c.done:
		return nil, fmt.Errorf("adb: open %q: %w", service, c.Err())
	}
	s.mu.Lock()
	refused := s.closed && s.remote == 0
	s.mu.Unlock()
	if refused {
		return nil, fmt.Errorf("%w: %q", ErrRefused, service)
	}
	return s, nil
}

// Accept waits for the peer to open a stream (the device side of a
// connection made with [Server]); [Stream.Service] names what it asked for.
func (c *Conn) Accept(ctx context.Context) (*Stream, error) {
	if c.accept == nil {
		return nil, errors.New("adb: Accept on the host side of a connection")
	}
	select {
	case s := <-c.accept:
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, c.Err()
	}
}
