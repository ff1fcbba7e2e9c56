// Package coredevicetest is a fake iPhone for tests, in process: a fake
// usbmuxd on a temporary Unix socket, a fake lockdownd with TLS and the
// Trust prompt, a fake CoreDeviceProxy answering CDTunnel, and a gVisor
// "device" network serving RSD and RemoteXPC services whose answers the
// test writes.
package coredevicetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/cdtunnel"
	"github.com/openlolo/openlolo/hw/coredevice/ddi/dditest"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/tunnel"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/usbmuxtest"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// Handler answers one request to a service; a nil reply sends nothing.
// ErrDrop closes the connection without a reply (as the phone does while
// it stops a media stream).
type Handler func(ctx context.Context, req xpc.Dict) (xpc.Dict, error)

// ErrDrop is what a Handler returns to drop the connection unanswered.
var ErrDrop = errors.New("coredevicetest: drop the connection")

// Service is a RemoteXPC service of the fake phone.
type Service struct {
	Features []string
	Handle   Handler
	// Stream, if set, answers requests it knows with several replies
	// (streaming features such as streamapplist); ok false hands the
	// request to Handle.
	Stream func(ctx context.Context, req xpc.Dict) (replies []xpc.Dict, ok bool)
}

// ECID is the fake phone's UniqueChipID (RSD's properties).
const ECID = uint64(0x001122334455)

// Addresses and ports of the fake tunnel.
var (
	HostAddr   = netip.MustParseAddr("fd35:d15d:9fa1::2")
	DeviceAddr = netip.MustParseAddr("fd35:d15d:9fa1::1")
)

const (
	proxyPort = 49152
	rsdPort   = 58783
	firstPort = 50000
	shimPort  = 49999 // com.apple.mobile.lockdown.remote.trusted
	mountPort = 49998 // com.apple.mobile.mobile_image_mounter.shim.remote
	amfiPort  = 49153 // com.apple.amfi.lockdown, over usbmux
)

// Phone is a fake iPhone. Set the fields, then Start.
type Phone struct {
	UDID           string // "" means a fixed test UDID
	ProductType    string // "" means "iPhone17,1"
	ProductVersion string // "" means "27.0"
	// Prompt answers Pair requests while Trust This Computer? is shown
	// (see lockdowntest.Device.Prompt); nil trusts at once.
	Prompt func() string
	// Services are the RemoteXPC services RSD lists, by name.
	Services map[string]Service
	// DeveloperMode is what remote lockdown reports.
	DeveloperMode bool
	// Mounter, if set, is the phone's image mounter (RSD lists it) and
	// the developer services appear in RSD's catalogue only while it has
	// an image mounted, as on a phone. Nil: no mounter is listed and the
	// services always are. Start sets its DeveloperMode to the phone's.
	Mounter *dditest.Mounter

	Mux      *usbmuxtest.Server
	Lockdown *lockdowntest.Device
	Device   usbmux.Device

	mu        sync.Mutex
	ports     map[string]uint16
	requests  map[string][]xpc.Dict
	perConn   map[string][]int // requests on each connection, per service
	tunnels   int
	reveals   int
	lockdowns int
	networks  []*tunnel.Network
	listeners []net.Listener
}

// Start brings the fake phone up behind a fake usbmuxd (stopped at t's
// cleanup) and returns a usbmux client for it.
func (p *Phone) Start(t testing.TB) *usbmux.Client {
	t.Helper()
	accept := p.Ports()
	p.Mux = &usbmuxtest.Server{}
	p.Mux.Connect = func(_ uint64, port uint16) func(net.Conn) { return accept(port) }
	path := p.Mux.Start(t)
	p.Device = usbmux.Device{ID: 1, UDID: p.UDID, ConnectionType: "USB", ProductID: 0x12a8}
	p.Mux.Attach(p.Device)
	t.Cleanup(p.Stop)
	return &usbmux.Client{Socket: path}
}

// Ports readies the fake phone without a usbmuxd and returns what
// answers a stream to each of its usbmux ports (nil: nobody listens
// there), for any device side of usbmux: Start's fake usbmuxd, or
// muxusb.Serve over a USB gadget. Stop ends what it started.
func (p *Phone) Ports() func(port uint16) func(net.Conn) {
	if p.UDID == "" {
		p.UDID = "00008140-0011223344556677"
	}
	if p.ProductType == "" {
		p.ProductType = "iPhone17,1"
	}
	if p.ProductVersion == "" {
		p.ProductVersion = "27.0"
	}
	p.Lockdown = &lockdowntest.Device{
		UDID: p.UDID, ProductType: p.ProductType, ProductVersion: p.ProductVersion, DeviceName: "Test iPhone",
		Prompt:        p.Prompt,
		DeveloperMode: p.DeveloperMode,
		Services: map[string]lockdowntest.Service{
			"com.apple.internal.devicecompute.CoreDeviceProxy": {Port: proxyPort, SSL: true},
			"com.apple.amfi.lockdown":                          {Port: amfiPort, SSL: true},
		},
	}
	if p.Mounter != nil {
		p.Mounter.DeveloperMode = p.DeveloperMode
	}
	p.ports = map[string]uint16{}
	p.requests = map[string][]xpc.Dict{}
	p.perConn = map[string][]int{}
	names := make([]string, 0, len(p.Services))
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		p.ports[n] = uint16(firstPort + i)
	}
	return func(port uint16) func(net.Conn) {
		switch port {
		case lockdown.Port:
			return p.Lockdown.Serve
		case proxyPort:
			return p.serveProxy
		case amfiPort:
			return p.serveAMFI
		}
		return nil
	}
}

