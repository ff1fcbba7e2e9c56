package usbmux

import (
	"context"
	"net"
)

// Mux is what the CoreDevice backend needs from a usbmux: the attached
// devices, byte streams to their ports, and the pair records and system
// BUID that pairing uses. Client (through usbmuxd's socket) and
// muxusb.Host (the box speaking usbmux over USB itself) both provide it.
type Mux interface {
	// ListDevices returns the attached devices (none is not an error).
	ListDevices(ctx context.Context) ([]Device, error)
	// Connect opens a byte stream to port on the device deviceID; ctx
	// bounds only the set-up.
	Connect(ctx context.Context, deviceID uint64, port uint16) (net.Conn, error)
	// ReadPairRecord returns the pair record kept for udid, or an error
	// wrapping ErrNoPairRecord.
	ReadPairRecord(ctx context.Context, udid string) ([]byte, error)
	// SavePairRecord keeps record for udid.
	SavePairRecord(ctx context.Context, udid string, deviceID uint64, record []byte) error
	// ReadBUID returns the host's system BUID, stable across restarts.
	ReadBUID(ctx context.Context) (string, error)
}

var _ Mux = (*Client)(nil)
