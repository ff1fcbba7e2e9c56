package muxusb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
)

// Pipe is the usbmux interface's pair of bulk endpoints.
type Pipe interface {
	// In reads one bulk IN transfer into p and returns its length: the
	// transfer ends at a short packet or when p is full.
	In(ctx context.Context, p []byte) (int, error)
	// Out sends p as one bulk OUT transfer; an empty p sends a
	// zero-length packet.
	Out(ctx context.Context, p []byte) (int, error)
	// Close releases the endpoints; blocked In and Out calls return.
	Close() error
}

// Config describes the device end of a Pipe.
type Config struct {
	// MaxPacket is the bulk OUT endpoint's wMaxPacketSize (0: 512, high
	// speed).
	MaxPacket int
	// Name names the device in errors and logs (its UDID).
	Name string
	// Version is the usbmux version Serve answers with (0: 2). Open
	// always asks for 2.0 and takes 1 or 2.
	Version uint32
	// Log receives the device's CONTROL messages (nil: slog.Default()).
	Log *slog.Logger
}

// Errors a session and its connections return, wrapped with what failed.
var (
	ErrRefused    = errors.New("muxusb: the device refused the connection (nothing listens on that port)")
	ErrDeviceGone = errors.New("muxusb: the device is gone (unplugged, or its usbmux stopped)")
	ErrReset      = errors.New("muxusb: the device closed the connection")
	ErrVersion    = errors.New("muxusb: the device speaks a usbmux version other than 1 and 2")
	ErrClosed     = errors.New("muxusb: session closed")
	ErrProtocol   = errors.New("muxusb: the peer broke the stream protocol")
)

const (
	defaultMaxPacket = 512
	// readSize is the most one IN transfer asks for (usbmuxd's USB_MRU:
	// usbfs splits larger reads).
	readSize = 16384
	// window is the receive window each connection advertises, and the
	// most it buffers for its reader.
	window = 128 << 10
	// setupByte is SETUP's one-byte body.
	setupByte = 0x07
)

// Control message types (the first byte of a CONTROL payload).
const (
	controlError = 3
	controlInfo  = 7
)

type connKey struct{ local, remote uint16 }

// Mux is a usbmux session with one device over its Pipe. Open starts the
// host's side, Serve runs the device's.
type Mux struct {
	pipe      Pipe
	cfg       Config
	log       *slog.Logger
	maxPacket int
	accept    func(port uint16) func(net.Conn) // set on the device's side
	ctx       context.Context                  // ends when the session does
	cancel    context.CancelFunc

	wmu   sync.Mutex // one packet at a time on the OUT endpoint
	v2    bool       // 16-byte headers; written under wmu by the reading goroutine
	txSeq uint16     // under wmu
	rxSeq atomic.Uint32

	f        framer // the reading goroutine's
	handlers sync.WaitGroup

	mu       sync.Mutex
	conns    map[connKey]*Conn
	nextPort uint16
	err      error // why the session ended
	done     chan struct{}
}