// Stop closes the fake phone's tunnels and their listeners.
func (p *Phone) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.listeners {
		l.Close()
	}
	for _, n := range p.networks {
		n.Close()
	}
}

// Requests returns the requests service received, in order.
func (p *Phone) Requests(service string) []xpc.Dict {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]xpc.Dict{}, p.requests[service]...)
}

// RequestsPerConn returns how many requests each connection to service
// carried (devices abort on a second one that wants a reply).
func (p *Phone) RequestsPerConn(service string) []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int{}, p.perConn[service]...)
}

// Tunnels returns how many tunnels were opened.
func (p *Phone) Tunnels() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tunnels
}

// Reveals returns how often the host asked to reveal the Developer Mode
// switch in Settings.
func (p *Phone) Reveals() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reveals
}

// RemoteLockdowns returns how many connections the host made to lockdown
// over the tunnel: the backend's readiness check makes one each time it
// asks about Developer Mode.
func (p *Phone) RemoteLockdowns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lockdowns
}

// serveAMFI is com.apple.amfi.lockdown: action 0 reveals the Developer
// Mode switch.
func (p *Phone) serveAMFI(conn net.Conn) {
	tc, err := p.Lockdown.ServeTLS(conn, p.Lockdown.PairedHost())
	if err != nil {
		conn.Close()
		return
	}
	defer tc.Close()
	req, err := lockdown.ReadMessage(tc)
	if err != nil {
		return
	}
	if n, ok := req.Uint("action"); !ok || n != 0 {
		lockdown.WriteMessage(tc, plist.Dict{{Key: "Error", Value: "unexpected action"}})
		return
	}
	p.mu.Lock()
	p.reveals++
	p.mu.Unlock()
	lockdown.WriteMessage(tc, plist.Dict{{Key: "success", Value: true}})
}

// Network returns the newest tunnel's device end (nil before the first),
// where fake services bind UDP.
func (p *Phone) Network() *tunnel.Network {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.networks) == 0 {
		return nil
	}
	return p.networks[len(p.networks)-1]
}

// Unplug detaches the phone from usbmuxd and drops every tunnel.
func (p *Phone) Unplug() {
	p.Mux.Detach(p.Device.ID)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range p.networks {
		n.Close()
	}
}

// serveProxy is CoreDeviceProxy: TLS with the paired host, the CDTunnel
// handshake, then the device's network.
func (p *Phone) serveProxy(conn net.Conn) {
	tc, err := p.Lockdown.ServeTLS(conn, p.Lockdown.PairedHost())
	if err != nil {
		conn.Close()
		return
	}
	req, err := cdtunnel.ReadRequest(tc)
	if err != nil {
		tc.Close()
		return
	}
	// The device listens before it answers the handshake: the host
	// dials RSD as soon as it has the answer. Until then the network's
	// own writes wait, so they cannot cut into the answer.
	gate := make(chan struct{})
	n, err := tunnel.New(gatedWriter{tc, gate}, tunnel.Config{Local: DeviceAddr, PrefixLen: 64, Peer: HostAddr, MTU: req.MTU})
	if err != nil {
		tc.Close()
		return
	}
	p.mu.Lock()
	p.tunnels++
	p.networks = append(p.networks, n)
	p.mu.Unlock()
	if err := p.listen(n, rsdPort, p.serveRSD); err != nil {
		n.Close()
		return
	}
	if err := p.listen(n, shimPort, func(c net.Conn) {
		p.mu.Lock()
		p.lockdowns++
		p.mu.Unlock()
		p.Lockdown.Serve(c)
	}); err != nil {
		n.Close()
		return
	}
	if p.Mounter != nil {
		if err := p.listen(n, mountPort, p.Mounter.Serve); err != nil {
			n.Close()
			return
		}
	}
	for name, port := range p.ports {
		if err := p.listen(n, port, func(c net.Conn) { p.serveService(name, c) }); err != nil {
			n.Close()
			return
		}
	}
	err = cdtunnel.WriteResponse(tc, cdtunnel.Params{
		Address: HostAddr, PrefixLen: 64, MTU: req.MTU, ServerAddress: DeviceAddr, RSDPort: rsdPort,
	})
	close(gate)
	if err != nil {
		n.Close()
		return
	}
	<-n.Done()
}

