package appliance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/appliance/owner"
	boxtls "github.com/openlolo/openlolo/tls"
)

// nameFile holds the name the owner gave the box on the Settings page.
const nameFile = "box-name"

// identity is the box's name and the LAN certificate naming it; the two
// change together (rename, rotate) and are swapped as one pointer.
type identity struct {
	name string
	cert *boxtls.Cert
}

// storedName is the name kept in stateDir by a rename, or "" when the
// owner never renamed the box.
func storedName(stateDir string) (string, error) {
	path := filepath.Join(stateDir, nameFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("appliance: read the box name: %w", err)
	}
	name := strings.TrimSpace(string(b))
	if err := CheckName(name); err != nil {
		return "", fmt.Errorf("appliance: %s: %w; delete it to go back to the default name", path, err)
	}
	return name, nil
}

// Rename makes name the box's name: it is kept in the state directory, a
// new LAN certificate naming it is served from the next handshake on, and
// the mDNS announcement is withdrawn and made again under it. A bad name
// changes nothing.
func (b *Box) Rename(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	b.idMu.Lock()
	defer b.idMu.Unlock()
	if err := b.remakeCert(name); err != nil {
		return err
	}
	if err := boxtls.WriteFileAtomic(filepath.Join(b.cfg.StateDir, nameFile), []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("appliance: keep the box name: %w", err)
	}
	b.log.Info("box renamed", "name", name, "fingerprint", b.Cert().Fingerprint())
	b.readvertise()
	return nil
}

// RotateCert makes a new LAN certificate for the box's name and serves it
// from the next handshake on; clients must pin it again.
func (b *Box) RotateCert(ctx context.Context) error {
	b.idMu.Lock()
	defer b.idMu.Unlock()
	if err := b.remakeCert(b.Name()); err != nil {
		return err
	}
	b.log.Info("LAN certificate rotated", "fingerprint", b.Cert().Fingerprint())
	b.readvertise() // the TXT record carries the fingerprint
	return nil
}

// remakeCert stores a new certificate for name and swaps it in.
func (b *Box) remakeCert(name string) error {
	c, err := boxtls.Load(boxtls.Options{Dir: b.cfg.StateDir, Name: name, Rotate: true})
	if err != nil {
		return fmt.Errorf("appliance: make a new LAN certificate: %w", err)
	}
	b.id.Store(&identity{name: name, cert: c})
	return nil
}

// identities is the Settings page's view of Rename and RotateCert.
type identities struct{ b *Box }

var _ owner.Identity = identities{}

func (identities) CheckName(name string) error { return CheckName(name) }

func (i identities) Rename(ctx context.Context, name string) (owner.BoxInfo, error) {
	if err := i.b.Rename(ctx, name); err != nil {
		return owner.BoxInfo{}, err
	}
	return i.b.Info(), nil
}

func (i identities) RotateCert(ctx context.Context) (owner.BoxInfo, error) {
	if err := i.b.RotateCert(ctx); err != nil {
		return owner.BoxInfo{}, err
	}
	return i.b.Info(), nil
}