func newMux(pipe Pipe, cfg Config, accept func(uint16) func(net.Conn)) *Mux {
	m := &Mux{pipe: pipe, cfg: cfg, log: cfg.Log, maxPacket: cfg.MaxPacket, accept: accept,
		conns: map[connKey]*Conn{}, nextPort: 1, done: make(chan struct{})}
	if m.log == nil {
		m.log = slog.Default()
	}
	if m.maxPacket <= 0 {
		m.maxPacket = defaultMaxPacket
	}
	if m.cfg.Name == "" {
		m.cfg.Name = "the device"
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Open runs the version exchange on pipe and starts the session; ctx
// bounds the exchange. The session owns pipe from then on, and closes it
// on Close or when the device goes away.
func Open(ctx context.Context, pipe Pipe, cfg Config) (*Mux, error) {
	m := newMux(pipe, cfg, nil)
	if err := m.handshake(ctx); err != nil {
		m.cancel()
		pipe.Close()
		return nil, fmt.Errorf("muxusb: version exchange with %s: %w", m.cfg.Name, err)
	}
	go m.loop()
	return m, nil
}

func (m *Mux) handshake(ctx context.Context) error {
	if err := m.sendCtx(ctx, &Packet{Header: Header{Protocol: ProtoVersion}, Version: Version{Major: 2}}); err != nil {
		return err
	}
	buf := make([]byte, readSize)
	for {
		if n := m.f.dropStale(); n > 0 {
			m.log.Debug("muxusb: packets before the version answer ignored", "device", m.cfg.Name, "packets", n)
		}
		p, ok, err := m.f.next(false)
		if err != nil {
			return err
		}
		if !ok {
			n, err := m.pipe.In(ctx, buf)
			if err != nil {
				return fmt.Errorf("read: %w", err)
			}
			m.f.push(buf[:n])
			continue
		}
		switch p.Version.Major {
		case 1:
			return nil
		case 2:
			m.wmu.Lock()
			m.v2 = true
			m.wmu.Unlock()
			return m.sendCtx(ctx, &Packet{Header: Header{Protocol: ProtoSetup}, Payload: []byte{setupByte}})
		}
		return fmt.Errorf("%w: %d.%d", ErrVersion, p.Version.Major, p.Version.Minor)
	}
}

// Serve runs the device's side of a session on pipe: it answers the
// version exchange and accepts connections. accept returns the handler
// for a connection to port, or nil to refuse it (RST, as a port nobody
// listens on). Serve returns when ctx ends or the pipe fails, after the
// handlers have returned; it closes pipe.
func Serve(ctx context.Context, pipe Pipe, cfg Config, accept func(port uint16) func(net.Conn)) error {
	m := newMux(pipe, cfg, accept)
	stop := context.AfterFunc(ctx, func() { m.fail(fmt.Errorf("muxusb: serve: %w", context.Cause(ctx))) })
	defer stop()
	m.loop()
	m.handlers.Wait()
	return m.Err()
}

// send writes one packet as one transfer, and a zero-length packet after
// it when it fills its last USB packet.
func (m *Mux) send(p *Packet) error { return m.sendCtx(m.ctx, p) }

// sendCtx is send with the transfers bounded by ctx: the version
// exchange's, so a device that takes nothing cannot hold Open past its
// ctx.
func (m *Mux) sendCtx(ctx context.Context, p *Packet) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.v2 && p.Header.Protocol != ProtoVersion {
		p.Header.V2 = true
		if p.Header.Protocol == ProtoSetup {
			m.txSeq = 0
			m.rxSeq.Store(0xffff)
		}
		p.Header.TxSeq = m.txSeq
		p.Header.RxSeq = uint16(m.rxSeq.Load())
		m.txSeq++
	}
	b := p.Append(nil)
	if _, err := m.pipe.Out(ctx, b); err != nil {
		return m.writeErr(ctx, err)
	}
	if len(b)%m.maxPacket == 0 {
		if _, err := m.pipe.Out(ctx, nil); err != nil {
			return m.writeErr(ctx, err)
		}
	}
	return nil
}

// writeErr is a failed write's error: the device gone, unless a
// caller's ctx (not the session's) ended it first.
func (m *Mux) writeErr(ctx context.Context, err error) error {
	if ctx != m.ctx && ctx.Err() != nil {
		return fmt.Errorf("%s: write: the device took nothing: %w", m.cfg.Name, err)
	}
	return fmt.Errorf("%w: %s: write: %w", ErrDeviceGone, m.cfg.Name, err)
}

func (m *Mux) sendTCP(h TCPHeader, data []byte) error {
	err := m.send(&Packet{Header: Header{Protocol: ProtoTCP}, TCP: h, Payload: data})
	if err != nil {
		m.fail(err)
	}
	return err
}

// loop reads packets until the pipe fails.
func (m *Mux) loop() {
	buf := make([]byte, readSize)
	for {
		for {
			p, ok, err := m.f.next(m.v2)
			if err != nil {
				m.fail(fmt.Errorf("muxusb: %s: %w", m.cfg.Name, err))
				return
			}
			if !ok {
				break
			}
			m.dispatch(p)
		}
		n, err := m.pipe.In(m.ctx, buf)
		if err != nil {
			m.fail(fmt.Errorf("%w: %s: read: %w", ErrDeviceGone, m.cfg.Name, err))
			return
		}
		m.f.push(buf[:n])
	}
}

func (m *Mux) dispatch(p Packet) {
	if p.Header.V2 {
		m.rxSeq.Store(uint32(p.Header.RxSeq))
	}
	switch p.Header.Protocol {
	case ProtoTCP:
		m.tcpInput(p)
	case ProtoControl:
		m.control(p.Payload)
	case ProtoVersion:
		if m.accept == nil {
			m.log.Debug("muxusb: late VERSION ignored", "device", m.cfg.Name)
			return
		}
		m.restart()
		v := m.cfg.Version
		if v == 0 {
			v = 2
		}
		if err := m.send(&Packet{Header: Header{Protocol: ProtoVersion}, Version: Version{Major: v}}); err != nil {
			m.fail(err)
			return
		}
		m.wmu.Lock()
		m.v2 = v >= 2
		m.wmu.Unlock()
	case ProtoSetup:
		// The host restarted the sequence numbers; ours follow send's.
	}
}

// restart is the device's side hearing VERSION: a host starts a session.
// A host that went away (usbmuxd or the box restarted: a USB host never
// says it leaves) left its streams here; they end, and the sequence
// numbers start again.
func (m *Mux) restart() {
	m.mu.Lock()
	old := m.conns
	m.conns = map[connKey]*Conn{}
	m.nextPort = 1
	m.mu.Unlock()
	for _, c := range old {
		c.kill(fmt.Errorf("%w: %s: the host started a new session", ErrClosed, m.cfg.Name))
	}
	m.wmu.Lock()
	m.txSeq = 0
	m.wmu.Unlock()
	m.rxSeq.Store(0xffff)
}

func (m *Mux) control(b []byte) {
	if len(b) == 0 {
		m.log.Warn("muxusb: empty CONTROL packet", "device", m.cfg.Name)
		return
	}
	switch b[0] {
	case controlError:
		m.log.Warn("muxusb: device reports an error", "device", m.cfg.Name, "message", string(b[1:]))
	case controlInfo:
		m.log.Info("muxusb: device says", "device", m.cfg.Name, "message", string(b[1:]))
	default:
		m.log.Debug("muxusb: CONTROL message", "device", m.cfg.Name, "type", b[0], "len", len(b))
	}
}

func (m *Mux) tcpInput(p Packet) {
	t := p.TCP
	key := connKey{local: t.DstPort, remote: t.SrcPort}
	m.mu.Lock()
	c := m.conns[key]
	m.mu.Unlock()
	if c != nil {
		c.input(p)
		return
	}
	if m.accept != nil && t.Flags == FlagSYN {
		m.acceptSYN(key, t)
		return
	}
	if t.Flags&FlagRST == 0 {
		// A stream we do not know (closed here, or never opened).
		m.sendTCP(TCPHeader{SrcPort: key.local, DstPort: key.remote, Ack: t.Seq, Flags: FlagRST}, nil)
	}
}

// acceptSYN answers a SYN on the device's side.
func (m *Mux) acceptSYN(key connKey, t TCPHeader) {
	h := m.accept(key.local)
	if h == nil {
		m.sendTCP(TCPHeader{SrcPort: key.local, DstPort: key.remote, Ack: t.Seq + 1, Flags: FlagRST | FlagACK}, nil)
		return
	}
	c := newConn(m, key)
	c.state = stateOpen
	c.rxNext, c.consumed = t.Seq+1, t.Seq+1
	c.peerAck, c.peerWin = 1, uint32(t.Window)<<windowShift
	synAck := c.headerLocked(FlagSYN | FlagACK)
	c.txNext = 1
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return
	}
	m.conns[key] = c
	m.mu.Unlock()
	if m.sendTCP(synAck, nil) != nil {
		return
	}
	m.handlers.Go(func() { h(c) })
}

