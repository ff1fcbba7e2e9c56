package adb

import (
	"context"
	"fmt"
	"net"
)

// DialTCP connects to a phone's adbd listening on TCP (a phone in
// `adb tcpip` mode, usually port 5555) and runs the handshake.
func DialTCP(ctx context.Context, addr string, cfg ClientConfig) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("adb: dial %s: %w", addr, err)
	}
	c, err := Client(ctx, nc, cfg)
	if err != nil {
		return nil, fmt.Errorf("adb: %s: %w", addr, err)
	}
	return c, nil
}
