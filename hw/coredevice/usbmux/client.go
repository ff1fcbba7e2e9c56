package usbmux

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// DefaultSocket is where usbmuxd listens on Linux and macOS.
const DefaultSocket = "/var/run/usbmuxd"

// Client talks to usbmuxd. The zero value uses DefaultSocket.
type Client struct {
	// Socket is the Unix socket path; "" means DefaultSocket.
	Socket string
	// ProgName names this client to usbmuxd; "" means "openlolo".
	ProgName string
}

// Device is one attached device as usbmuxd lists it.
type Device struct {
	ID             uint64 // usbmuxd's handle, valid while attached
	UDID           string // SerialNumber
	ConnectionType string // "USB" or "Network"
	ProductID      uint64
	LocationID     uint64
}

func deviceFrom(d plist.Dict) Device {
	p := d.Dict("Properties")
	id, _ := d.Uint("DeviceID")
	if id == 0 {
		id, _ = p.Uint("DeviceID")
	}
	pid, _ := p.Uint("ProductID")
	loc, _ := p.Uint("LocationID")
	return Device{ID: id, UDID: p.String("SerialNumber"), ConnectionType: p.String("ConnectionType"), ProductID: pid, LocationID: loc}
}

func (c *Client) socket() string {
	if c.Socket == "" {
		return DefaultSocket
	}
	return c.Socket
}

// request builds a request with the fields usbmuxd wants on every message.
func (c *Client) request(typ string, extra ...plist.Entry) plist.Dict {
	name := c.ProgName
	if name == "" {
		name = "openlolo"
	}
	d := plist.Dict{
		{Key: "MessageType", Value: typ},
		{Key: "ClientVersionString", Value: "openlolo-usbmux"},
		{Key: "ProgName", Value: name},
		{Key: "kLibUSBMuxVersion", Value: uint64(3)},
	}
	return append(d, extra...)
}

// dial opens a new socket to usbmuxd; ctx bounds the whole exchange until
// stop is called.
func (c *Client) dial(ctx context.Context) (net.Conn, func() bool, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.socket())
	if err != nil {
		return nil, nil, fmt.Errorf("usbmux: is usbmuxd running? %w", err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	return conn, stop, nil
}

// exchange sends one request and reads its one reply.
func (c *Client) exchange(ctx context.Context, req plist.Dict) (plist.Dict, error) {
	conn, stop, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer stop()
	reply, err := roundTrip(conn, req)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("usbmux: %s: %w", req.String("MessageType"), ctx.Err())
	}
	return reply, err
}

func roundTrip(conn net.Conn, req plist.Dict) (plist.Dict, error) {
	const tag = 1
	if err := WriteMessage(conn, tag, req); err != nil {
		return nil, err
	}
	for {
		t, reply, err := ReadMessage(conn)
		if err != nil {
			return nil, fmt.Errorf("usbmux: %s: %w", req.String("MessageType"), err)
		}
		if t == tag {
			return reply, nil
		}
	}
}

// checkResult turns a Result reply into nil or a *ResultError.
func checkResult(op string, reply plist.Dict) error {
	if reply.String("MessageType") != "Result" {
		return fmt.Errorf("%w: %s answered with %q, want Result", ErrMalformed, op, reply.String("MessageType"))
	}
	n, ok := reply.Uint("Number")
	if !ok {
		return fmt.Errorf("%w: %s: Result without a Number", ErrMalformed, op)
	}
	if n != ResultOK {
		return &ResultError{Op: op, Number: n}
	}
	return nil
}

// ListDevices returns the attached devices (none is not an error).
func (c *Client) ListDevices(ctx context.Context) ([]Device, error) {
	reply, err := c.exchange(ctx, c.request("ListDevices"))
	if err != nil {
		return nil, err
	}
	list, ok := reply.Get("DeviceList")
	if !ok {
		if err := checkResult("ListDevices", reply); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: ListDevices reply without DeviceList", ErrMalformed)
	}
	arr, _ := list.([]any)
	devs := make([]Device, 0, len(arr))
	for _, v := range arr {
		if d, ok := v.(plist.Dict); ok {
			devs = append(devs, deviceFrom(d))
		}
	}
	return devs, nil
}

// ErrNoPairRecord is returned by ReadPairRecord when usbmuxd has none.
var ErrNoPairRecord = errors.New("usbmux: usbmuxd has no pair record for this device")

