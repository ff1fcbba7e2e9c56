package appliance

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/owner"
)

// verificationURI is the link a device-pairing request shows: on the
// plain-HTTP entry when there is one (a person can type it without the
// https://), else on the LAN entry the request came in on.
func (b *Box) verificationURI(r *http.Request, handle string) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	path := "/access?r=" + url.QueryEscape(handle)
	if b.cfg.HTTPAddr == "" {
		return "https://" + r.Host + path
	}
	_, port, _ := net.SplitHostPort(b.cfg.HTTPAddr)
	if b.redir != nil {
		_, port, _ = net.SplitHostPort(b.redir.Addr().String())
	}
	if port == "80" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return "http://" + host + path
	}
	return "http://" + net.JoinHostPort(host, port) + path
}

// hosts are the names the LAN entry answers to.
func (b *Box) hosts() entry.Hosts {
	id := b.id.Load()
	names := append([]string{id.name + ".local", id.name}, id.cert.Leaf.DNSNames...)
	return entry.Hosts{Names: names, Any: entry.IsLoopback(b.cfg.LANAddr)}
}

// bodyLimit bounds request bodies other than /mcp's, which the MCP
// handler limits itself (64 KiB, answering 413), and the update upload,
// which the owner pages bound themselves: forms and the rest are far
// smaller than this.
const bodyLimit = 1 << 20

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" && r.URL.Path != owner.UpdateUploadPath {
			r.Body = http.MaxBytesReader(w, r.Body, bodyLimit)
		}
		next.ServeHTTP(w, r)
	})
}

func (b *Box) listen() error {
	var err error
	b.lan, err = entry.Listen(entry.Config{
		Addr:      b.cfg.LANAddr,
		TLS:       b.serverTLS(),
		Handler:   entry.SecurityHeaders(b.hostCheck(limitBody(b.mux))),
		Logger:    b.log.With("entry", "lan"),
		ConnState: b.cfg.ConnState,
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	if b.cfg.HTTPAddr == "" {
		return nil
	}
	_, port, _ := net.SplitHostPort(b.lan.Addr().String())
	// The names are read per request: a rename changes them.
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts := b.hosts()
		hosts.Any = hosts.Any && entry.IsLoopback(b.cfg.HTTPAddr)
		entry.Redirect(hosts, port).ServeHTTP(w, r)
	})
	b.redir, err = entry.Listen(entry.Config{
		Addr:    b.cfg.HTTPAddr,
		Handler: b.httpFront(entry.SecurityHeaders(redirect)),
		Logger:  b.log.With("entry", "http"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	return nil
}

func (b *Box) httpFront(h http.Handler) http.Handler {
	if b.cfg.HTTPFront == nil {
		return h
	}
	return b.cfg.HTTPFront(h)
}

// Addr is the LAN entry's bound address.
func (b *Box) Addr() net.Addr { return b.lan.Addr() }

// HTTPAddr is the redirect entry's bound address, or nil without one.
func (b *Box) HTTPAddr() net.Addr {
	if b.redir == nil {
		return nil
	}
	return b.redir.Addr()
}

// LANURL is where a person on the LAN opens the box: the bound IP when the
// box listens on one address, else https://<name>.local; the port is left
// out when it is 443.
func (b *Box) LANURL() string {
	bound := b.lan.Addr().(*net.TCPAddr)
	host := b.Name() + ".local"
	if cfgHost, _, err := net.SplitHostPort(b.cfg.LANAddr); err == nil && cfgHost != "" {
		if ip := net.ParseIP(cfgHost); ip == nil || !ip.IsUnspecified() {
			host = bound.IP.String()
		}
	}
	if bound.Port == 443 {
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			host = "[" + host + "]"
		}
		return "https://" + host + "/"
	}
	return "https://" + net.JoinHostPort(host, strconv.Itoa(bound.Port)) + "/"
}

// serverTLS is the LAN entry's TLS configuration: it presents the
// certificate of the box's identity at each handshake, so a rename or a
// rotation takes effect without a restart.
func (b *Box) serverTLS() *tls.Config {
	cfg := b.Cert().ServerConfig()
	cfg.Certificates = nil
	cfg.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		return &b.Cert().Certificate, nil
	}
	return cfg
}

// hostCheck refuses requests for names the box does not answer to, with
// the names of its identity at the time of the request.
func (b *Box) hostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entry.HostCheck(b.hosts(), next).ServeHTTP(w, r)
	})
}
