package appliance

import (
	"context"
	"net"

	"github.com/openlolo/openlolo/appliance/entry"
)

// advertise announces the LAN entry over mDNS when Config.MDNS is set;
// the returned func withdraws the announcement and waits for the goodbye.
func (b *Box) advertise(ctx context.Context) (stop func()) {
	if !b.cfg.MDNS {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	id := b.id.Load()
	go func() {
		defer close(done)
		err := entry.AdvertiseMDNS(ctx, entry.MDNSConfig{
			Name:        id.name,
			Port:        b.lan.Addr().(*net.TCPAddr).Port,
			Version:     b.cfg.Version,
			Fingerprint: id.cert.Fingerprint(),
			Pin:         id.cert.SPKIPin(),
			Logger:      b.log.With("entry", "mdns"),
		})
		if err != nil {
			b.log.Warn("no mDNS advertisement", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}

// startMDNS announces the LAN entry under the box's name now, until ctx
// ends or stopMDNS; Run calls it once, readvertise after a rename.
func (b *Box) startMDNS(ctx context.Context) {
	b.mdnsMu.Lock()
	defer b.mdnsMu.Unlock()
	b.mdnsCtx = ctx
	b.mdnsStop = b.advertise(ctx)
}

// stopMDNS withdraws the announcement and waits for the goodbye.
func (b *Box) stopMDNS() {
	b.mdnsMu.Lock()
	defer b.mdnsMu.Unlock()
	if b.mdnsStop != nil {
		b.mdnsStop()
		b.mdnsStop, b.mdnsCtx = nil, nil
	}
}

// readvertise withdraws the running announcement, if any, and makes it
// again with the box's identity now.
func (b *Box) readvertise() {
	b.mdnsMu.Lock()
	defer b.mdnsMu.Unlock()
	if b.mdnsStop == nil || b.mdnsCtx.Err() != nil {
		return
	}
	b.mdnsStop()
	b.mdnsStop = b.advertise(b.mdnsCtx)
}
