// Package cdtunnel speaks the CDTunnel protocol of CoreDeviceProxy
// (com.apple.internal.devicecompute.CoreDeviceProxy, iOS 17.4+ over USB):
// a JSON handshake that assigns the host an IPv6 address on a point-to-point
// link to the device, then bare IPv6 packets back to back on the same TLS
// stream.
//
// Each handshake message is "CDTunnel", a big-endian u16 length and that
// many bytes of JSON. After it the stream has no per-packet framing: a
// packet's length comes from its IPv6 header (40 bytes + payload length),
// and one Read may hold several packets or part of one.
package cdtunnel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
)

// Magic starts every handshake message.
const Magic = "CDTunnel"

// ErrMalformed is wrapped by errors about bytes that break the protocol.
var ErrMalformed = errors.New("cdtunnel: malformed stream")

// WriteFrame writes one handshake message carrying body (JSON).
func WriteFrame(w io.Writer, body []byte) error {
	if len(body) > 0xFFFF {
		return fmt.Errorf("cdtunnel: handshake message of %d bytes", len(body))
	}
	b := append([]byte(Magic), byte(len(body)>>8), byte(len(body)))
	if _, err := w.Write(append(b, body...)); err != nil {
		return fmt.Errorf("cdtunnel: write handshake: %w", err)
	}
	return nil
}

// ReadFrame reads one handshake message and returns its body.
func ReadFrame(r io.Reader) ([]byte, error) {
	var h [len(Magic) + 2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("cdtunnel: read handshake: %w", err)
	}
	if string(h[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("%w: handshake starts %q, want %q", ErrMalformed, h[:len(Magic)], Magic)
	}
	body := make([]byte, binary.BigEndian.Uint16(h[len(Magic):]))
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("cdtunnel: read handshake body: %w", err)
	}
	return body, nil
}

// Request is the host's handshake.
type Request struct {
	Type string `json:"type"` // "clientHandshakeRequest"
	MTU  int    `json:"mtu"`
}

// Params is what the device's handshake reply assigns.
type Params struct {
	Address       netip.Addr // the host's address on the tunnel
	PrefixLen     int        // from the netmask, 64 in practice
	MTU           int
	ServerAddress netip.Addr // the device's address
	RSDPort       uint16     // RemoteServiceDiscovery, 58783 in practice
}

type clientParameters struct {
	Address string `json:"address"`
	Netmask string `json:"netmask"`
	MTU     int    `json:"mtu"`
}

type response struct {
	Type             string           `json:"type"`
	ClientParameters clientParameters `json:"clientParameters"`
	ServerAddress    string           `json:"serverAddress"`
	ServerRSDPort    int              `json:"serverRSDPort"`
}

// WriteRequest sends the host's handshake asking for mtu.
func WriteRequest(w io.Writer, mtu int) error {
	b, _ := json.Marshal(Request{Type: "clientHandshakeRequest", MTU: mtu})
	return WriteFrame(w, b)
}

// ReadRequest reads a host's handshake (the device side, for fakes).
func ReadRequest(r io.Reader) (Request, error) {
	b, err := ReadFrame(r)
	if err != nil {
		return Request{}, err
	}
	var req Request
	if err := json.Unmarshal(b, &req); err != nil || req.Type != "clientHandshakeRequest" {
		return Request{}, fmt.Errorf("%w: handshake request %q", ErrMalformed, b)
	}
	return req, nil
}

// WriteResponse sends the device's handshake reply (for fakes).
func WriteResponse(w io.Writer, p Params) error {
	mask := netip.PrefixFrom(netip.IPv6Unspecified(), p.PrefixLen)
	b, _ := json.Marshal(response{
		Type:             "serverHandshakeResponse",
		ClientParameters: clientParameters{Address: p.Address.String(), Netmask: maskString(mask.Bits()), MTU: p.MTU},
		ServerAddress:    p.ServerAddress.String(),
		ServerRSDPort:    int(p.RSDPort),
	})
	return WriteFrame(w, b)
}

func maskString(bits int) string {
	var a [16]byte
	for i := 0; i < bits && i < 128; i++ {
		a[i/8] |= 0x80 >> (i % 8)
	}
	return netip.AddrFrom16(a).String()
}

