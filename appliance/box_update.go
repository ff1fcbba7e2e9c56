package appliance

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/appliance/update"
	boxtls "github.com/openlolo/openlolo/tls"
)

// UpdateConfig lets the box update itself from signed bundles (the SD
// image's A/B slots).
type UpdateConfig struct {
	// Slots is the card (update.Card on the image).
	Slots update.Slots
	// Key is the public key bundles must be signed with.
	Key ed25519.PublicKey
	// Release is the running root's /etc/openlolo-release.
	Release update.Release
	// SelfCheckTimeout bounds the trial boot's self-check; 0 means 2
	// minutes.
	SelfCheckTimeout time.Duration
}

// openUpdates runs update.Recover before the store opens: after a failed
// trial it puts the database from before the update back.
func (b *Box) recoverUpdate() {
	u := b.cfg.Update
	if u == nil {
		return
	}
	boot, err := update.Recover(b.cfg.StateDir, store.FileName, u.Slots, time.Now())
	if err != nil {
		b.log.Error("update: recover after the last update", "err", err)
		return
	}
	b.trial = boot.Trial
	switch {
	case boot.Trial:
		b.log.Info("update: this is the first boot of a new version; the self-check runs once the box serves", "version", boot.Record.Version, "slot", boot.Record.To)
	case boot.RolledBack:
		b.log.Warn("update: rolled back to the previous version; the database is as it was before the update", "version", boot.Record.Version, "reason", boot.Record.Reason)
	}
}

// openUpdater makes the updater once the store is open.
func (b *Box) openUpdater() error {
	u := b.cfg.Update
	if u == nil {
		return nil
	}
	var err error
	b.updater, err = update.New(update.Config{
		Slots:        u.Slots,
		Key:          u.Key,
		Release:      u.Release,
		StateDir:     b.cfg.StateDir,
		DBName:       store.FileName,
		Backup:       b.store.Backup,
		BeforeReboot: func() { b.store.Close() },
		Logger:       b.log.With("service", "update"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	return nil
}

// confirmTrial runs the self-check of a trial boot once the entries serve.
func (b *Box) confirmTrial(ctx context.Context) {
	if !b.trial || b.updater == nil {
		return
	}
	timeout := b.cfg.Update.SelfCheckTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	go func() {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := b.updater.Confirm(cctx, b.selfChecks()); err != nil {
			b.log.Error("update: the new version did not confirm itself", "err", err)
			return
		}
		b.trial = false
		b.log.Info("update: the new version passed its self-check and is committed", "version", b.cfg.Version)
	}()
}

// selfChecks are what a new version must pass on its first boot: HTTPS
// answers on the LAN entry with the box's certificate, the database opened,
// migrated and takes a write, and the phone backend runs.
func (b *Box) selfChecks() []update.Check {
	return []update.Check{
		{Name: "HTTPS answers", Run: b.checkHTTPS},
		{Name: "the database opens, migrates and takes a write", Run: func(ctx context.Context) error {
			if err := b.store.IntegrityCheck(ctx); err != nil {
				return err
			}
			return b.store.Update(ctx, func(tx *store.Tx) error {
				return store.UpdateSelfCheck.Set(tx, time.Now())
			})
		}},
		{Name: "the phone backend runs", Run: func(context.Context) error {
			if st := b.cfg.Phone.State(); st.Code == api.StateClosed || b.cfg.Phone.Info().Backend == "" {
				return fmt.Errorf("phone backend %q: %s", b.cfg.Phone.Info().Backend, st.Reason)
			}
			return nil
		}},
	}
}

// checkHTTPS asks the LAN entry's /healthz over loopback, pinned to the
// box's own certificate, until it answers (or ctx ends).
func (b *Box) checkHTTPS(ctx context.Context) error {
	cfg, err := boxtls.ClientConfig(b.Cert().Fingerprint())
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(b.lan.Addr().String())
	var d net.Dialer
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: cfg,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
		},
	}}
	defer cl.CloseIdleConnections()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+b.Name()+".local/healthz", nil)
		res, err := cl.Do(req)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/healthz answered %s", res.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return errors.Join(last, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
