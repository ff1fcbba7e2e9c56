package owner

import (
	"context"
	"net/http"
	"strings"
)

// Identity is what the Settings page needs to rename the box and to make
// it a new LAN certificate. An adapter in the appliance package
// implements it over the box.
type Identity interface {
	// CheckName says why name cannot be the box's name (a sentence the
	// owner can act on), or nil.
	CheckName(name string) error
	// Rename makes name the box's name: kept across restarts, announced
	// over mDNS, and served at once in a new LAN certificate naming it.
	// It returns the box as it is now.
	Rename(ctx context.Context, name string) (BoxInfo, error)
	// RotateCert makes a new LAN certificate and serves it at once. It
	// returns the box as it is now.
	RotateCert(ctx context.Context) (BoxInfo, error)
}

// rotateWord is the value of the checkbox that confirms a rotation.
const rotateWord = "rotate"

// identityView is the Settings page's name and certificate section.
type identityView struct {
	CSRF string
	Box  BoxInfo
}

// identitySection is nil when the box cannot be renamed.
func (p *Pages) identitySection(csrf string) *identityView {
	if p.cfg.Identity == nil {
		return nil
	}
	v := &identityView{CSRF: csrf}
	if p.cfg.Info != nil {
		v.Box = p.cfg.Info()
	}
	return v
}

// newCertDone is what the page says after a new certificate: where the
// box answers now and what to pin. It is shown in the answer to the form
// itself, since the browser's next connection meets the new certificate.
func newCertDone(what string, info BoxInfo) string {
	return what + " The box now answers at https://" + info.Name + ".local/ with a new certificate, fingerprint " +
		info.FingerprintColon + ". Paired scripts must pin it again (openlolo pair, or the pin on the Connect page), and your browser will ask you to accept the new certificate."
}

func (p *Pages) noIdentity(w http.ResponseWriter, r *http.Request) bool {
	if p.cfg.Identity != nil {
		return false
	}
	p.showSettings(w, r, http.StatusConflict, "", "This box cannot be renamed or given a new certificate from the page.")
	return true
}

// renamePost renames the box. A bad name is refused with the reason and
// changes nothing.
func (p *Pages) renamePost(w http.ResponseWriter, r *http.Request) {
	if p.noIdentity(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	if err := p.cfg.Identity.CheckName(name); err != nil {
		p.showSettings(w, r, http.StatusBadRequest, "", "The box keeps its name: "+strings.TrimPrefix(err.Error(), "appliance: ")+".")
		return
	}
	var old string
	if p.cfg.Info != nil {
		old = p.cfg.Info().Name
	}
	info, err := p.cfg.Identity.Rename(r.Context(), name)
	if err != nil {
		p.internal(w, r, "rename the box", err)
		return
	}
	p.log.Info("owner: box renamed", "from", old, "to", name, "remote", r.RemoteAddr)
	p.record(r.Context(), actSettings, "renamed the box from "+quoted(old)+" to "+quoted(name)+"; new certificate fingerprint "+info.FingerprintColon)
	p.showSettings(w, r, http.StatusOK, newCertDone("The box is renamed "+name+".", info), "")
}

// rotateCertPost makes a new LAN certificate once the owner ticked the
// confirmation.
func (p *Pages) rotateCertPost(w http.ResponseWriter, r *http.Request) {
	if p.noIdentity(w, r) {
		return
	}
	if r.PostFormValue("confirm") != rotateWord {
		p.showSettings(w, r, http.StatusBadRequest, "", "Tick the box that says paired scripts must pin the new certificate again. The certificate is unchanged.")
		return
	}
	info, err := p.cfg.Identity.RotateCert(r.Context())
	if err != nil {
		p.internal(w, r, "make a new certificate", err)
		return
	}
	p.log.Info("owner: LAN certificate rotated", "fingerprint", info.Fingerprint, "remote", r.RemoteAddr)
	p.record(r.Context(), actSettings, "made a new LAN certificate; fingerprint "+info.FingerprintColon)
	p.showSettings(w, r, http.StatusOK, newCertDone("The box has a new certificate.", info), "")
}