// ReadPairRecord returns the pair record usbmuxd keeps for udid (a
// property list, XML or binary).
func (c *Client) ReadPairRecord(ctx context.Context, udid string) ([]byte, error) {
	reply, err := c.exchange(ctx, c.request("ReadPairRecord", plist.Entry{Key: "PairRecordID", Value: udid}))
	if err != nil {
		return nil, err
	}
	if data := reply.Data("PairRecordData"); data != nil {
		return data, nil
	}
	if err := checkResult("ReadPairRecord", reply); err != nil {
		var re *ResultError
		// usbmuxd 1.1 answers ENOENT (2, the number of BADDEV); others 4.
		if errors.As(err, &re) && (re.Number == ResultBadDevice || re.Number == ResultNoSuchService) {
			return nil, ErrNoPairRecord
		}
		return nil, err
	}
	return nil, fmt.Errorf("%w: ReadPairRecord reply without PairRecordData", ErrMalformed)
}

// SavePairRecord hands a pair record to usbmuxd, which needs it for its
// own sessions with the device (Wi-Fi sync, preflight).
func (c *Client) SavePairRecord(ctx context.Context, udid string, deviceID uint64, record []byte) error {
	reply, err := c.exchange(ctx, c.request("SavePairRecord",
		plist.Entry{Key: "PairRecordID", Value: udid},
		plist.Entry{Key: "PairRecordData", Value: record},
		plist.Entry{Key: "DeviceID", Value: deviceID}))
	if err != nil {
		return err
	}
	return checkResult("SavePairRecord", reply)
}

// ReadBUID returns usbmuxd's system BUID, which pairing puts in the pair
// record.
func (c *Client) ReadBUID(ctx context.Context) (string, error) {
	reply, err := c.exchange(ctx, c.request("ReadBUID"))
	if err != nil {
		return "", err
	}
	if s := reply.String("BUID"); s != "" {
		return s, nil
	}
	if err := checkResult("ReadBUID", reply); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: ReadBUID reply without BUID", ErrMalformed)
}

// Connect opens a byte stream to port on the device. ctx bounds only the
// set-up; the returned connection lives until closed.
func (c *Client) Connect(ctx context.Context, deviceID uint64, port uint16) (net.Conn, error) {
	conn, stop, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	reply, err := roundTrip(conn, c.request("Connect",
		plist.Entry{Key: "DeviceID", Value: deviceID},
		plist.Entry{Key: "PortNumber", Value: swapPort(port)}))
	if !stop() || ctx.Err() != nil {
		conn.Close()
		return nil, fmt.Errorf("usbmux: Connect to port %d: %w", port, context.Cause(ctx))
	}
	if err == nil {
		err = checkResult("Connect", reply)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("usbmux: connect to port %d of device %d: %w", port, deviceID, err)
	}
	return conn, nil
}

// EventKind says what happened to a device.
type EventKind string

// The events usbmuxd sends to a listener.
const (
	Attached EventKind = "Attached"
	Detached EventKind = "Detached"
	Paired   EventKind = "Paired"
)

// Event is one device event. For Detached and Paired only Device.ID is set.
type Event struct {
	Kind   EventKind
	Device Device
}

// Listen subscribes to device events: usbmuxd first reports every device
// already attached, then changes. The channel is closed when ctx ends or
// the socket fails; the error after that is returned by the wait func.
func (c *Client) Listen(ctx context.Context) (<-chan Event, func() error, error) {
	conn, stop, err := c.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	reply, err := roundTrip(conn, c.request("Listen"))
	if err == nil {
		err = checkResult("Listen", reply)
	}
	if err != nil {
		stop()
		conn.Close()
		return nil, nil, err
	}
	ch := make(chan Event, 16)
	done := make(chan error, 1)
	go func() {
		defer close(ch)
		defer stop()
		defer conn.Close()
		for {
			_, m, err := ReadMessage(conn)
			if err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				done <- fmt.Errorf("usbmux: listen: %w", err)
				return
			}
			ev := Event{Kind: EventKind(m.String("MessageType")), Device: deviceFrom(m)}
			switch ev.Kind {
			case Attached, Detached, Paired:
			default:
				continue
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				done <- fmt.Errorf("usbmux: listen: %w", ctx.Err())
				return
			}
		}
	}()
	return ch, func() error { return <-done }, nil
}
