package main

import (
	"context"
	"net"
	"syscall"
)

// freebind lets the setup network's listeners bind its address before
// the address is on the radio (it is there only while the setup network
// is open).
var freebind = net.ListenConfig{Control: func(network, address string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, syscall.IP_FREEBIND, 1)
	}); err != nil {
		return err
	}
	return serr
}}

func listenSetup(ctx context.Context, addr string) (net.Listener, net.PacketConn, error) {
	ln, err := freebind.Listen(ctx, "tcp4", net.JoinHostPort(addr, "80"))
	if err != nil {
		return nil, nil, err
	}
	pc, err := freebind.ListenPacket(ctx, "udp4", net.JoinHostPort(addr, "53"))
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	return ln, pc, nil
}
