package coredevice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/cdtunnel"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/rsd"
	"github.com/openlolo/openlolo/hw/coredevice/tunnel"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// ProxyService is the lockdown service that carries the packet tunnel
// (iOS 17.4+ over USB).
const ProxyService = "com.apple.internal.devicecompute.CoreDeviceProxy"

// tunnelMTU is what we ask CoreDeviceProxy for (devicectl's value); our
// own end is capped lower (tunnel.MaxHostMTU).
const tunnelMTU = 16000

// Dialer opens tunnels to iPhones. The zero value is not usable: Mux and
// Store are needed.
type Dialer struct {
	Mux   usbmux.Mux     // usbmuxd's socket, or the box's own usbmux over USB
	Store lockdown.Store // pair records, in the state directory
	// Label names us to lockdownd ("" means "openlolo").
	Label string
	// Now is the clock for new pair records' validity (nil: time.Now).
	Now func() time.Time
	// Trust, if set, is called once when the phone shows Trust This
	// Computer? (or is locked) and pairing waits for its owner.
	Trust func(error)
	// PairInterval is how often a waiting Pair is repeated (0: 1 s).
	PairInterval time.Duration
}

// Info is what lockdownd says about the phone.
type Info struct {
	UDID, ProductType, ProductVersion, DeviceName, BuildVersion string
}

// Conn is a live tunnel to one iPhone and its service catalogue.
type Conn struct {
	Info   Info
	Params cdtunnel.Params
	RSD    rsd.Handshake
	net    *tunnel.Network
	// deviceID identifies this host's session in CoreDevice requests.
	deviceID xpc.UUID
	dev      usbmux.Device // the phone, as usbmuxd lists it
}

func (d *Dialer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Dialer) lockdown(ctx context.Context, dev usbmux.Device) (*lockdown.Client, error) {
	conn, err := d.Mux.Connect(ctx, dev.ID, lockdown.Port)
	if err != nil {
		return nil, fmt.Errorf("coredevice: reach lockdownd: %w", err)
	}
	return lockdown.NewClient(conn, d.Label), nil
}

// record returns the pair record for dev: ours from the store, else the
// one usbmuxd keeps (copied into the store), else a new pairing, which
// waits for the owner to tap Trust.
func (d *Dialer) record(ctx context.Context, lc *lockdown.Client, dev usbmux.Device) (*lockdown.PairRecord, error) {
	rec, err := d.Store.Load(dev.UDID)
	if err == nil {
		return rec, nil
	}
	if !errors.Is(err, lockdown.ErrNoRecord) {
		return nil, err
	}
	if b, err := d.Mux.ReadPairRecord(ctx, dev.UDID); err == nil {
		if rec, err := lockdown.ParsePairRecord(b); err == nil {
			return rec, d.Store.Save(dev.UDID, rec)
		}
	}
	return d.pair(ctx, lc, dev)
}

func (d *Dialer) pair(ctx context.Context, lc *lockdown.Client, dev usbmux.Device) (*lockdown.PairRecord, error) {
	pub, err := lc.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		return nil, fmt.Errorf("coredevice: pair: %w", err)
	}
	key, ok := pub.([]byte)
	if !ok {
		return nil, fmt.Errorf("coredevice: pair: DevicePublicKey is %T", pub)
	}
	buid, err := d.Mux.ReadBUID(ctx)
	if err != nil {
		return nil, fmt.Errorf("coredevice: pair: %w", err)
	}
	rec, err := lockdown.NewPairRecord(key, buid, nil, d.now())
	if err != nil {
		return nil, err
	}
	interval := d.PairInterval
	if interval == 0 {
		interval = time.Second
	}
	if err := lc.PairAndWait(ctx, rec, interval, d.Trust); err != nil {
		return nil, fmt.Errorf("coredevice: pair: %w", err)
	}
	if err := d.Store.Save(dev.UDID, rec); err != nil {
		return nil, err
	}
	// usbmuxd uses the record for its own sessions; it is not needed
	// for ours, so a refusal is not an error.
	if b, err := rec.Marshal(); err == nil {
		d.Mux.SavePairRecord(ctx, dev.UDID, dev.ID, b)
	}
	return rec, nil
}

