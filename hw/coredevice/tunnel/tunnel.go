// Package tunnel runs a userspace IPv6 network over a stream of bare IPv6
// packets: the CoreDeviceProxy tunnel to an iPhone after its CDTunnel
// handshake. It is gVisor's TCP/IP stack (the one tailscale.com already
// links) on a channel link endpoint: no TUN device, no root.
//
// Both ends use it: the host dials TCP to the device's services and binds
// UDP for the media stream; the fake device in tests listens.
package tunnel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/channel"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv6"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"

	"github.com/openlolo/openlolo/hw/coredevice/cdtunnel"
)

// MaxHostMTU caps the MTU of our end: USB CoreDeviceProxy drops
// host-to-device packets larger than 8192 bytes even when it negotiated
// 16000 (measured and noted by pymobiledevice3's authors).
const MaxHostMTU = 8192

const nicID tcpip.NICID = 1

// Network is one end of the tunnel.
type Network struct {
	local, peer netip.Addr
	s           *stack.Stack
	ep          *channel.Endpoint
	stream      io.ReadWriteCloser

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	done      chan struct{}
	errMu     sync.Mutex
	err       error
}

// Config says which end of the link this is.
type Config struct {
	Local     netip.Addr // our address
	PrefixLen int        // the link's prefix length (64)
	Peer      netip.Addr // the other end (for Dial)
	MTU       int        // our MTU; capped at MaxHostMTU, at least 1280
}

// New starts a network over stream, which carries bare IPv6 packets both
// ways. Closing the network closes the stream; the stream ending closes
// the network (Done).
func New(stream io.ReadWriteCloser, cfg Config) (*Network, error) {
	if !cfg.Local.Is6() || !cfg.Peer.Is6() {
		return nil, fmt.Errorf("tunnel: addresses %v and %v must be IPv6", cfg.Local, cfg.Peer)
	}
	mtu := min(max(cfg.MTU, cdtunnel.MinMTU), MaxHostMTU)
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv6.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol, udp.NewProtocol},
	})
	ep := channel.New(512, uint32(mtu), "")
	fail := func(op string, e tcpip.Error) (*Network, error) {
		ep.Close()
		s.Close()
		return nil, fmt.Errorf("tunnel: %s: %v", op, e)
	}
	if e := s.CreateNIC(nicID, ep); e != nil {
		return fail("create NIC", e)
	}
	prefix := netip.PrefixFrom(cfg.Local, cfg.PrefixLen).Masked()
	if e := s.AddProtocolAddress(nicID, tcpip.ProtocolAddress{
		Protocol:          ipv6.ProtocolNumber,
		AddressWithPrefix: tcpip.AddressWithPrefix{Address: tcpip.AddrFrom16(cfg.Local.As16()), PrefixLen: cfg.PrefixLen},
	}, stack.AddressProperties{}); e != nil {
		return fail("add address", e)
	}
	subnet, err := tcpip.NewSubnet(tcpip.AddrFrom16(prefix.Addr().As16()), tcpip.MaskFromBytes(net.CIDRMask(cfg.PrefixLen, 128)))
	if err != nil {
		ep.Close()
		s.Close()
		return nil, fmt.Errorf("tunnel: subnet %v: %w", prefix, err)
	}
	s.SetRouteTable([]tcpip.Route{{Destination: subnet, NIC: nicID}})
	// Send small writes at once: every RemoteXPC round trip would wait
	// for Nagle otherwise.
	nodelay := tcpip.TCPDelayEnabled(false)
	s.SetTransportProtocolOption(tcp.ProtocolNumber, &nodelay)
	sack := tcpip.TCPSACKEnabled(true)
	s.SetTransportProtocolOption(tcp.ProtocolNumber, &sack)

	ctx, cancel := context.WithCancel(context.Background())
	n := &Network{local: cfg.Local, peer: cfg.Peer, s: s, ep: ep, stream: stream, cancel: cancel, done: make(chan struct{})}
	n.wg.Add(2)
	go n.inbound()
	go n.outbound(ctx)
	return n, nil
}

