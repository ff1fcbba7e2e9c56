package appliance

import (
	"encoding/pem"

	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/owner"
	boxtls "github.com/openlolo/openlolo/tls"
)

// Info describes the box for the box page.
func (b *Box) Info() owner.BoxInfo {
	id := b.id.Load()
	return owner.BoxInfo{
		Name:             id.name,
		Version:          b.cfg.Version,
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

// mcpInfo is what openlolo_status says about the box, the remote entry's
// state included.
func (b *Box) mcpInfo() mcp.BoxInfo {
	info := mcp.BoxInfo{Name: b.Name(), Version: b.cfg.Version}
	if tn := b.Remote(); tn != nil {
		st := tn.Status()
		info.Remote = &mcp.RemoteEntry{State: st.State, Reason: st.Reason, URL: tn.Issuer()}
	}
	return info
}
