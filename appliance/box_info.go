package appliance

import (
	"encoding/pem"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/owner"
	boxtls "github.com/openlolo/openlolo/tls"
)

// Info describes the box for the box page.
func (b *Box) Info() owner.BoxInfo {
	id := b.id.Load()
	return owner.BoxInfo{
		BoxInfo:          api.BoxInfo{Name: id.name, Version: b.cfg.Version},
		Fingerprint:      id.cert.Fingerprint(),
		FingerprintColon: id.cert.FingerprintColon(),
		SPKIPin:          id.cert.SPKIPin(),
		Backend:          b.cfg.Phone.Info().Backend,
		CertPEM:          pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: id.cert.Leaf.Raw}),
	}
}

// Name is the box name.
func (b *Box) Name() string { return b.id.Load().name }

// Cert is the LAN certificate the box presents now.
func (b *Box) Cert() *boxtls.Cert { return b.id.Load().cert }

// boxInfo names the box as the contract does (openlolo_status).
func (b *Box) boxInfo() api.BoxInfo { return api.BoxInfo{Name: b.Name(), Version: b.cfg.Version} }

// remoteEntry is the remote entry's state as openlolo_status reports it;
// nil when the box runs none.
func (b *Box) remoteEntry() *api.RemoteEntry {
	tn := b.Remote()
	if tn == nil {
		return nil
	}
	st := tn.Status()
	return &api.RemoteEntry{State: st.State, Reason: st.Reason, URL: tn.Issuer()}
}
