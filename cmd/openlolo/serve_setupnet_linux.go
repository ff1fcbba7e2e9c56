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

// listenSetup binds the setup address's DNS port and, with web, its port
// 80 (without: the box's plain-HTTP entry serves the page).
func listenSetup(ctx context.Context, addr string, web bool) (net.Listener, net.PacketConn, error) {
	var ln net.Listener
	if web {
		var err error
		if ln, err = freebind.Listen(ctx, "tcp4", net.JoinHostPort(addr, "80")); err != nil {
			return nil, nil, err
		}
	}
	pc, err := freebind.ListenPacket(ctx, "udp4", net.JoinHostPort(addr, "53"))
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, nil, err
	}
	return ln, pc, nil
}