// ReadResponse reads and checks the device's handshake reply.
func ReadResponse(r io.Reader) (Params, error) {
	b, err := ReadFrame(r)
	if err != nil {
		return Params{}, err
	}
	var resp response
	if err := json.Unmarshal(b, &resp); err != nil {
		return Params{}, fmt.Errorf("%w: handshake reply: %v", ErrMalformed, err)
	}
	if resp.Type != "serverHandshakeResponse" {
		return Params{}, fmt.Errorf("%w: handshake reply of type %q", ErrMalformed, resp.Type)
	}
	p := Params{MTU: resp.ClientParameters.MTU}
	if p.Address, err = netip.ParseAddr(resp.ClientParameters.Address); err != nil || !p.Address.Is6() {
		return Params{}, fmt.Errorf("%w: host address %q", ErrMalformed, resp.ClientParameters.Address)
	}
	if p.ServerAddress, err = netip.ParseAddr(resp.ServerAddress); err != nil || !p.ServerAddress.Is6() {
		return Params{}, fmt.Errorf("%w: device address %q", ErrMalformed, resp.ServerAddress)
	}
	mask, err := netip.ParseAddr(resp.ClientParameters.Netmask)
	if err != nil || !mask.Is6() {
		return Params{}, fmt.Errorf("%w: netmask %q", ErrMalformed, resp.ClientParameters.Netmask)
	}
	if p.PrefixLen = maskBits(mask); p.PrefixLen < 0 {
		return Params{}, fmt.Errorf("%w: netmask %q is not contiguous", ErrMalformed, resp.ClientParameters.Netmask)
	}
	if resp.ServerRSDPort <= 0 || resp.ServerRSDPort > 65535 {
		return Params{}, fmt.Errorf("%w: RSD port %d", ErrMalformed, resp.ServerRSDPort)
	}
	p.RSDPort = uint16(resp.ServerRSDPort)
	if p.MTU < MinMTU || p.MTU > MaxPacket {
		return Params{}, fmt.Errorf("%w: MTU %d (IPv6 needs %d..%d)", ErrMalformed, p.MTU, MinMTU, MaxPacket)
	}
	return p, nil
}

// maskBits returns the prefix length of a contiguous netmask, or -1.
func maskBits(m netip.Addr) int {
	n, seenZero := 0, false
	for _, b := range m.As16() {
		for i := 7; i >= 0; i-- {
			one := b>>i&1 == 1
			if one && seenZero {
				return -1
			}
			if one {
				n++
			} else {
				seenZero = true
			}
		}
	}
	return n
}

// Packet limits: IPv6's minimum MTU, and the largest packet the 16-bit
// payload length allows.
const (
	MinMTU     = 1280
	ipv6Header = 40
	MaxPacket  = ipv6Header + 0xFFFF
)

// PacketReader splits the tunnel stream into IPv6 packets.
type PacketReader struct {
	r   io.Reader
	buf []byte // holds one packet at most
}

// NewPacketReader reads packets from r (the TLS stream after the
// handshake).
func NewPacketReader(r io.Reader) *PacketReader {
	return &PacketReader{r: r, buf: make([]byte, MaxPacket)}
}

// Next returns the next packet. The slice is valid until the next call.
// io.EOF means the stream ended between packets.
func (p *PacketReader) Next() ([]byte, error) {
	h := p.buf[:ipv6Header]
	if _, err := io.ReadFull(p.r, h); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("cdtunnel: stream ended inside a packet header: %w", err)
		}
		return nil, err
	}
	if h[0]>>4 != 6 {
		return nil, fmt.Errorf("%w: packet of IP version %d, want 6", ErrMalformed, h[0]>>4)
	}
	n := ipv6Header + int(binary.BigEndian.Uint16(h[4:]))
	if _, err := io.ReadFull(p.r, p.buf[ipv6Header:n]); err != nil {
		return nil, fmt.Errorf("cdtunnel: stream ended inside a packet: %w", noEOF(err))
	}
	return p.buf[:n], nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