// inbound feeds packets from the stream into the stack.
func (n *Network) inbound() {
	defer n.wg.Done()
	pr := cdtunnel.NewPacketReader(n.stream)
	for {
		p, err := pr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			n.fail(fmt.Errorf("tunnel: read: %w", err))
			return
		}
		pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(p)})
		n.ep.InjectInbound(header.IPv6ProtocolNumber, pkt)
		pkt.DecRef()
	}
}

// outbound writes the stack's packets to the stream, one Write each.
func (n *Network) outbound(ctx context.Context) {
	defer n.wg.Done()
	var b []byte
	for {
		pkt := n.ep.ReadContext(ctx)
		if pkt == nil {
			return
		}
		b = b[:0]
		for _, s := range pkt.AsSlices() {
			b = append(b, s...)
		}
		pkt.DecRef()
		if _, err := n.stream.Write(b); err != nil {
			n.fail(fmt.Errorf("tunnel: write: %w", err))
			return
		}
	}
}

// fail records the first error and shuts the network down.
func (n *Network) fail(err error) {
	n.errMu.Lock()
	if n.err == nil {
		n.err = err
	}
	n.errMu.Unlock()
	n.shutdown()
}

func (n *Network) shutdown() {
	n.closeOnce.Do(func() {
		n.cancel()
		n.stream.Close()
		n.ep.Close()
		n.s.Close()
		close(n.done)
	})
}

// Close shuts the network down and closes the stream. It waits for the
// packet pumps to stop.
func (n *Network) Close() error {
	n.fail(net.ErrClosed)
	n.wg.Wait()
	return nil
}

// Done is closed when the network has shut down (Close, or the stream
// ended or failed; see Err).
func (n *Network) Done() <-chan struct{} { return n.done }

// Err returns why the network shut down, or nil while it runs.
func (n *Network) Err() error {
	n.errMu.Lock()
	defer n.errMu.Unlock()
	return n.err
}

// Local returns our address; Peer the other end's.
func (n *Network) Local() netip.Addr { return n.local }

// Peer returns the other end's address.
func (n *Network) Peer() netip.Addr { return n.peer }

func full(a netip.Addr, port uint16) tcpip.FullAddress {
	return tcpip.FullAddress{NIC: nicID, Addr: tcpip.AddrFrom16(a.As16()), Port: port}
}

// DialTCP connects to port on the peer.
func (n *Network) DialTCP(ctx context.Context, port uint16) (net.Conn, error) {
	if e := n.Err(); e != nil {
		return nil, fmt.Errorf("tunnel: dial port %d: %w", port, e)
	}
	// A network that goes down ends the dial (the SYN would be retried
	// for two minutes otherwise).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-n.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	c, err := gonet.DialContextTCP(ctx, n.s, full(n.peer, port), ipv6.ProtocolNumber)
	if err != nil {
		if e := n.Err(); e != nil {
			return nil, fmt.Errorf("tunnel: dial port %d: %w", port, e)
		}
		return nil, fmt.Errorf("tunnel: dial port %d: %w", port, err)
	}
	return c, nil
}

// ListenTCP listens on port of our address.
func (n *Network) ListenTCP(port uint16) (net.Listener, error) {
	l, err := gonet.ListenTCP(n.s, full(n.local, port), ipv6.ProtocolNumber)
	if err != nil {
		return nil, fmt.Errorf("tunnel: listen on port %d: %w", port, err)
	}
	return l, nil
}

// ListenUDP binds port (0: any free port) on our address; ReadFrom and
// WriteTo exchange datagrams with the peer.
func (n *Network) ListenUDP(port uint16) (net.PacketConn, error) {
	laddr := full(n.local, port)
	c, err := gonet.DialUDP(n.s, &laddr, nil, ipv6.ProtocolNumber)
	if err != nil {
		return nil, fmt.Errorf("tunnel: bind UDP port %d: %w", port, err)
	}
	return c, nil
}

// UDPAddr returns the peer's UDP address for port, for WriteTo.
func (n *Network) UDPAddr(port uint16) *net.UDPAddr {
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(n.peer, port))
}
