package appliance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/startup"
)

// Run prints where to find the box, serves until ctx ends, then shuts
// down: in-flight requests get up to Config.ShutdownTimeout to finish, and
// the store closes. It returns nil after a shutdown that ctx asked for.
func (b *Box) Run(ctx context.Context) error {
	defer b.Close()
	if err := b.announce(ctx); err != nil {
		return err
	}
	servers := []*entry.Server{b.lan}
	if b.redir != nil {
		servers = append(servers, b.redir)
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.Serve() }()
	}
	b.steps.done("serving")
	b.log.Info("box is up", "name", b.Name(), "url", b.LANURL(), "lan", b.lan.Addr().String(), "http", b.cfg.HTTPAddr, "version", b.cfg.Version)
	b.startMDNS(ctx)
	defer b.stopMDNS()
	b.remote.run(ctx) // never waits for the tailnet
	defer b.remote.shutdown()
	panelCtx, stopPanel := context.WithCancel(ctx)
	defer stopPanel()
	waitPanel := b.panel.run(panelCtx)
	b.confirmTrial(b.life)

	var runErr error
	running := len(servers)
	select {
	case <-ctx.Done():
		b.log.Info("shutting down", "cause", context.Cause(ctx))
	case runErr = <-errc:
		running--
		if runErr == nil {
			runErr = errors.New("appliance: an entry stopped serving")
		}
		b.log.Error("entry failed", "err", runErr)
	}
	b.stopMDNS() // withdraw before the entries stop answering
	stopPanel()
	waitPanel() // the LED goes off
	b.remote.shutdown()
	b.owner.EndStreams() // the live view's streams would hold Shutdown up
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			if err := s.Shutdown(sctx); err != nil {
				b.log.Warn("shutdown cut requests short", "err", err)
			}
		})
	}
	wg.Wait()
	for ; running > 0; running-- {
		if err := <-errc; err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := b.Close(); err != nil && runErr == nil {
		runErr = err
	}
	b.log.Info("stopped")
	return runErr
}

// announce prints the lines a person needs, in this order: the LAN URL,
// the certificate fingerprint, the SPKI pin and the setup code.
func (b *Box) announce(ctx context.Context) error {
	out := b.cfg.Out
	if out == nil {
		out = io.Discard
	}
	code, claimed, err := b.owner.SetupCode(ctx)
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	if claimed {
		code = "" // the line says the box is claimed
	}
	lines := startup.Lines{URL: b.LANURL(), Fingerprint: b.Cert().Fingerprint(), SPKIPin: b.Cert().SPKIPin(), SetupCode: code}
	if err := lines.Write(out); err != nil {
		return fmt.Errorf("appliance: print start-up lines: %w", err)
	}
	return nil
}