// gatedWriter holds writes until gate is closed.
type gatedWriter struct {
	net.Conn
	gate chan struct{}
}

func (g gatedWriter) Write(b []byte) (int, error) {
	<-g.gate
	return g.Conn.Write(b)
}

func (p *Phone) listen(n *tunnel.Network, port uint16, serve func(net.Conn)) error {
	l, err := n.ListenTCP(port)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.listeners = append(p.listeners, l)
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return nil
}

// handshake is RSD's catalogue of the fake phone.
func (p *Phone) handshake() xpc.Dict {
	services := xpc.Dict{}
	for name, port := range p.ports {
		if p.Mounter != nil && !p.Mounter.IsMounted() {
			break // the developer services come with the disk image
		}
		features := []any{}
		for _, f := range p.Services[name].Features {
			features = append(features, f)
		}
		services = append(services, xpc.Entry{Key: name, Value: xpc.Dict{
			{Key: "Entitlement", Value: "com.apple.private.CoreDevice"},
			{Key: "Port", Value: strconv.Itoa(int(port))},
			{Key: "Properties", Value: xpc.Dict{
				{Key: "Features", Value: features},
				{Key: "ServiceVersion", Value: uint64(1)},
				{Key: "UsesRemoteXPC", Value: true},
			}},
		}})
	}
	services = append(services, xpc.Entry{Key: "com.apple.mobile.lockdown.remote.trusted", Value: xpc.Dict{
		{Key: "Entitlement", Value: "com.apple.mobile.lockdown.remote.trusted"},
		{Key: "Port", Value: strconv.Itoa(shimPort)},
		{Key: "Properties", Value: xpc.Dict{{Key: "ServiceVersion", Value: uint64(1)}}},
	}})
	if p.Mounter != nil {
		services = append(services, xpc.Entry{Key: "com.apple.mobile.mobile_image_mounter.shim.remote", Value: xpc.Dict{
			{Key: "Entitlement", Value: "com.apple.mobile.mobile_image_mounter.shim.remote"},
			{Key: "Port", Value: strconv.Itoa(mountPort)},
			{Key: "Properties", Value: xpc.Dict{{Key: "ServiceVersion", Value: uint64(1)}}},
		}})
	}
	return xpc.Dict{
		{Key: "MessageType", Value: "Handshake"},
		{Key: "MessagingProtocolVersion", Value: uint64(7)},
		{Key: "Properties", Value: xpc.Dict{
			{Key: "UniqueDeviceID", Value: p.UDID},
			{Key: "ProductType", Value: p.ProductType},
			{Key: "OSVersion", Value: p.ProductVersion},
			{Key: "BuildVersion", Value: "25A5000"},
			{Key: "DeviceClass", Value: "iPhone"},
			{Key: "UniqueChipID", Value: ECID},
		}},
		{Key: "Services", Value: services},
		{Key: "UUID", Value: "d09e3fd1-62aa-47bc-b01a-23df97017d34"},
	}
}

func (p *Phone) serveRSD(c net.Conn) {
	defer c.Close()
	ctx := context.Background()
	x, err := remotexpc.Accept(ctx, c)
	if err != nil {
		return
	}
	if x.SendOn(ctx, remotexpc.RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, ID: 1, Body: p.handshake()}) != nil {
		return
	}
	for {
		if _, _, err := x.Receive(ctx); err != nil {
			return
		}
	}
}

func (p *Phone) serveService(name string, c net.Conn) {
	defer c.Close()
	ctx := context.Background()
	x, err := remotexpc.Accept(ctx, c)
	if err != nil {
		return
	}
	p.mu.Lock()
	idx := len(p.perConn[name])
	p.perConn[name] = append(p.perConn[name], 0)
	p.mu.Unlock()
	for {
		_, m, err := x.Receive(ctx)
		if err != nil {
			return
		}
		p.mu.Lock()
		p.requests[name] = append(p.requests[name], m.Body)
		p.perConn[name][idx]++
		p.mu.Unlock()
		svc := p.Services[name]
		var replies []xpc.Dict
		ok := false
		if svc.Stream != nil {
			replies, ok = svc.Stream(ctx, m.Body)
		}
		if !ok {
			reply, err := svc.Handle(ctx, m.Body)
			if errors.Is(err, ErrDrop) {
				return
			}
			if err != nil {
				reply = xpc.Dict{{Key: "CoreDevice.error", Value: xpc.Dict{{Key: "description", Value: fmt.Sprint(err)}}}}
			}
			if reply != nil {
				replies = []xpc.Dict{reply}
			}
		}
		for _, reply := range replies {
			if x.SendOn(ctx, remotexpc.ReplyStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent | xpc.FlagReply, ID: m.ID, Body: reply}) != nil {
				return
			}
		}
	}
}
