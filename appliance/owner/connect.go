package owner

import (
	"net/http"
	"strconv"
)

// CertificatePath is where the box serves its LAN certificate as PEM, the
// file a Node client names in NODE_EXTRA_CA_CERTS. It is public: the same
// certificate goes to anyone in every TLS handshake, and a person compares
// its fingerprint with the one on the Connect page or the console before
// trusting it.
const CertificatePath = "/connect/certificate.pem"

// connectPage is the Connect page.
type connectPage struct {
	basePage
	URL      string // the box's address as this browser reached it
	CertPath string // CertificatePath, the download link
	CertURL  string // the same on the box's address, for commands
}

func (p *Pages) connectPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	u := "https://" + r.Host
	p.render(w, r, http.StatusOK, "connect", &connectPage{
		basePage: basePage{Title: "Connect", Nav: "connect", CSRF: s.csrf, LoggedIn: true},
		URL:      u,
		CertPath: CertificatePath,
		CertURL:  u + CertificatePath,
	})
}

// certificate serves the LAN certificate (never the key) as a download.
func (p *Pages) certificate(w http.ResponseWriter, r *http.Request) {
	i := p.info()
	if len(i.CertPEM) == 0 {
		http.Error(w, "This entry has no certificate of its own to download; its certificate is publicly trusted.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Content-Disposition", `attachment; filename=`+strconv.Quote(i.Name+".pem"))
	w.Header().Set("Content-Length", strconv.Itoa(len(i.CertPEM)))
	w.Write(i.CertPEM)
}