// Dial pairs if needed, starts CoreDeviceProxy, brings the tunnel up and
// reads the RSD catalogue.
func (d *Dialer) Dial(ctx context.Context, dev usbmux.Device) (*Conn, error) {
	lc, err := d.lockdown(ctx, dev)
	if err != nil {
		return nil, err
	}
	defer lc.Close()
	rec, err := d.record(ctx, lc, dev)
	if err != nil {
		return nil, err
	}
	if _, err := lc.StartSession(ctx, rec); errors.Is(err, lockdown.ErrInvalidHostID) {
		// The phone forgot us (Reset Location & Privacy, another
		// computer's reset): pair again, once, on a new connection.
		lc.Close()
		if err := d.Store.Delete(dev.UDID); err != nil {
			return nil, err
		}
		if lc, err = d.lockdown(ctx, dev); err != nil {
			return nil, err
		}
		defer lc.Close()
		if rec, err = d.pair(ctx, lc, dev); err != nil {
			return nil, err
		}
		lc.Close()
		if lc, err = d.lockdown(ctx, dev); err != nil {
			return nil, err
		}
		defer lc.Close()
		if _, err := lc.StartSession(ctx, rec); err != nil {
			return nil, fmt.Errorf("coredevice: session after pairing again: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("coredevice: session: %w", err)
	}
	info := Info{UDID: dev.UDID}
	for _, v := range []struct {
		key string
		to  *string
	}{{"ProductType", &info.ProductType}, {"ProductVersion", &info.ProductVersion}, {"DeviceName", &info.DeviceName}, {"BuildVersion", &info.BuildVersion}} {
		if x, err := lc.GetValue(ctx, "", v.key); err == nil {
			*v.to, _ = x.(string)
		}
	}
	svc, err := lc.StartService(ctx, ProxyService, rec.EscrowBag)
	if err != nil {
		return nil, fmt.Errorf("coredevice: start the tunnel (iOS 17.4 or later is needed; this phone has %s): %w", info.ProductVersion, err)
	}
	raw, err := d.Mux.Connect(ctx, dev.ID, svc.Port)
	if err != nil {
		return nil, fmt.Errorf("coredevice: reach CoreDeviceProxy: %w", err)
	}
	var stream net.Conn = raw
	if svc.SSL {
		if stream, err = lockdown.ClientTLS(ctx, raw, rec); err != nil {
			raw.Close()
			return nil, fmt.Errorf("coredevice: CoreDeviceProxy: %w", err)
		}
	}
	c, err := openTunnel(ctx, stream)
	if err != nil {
		stream.Close()
		return nil, err
	}
	c.Info = info
	c.dev = dev
	return c, nil
}

// openTunnel runs the CDTunnel handshake on stream, starts the network
// and reads RSD.
func openTunnel(ctx context.Context, stream net.Conn) (*Conn, error) {
	stop := context.AfterFunc(ctx, func() { stream.SetDeadline(time.Unix(1, 0)) })
	err := cdtunnel.WriteRequest(stream, tunnelMTU)
	var p cdtunnel.Params
	if err == nil {
		p, err = cdtunnel.ReadResponse(stream)
	}
	if !stop() {
		return nil, fmt.Errorf("coredevice: tunnel handshake: %w", ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("coredevice: tunnel handshake: %w", err)
	}
	n, err := tunnel.New(stream, tunnel.Config{Local: p.Address, PrefixLen: p.PrefixLen, Peer: p.ServerAddress, MTU: p.MTU})
	if err != nil {
		return nil, err
	}
	c := &Conn{Params: p, net: n, deviceID: newUUID()}
	rc, err := c.dialXPC(ctx, p.RSDPort)
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("coredevice: service discovery: %w", err)
	}
	defer rc.Close()
	if c.RSD, err = rsd.Read(ctx, rc); err != nil {
		n.Close()
		return nil, fmt.Errorf("coredevice: service discovery: %w", err)
	}
	return c, nil
}

func (c *Conn) dialXPC(ctx context.Context, port uint16) (*remotexpc.Conn, error) {
	tc, err := c.net.DialTCP(ctx, port)
	if err != nil {
		return nil, err
	}
	x, err := remotexpc.Dial(ctx, tc)
	if err != nil {
		tc.Close()
		return nil, err
	}
	return x, nil
}

// ErrNoService is wrapped when the phone does not offer a service: too
// old an iOS, or the developer disk image is not mounted.
var ErrNoService = errors.New("coredevice: the phone does not offer this service")

// DialService opens a RemoteXPC connection to a service by name. Open one
// per request: services abort when one connection carries a second
// request that wants a reply.
func (c *Conn) DialService(ctx context.Context, name string) (*remotexpc.Conn, error) {
	s, ok := c.RSD.Service(name)
	if !ok || !s.UsesRemoteXPC {
		return nil, fmt.Errorf("%w: %s", ErrNoService, name)
	}
	x, err := c.dialXPC(ctx, s.Port)
	if err != nil {
		return nil, fmt.Errorf("coredevice: %s: %w", name, err)
	}
	return x, nil
}

// Done is closed when the tunnel is down (the cable was pulled, the phone
// rebooted, or Close).
func (c *Conn) Done() <-chan struct{} { return c.net.Done() }

// Close takes the tunnel down.
func (c *Conn) Close() error { return c.net.Close() }

var _ io.Closer = (*Conn)(nil)
