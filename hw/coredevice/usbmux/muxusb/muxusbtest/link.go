// Package muxusbtest fakes the USB under a usbmux session: Link is an
// in-memory cable whose bulk pipes carry USB packets of the endpoint's max
// packet size, and Phone is a fake iPhone's usbmux that hands connections
// to the test's handlers (the fake lockdown, or a real listener).
package muxusbtest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
)

// ErrUnplugged is what the pipes of an unplugged Link return.
var ErrUnplugged = errors.New("muxusbtest: the cable is unplugged")

// Link is an in-memory USB cable with one bulk endpoint each way. A
// transfer is cut into packets of MaxPacket bytes; a read ends at a short
// (or zero-length) packet or when its buffer is full, as on the bus, so a
// transfer that fills its last packet runs into the next one unless the
// sender adds a zero-length packet.
type Link struct {
	maxPacket int

	mu        sync.Mutex
	changed   chan struct{}
	unplug    bool
	toDevice  [][]byte
	toHost    [][]byte
	transfers int // OUT transfers from the host, zero-length ones included
}

// NewLink returns a cable whose endpoints have maxPacket-byte packets.
func NewLink(maxPacket int) *Link {
	return &Link{maxPacket: maxPacket, changed: make(chan struct{})}
}

// Host is the host's end: In reads what the device sent.
func (l *Link) Host() muxusb.Pipe { return end{l: l, host: true} }

// Device is the device's end.
func (l *Link) Device() muxusb.Pipe { return end{l: l} }

// Unplug pulls the cable: every In and Out on both ends fails.
func (l *Link) Unplug() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.unplug {
		l.unplug = true
		l.signalLocked()
	}
}

// HostTransfers returns how many OUT transfers the host made.
func (l *Link) HostTransfers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.transfers
}

func (l *Link) signalLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitLocked waits with l.mu released for a change or ctx's end.
func (l *Link) waitLocked(ctx context.Context) error {
	ch := l.changed
	l.mu.Unlock()
	defer l.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type end struct {
	l    *Link
	host bool
}

func (e end) Out(ctx context.Context, p []byte) (int, error) {
	l := e.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unplug {
		return 0, ErrUnplugged
	}
	size := len(p)
	q := &l.toHost
	if e.host {
		q = &l.toDevice
		l.transfers++
	}
	if len(p) == 0 {
		*q = append(*q, nil)
	}
	for len(p) > 0 {
		n := min(len(p), l.maxPacket)
		*q = append(*q, append([]byte(nil), p[:n]...))
		p = p[n:]
	}
	l.signalLocked()
	return size, nil
}

func (e end) In(ctx context.Context, p []byte) (int, error) {
	l := e.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(p) < l.maxPacket {
		return 0, fmt.Errorf("muxusbtest: a %d-byte read is shorter than a %d-byte packet", len(p), l.maxPacket)
	}
	q := &l.toDevice
	if e.host {
		q = &l.toHost
	}
	n := 0
	for {
		if l.unplug {
			return 0, ErrUnplugged
		}
		for len(*q) > 0 && len((*q)[0]) <= len(p)-n {
			pkt := (*q)[0]
			*q = (*q)[1:]
			n += copy(p[n:], pkt)
			if len(pkt) < l.maxPacket {
				return n, nil // a short packet ends the transfer
			}
		}
		if n+l.maxPacket > len(p) {
			return n, nil // the buffer is full
		}
		if err := l.waitLocked(ctx); err != nil {
			return 0, err
		}
	}
}

// Close unplugs the cable: a session closing its pipe is the device going
// away for the other end.
func (e end) Close() error {
	e.l.Unplug()
	return nil
}
