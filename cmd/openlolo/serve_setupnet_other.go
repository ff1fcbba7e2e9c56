//go:build !linux

package main

import (
	"context"
	"net"
)

func listenSetup(ctx context.Context, addr string, web bool) (net.Listener, net.PacketConn, error) {
	var lc net.ListenConfig
	var ln net.Listener
	if web {
		var err error
		if ln, err = lc.Listen(ctx, "tcp4", net.JoinHostPort(addr, "80")); err != nil {
			return nil, nil, err
		}
	}
	pc, err := lc.ListenPacket(ctx, "udp4", net.JoinHostPort(addr, "53"))
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, nil, err
	}
	return ln, pc, nil
}
