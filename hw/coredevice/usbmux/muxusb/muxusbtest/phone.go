package muxusbtest

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
)

// Phone is a fake iPhone's usbmux. Set the fields before Start.
type Phone struct {
	// Connect returns the handler for a stream to port, or nil to refuse
	// it (RST, as a port nobody listens on). A nil Connect refuses all.
	Connect func(port uint16) func(net.Conn)
	// Version is the usbmux version the phone answers (0: 2).
	Version uint32
	// MaxPacket is the bulk endpoints' packet size (0: 512).
	MaxPacket int
}

// Start serves the phone on a new Link until cleanup, and returns the
// link; open the host's session on link.Host().
func (p *Phone) Start(t testing.TB) *Link {
	t.Helper()
	mp := p.MaxPacket
	if mp == 0 {
		mp = 512
	}
	l := NewLink(mp)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		muxusb.Serve(ctx, l.Device(), muxusb.Config{MaxPacket: mp, Name: "fake phone", Version: p.Version}, func(port uint16) func(net.Conn) {
			if p.Connect == nil {
				return nil
			}
			return p.Connect(port)
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return l
}

// Forward returns a handler that bridges a stream to a TCP listener at
// addr (a fake service listening on the host), closing both when either
// side ends.
func Forward(addr string) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer up.Close()
		done := make(chan struct{}, 2)
		go func() { io.Copy(up, c); done <- struct{}{} }()
		go func() { io.Copy(c, up); done <- struct{}{} }()
		<-done
	}
}