// fail ends the session: every connection fails with err.
func (m *Mux) fail(err error) {
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return
	}
	m.err = err
	conns := m.conns
	m.conns = map[connKey]*Conn{}
	close(m.done)
	m.mu.Unlock()
	m.cancel()
	m.pipe.Close()
	for _, c := range conns {
		c.kill(err)
	}
}

func (m *Mux) remove(c *Conn) {
	m.mu.Lock()
	if m.conns[c.key] == c {
		delete(m.conns, c.key)
	}
	m.mu.Unlock()
}

// Done is closed when the session ends (Close, or the device gone).
func (m *Mux) Done() <-chan struct{} { return m.done }

// Err says why the session ended, or nil while it runs.
func (m *Mux) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Close ends the session and every connection on it, and closes the pipe.
func (m *Mux) Close() error {
	m.fail(fmt.Errorf("%w: %s", ErrClosed, m.cfg.Name))
	return nil
}

// Connect opens a stream to port on the device. ctx bounds the set-up;
// the connection lives until closed, reset, or the device goes away.
func (m *Mux) Connect(ctx context.Context, port uint16) (net.Conn, error) {
	c, err := m.open(port)
	if err != nil {
		return nil, fmt.Errorf("muxusb: connect to port %d of %s: %w", port, m.cfg.Name, err)
	}
	c.mu.Lock()
	syn := c.headerLocked(FlagSYN)
	c.mu.Unlock()
	if err := m.sendTCP(syn, nil); err != nil {
		m.remove(c)
		return nil, fmt.Errorf("muxusb: connect to port %d of %s: %w", port, m.cfg.Name, err)
	}
	c.mu.Lock()
	for c.state == stateConnecting && c.gone == nil {
		if err := c.waitLocked(ctx, nil); err != nil {
			rst := c.headerLocked(FlagRST)
			c.state = stateRefused
			c.mu.Unlock()
			m.remove(c)
			m.sendTCP(rst, nil)
			return nil, fmt.Errorf("muxusb: connect to port %d of %s: %w", port, m.cfg.Name, err)
		}
	}
	state, gone := c.state, c.gone
	c.mu.Unlock()
	switch {
	case gone != nil:
		return nil, fmt.Errorf("muxusb: connect to port %d of %s: %w", port, m.cfg.Name, gone)
	case state == stateRefused:
		return nil, fmt.Errorf("muxusb: connect to port %d of %s: %w", port, m.cfg.Name, ErrRefused)
	}
	return c, nil
}

// open registers a new connecting stream on a free local port.
func (m *Mux) open(port uint16) (*Conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	for range 1 << 16 {
		local := m.nextPort
		if m.nextPort++; m.nextPort == 0 {
			m.nextPort = 1
		}
		key := connKey{local: local, remote: port}
		if local == 0 || m.conns[key] != nil {
			continue
		}
		c := newConn(m, key)
		m.conns[key] = c
		return c, nil
	}
	return nil, errors.New("muxusb: every local port is in use")
}
