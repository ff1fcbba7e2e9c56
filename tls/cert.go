package tls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// File names of the pair inside the state directory.
const (
	KeyFile  = "lan-key.pem"  // PKCS#8 EC private key, mode 0600
	CertFile = "lan-cert.pem" // the self-signed certificate, mode 0644
)

// Validity is how long a new certificate is valid.
const Validity = 10 * 365 * 24 * time.Hour

// Options say where the pair lives and what a new certificate names. Only
// Dir and Name are required; the zero value of every other field is a
// sensible default.
type Options struct {
	// Dir is the state directory; it must exist.
	Dir string
	// Name is the box name, e.g. "openlolo-3f2a". A new certificate names
	// <Name>.local, <Name> and localhost.
	Name string
	// IPs are the addresses a new certificate names besides 127.0.0.1 and
	// ::1. nil means the machine's interface addresses now.
	IPs []net.IP
	// Rotate makes a new pair even when one exists.
	Rotate bool
	// Now is the clock for a new certificate's validity; nil: time.Now.
	Now func() time.Time
	// Rand is the randomness for the key and serial; nil: crypto/rand.
	Rand io.Reader
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) rand() io.Reader {
	if o.Rand != nil {
		return o.Rand
	}
	return rand.Reader
}

// Cert is the box's LAN key pair, loaded or made by [Load].
type Cert struct {
	// Certificate is ready for tls.Config.Certificates.
	Certificate tls.Certificate
	// Leaf is the parsed certificate.
	Leaf *x509.Certificate
	// Created is true when Load made a new pair (first start or Rotate).
	Created bool
}

// Load returns the pair stored in o.Dir, or makes and stores a new one when
// there is none or o.Rotate is set. A pair that is present but unreadable or
// mismatched is an error, never silently replaced: the fingerprint clients
// pinned would change.
func Load(o Options) (*Cert, error) {
	if o.Dir == "" || o.Name == "" {
		return nil, errors.New("boxtls: load: state directory and box name are required")
	}
	keyPath, certPath := filepath.Join(o.Dir, KeyFile), filepath.Join(o.Dir, CertFile)
	if !o.Rotate {
		keyPEM, kerr := os.ReadFile(keyPath)
		certPEM, cerr := os.ReadFile(certPath)
		switch {
		case kerr == nil && cerr == nil:
			return parsePair(certPEM, keyPEM, certPath, keyPath)
		case errors.Is(kerr, fs.ErrNotExist) && errors.Is(cerr, fs.ErrNotExist):
			// First start: make one below.
		case kerr != nil && !errors.Is(kerr, fs.ErrNotExist):
			return nil, fmt.Errorf("boxtls: load: %w", kerr)
		case cerr != nil && !errors.Is(cerr, fs.ErrNotExist):
			return nil, fmt.Errorf("boxtls: load: %w", cerr)
		default:
			return nil, fmt.Errorf("boxtls: load: only one of %s and %s exists; restore the other, or start with --rotate-cert to make a new certificate (clients must then pin it again)", keyPath, certPath)
		}
	}
	certPEM, keyPEM, err := generate(&o)
	if err != nil {
		return nil, err
	}
	c, err := parsePair(certPEM, keyPEM, certPath, keyPath)
	if err != nil {
		return nil, err
	}
	// The key goes first: a crash between the two renames leaves a
	// mismatched pair, which Load reports instead of serving it.
	if err := WriteFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(certPath, certPEM, 0o644); err != nil {
		return nil, err
	}
	c.Created = true
	return c, nil
}

// Read returns the pair stored in dir without ever making one: for tools
// that show the box's pins. A missing pair is an error that says how to
// make one.
func Read(dir string) (*Cert, error) {
	keyPath, certPath := filepath.Join(dir, KeyFile), filepath.Join(dir, CertFile)
	certPEM, err := os.ReadFile(certPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("boxtls: no certificate in %s yet: start the box once with openlolo serve --state %s", dir, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("boxtls: read: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, fmt.Errorf("boxtls: read: %w", err)
	}
	return parsePair(certPEM, keyPEM, certPath, keyPath)
}

func parsePair(certPEM, keyPEM []byte, certPath, keyPath string) (*Cert, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("boxtls: load %s and %s: %w; restore them from a backup, or start with --rotate-cert to make a new certificate (clients must then pin it again)", certPath, keyPath, err)
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, fmt.Errorf("boxtls: parse %s: %w", certPath, err)
		}
		pair.Leaf = leaf
	}
	return &Cert{Certificate: pair, Leaf: leaf}, nil
}

// generate makes a P-256 key and a self-signed certificate for o.Name.
func generate(o *Options) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), o.rand())
	if err != nil {
		return nil, nil, fmt.Errorf("boxtls: generate key: %w", err)
	}
	serial, err := rand.Int(o.rand(), new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("boxtls: generate serial: %w", err)
	}
	ips := o.IPs
	if ips == nil {
		ips = InterfaceIPs()
	}
	now := o.now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial.Add(serial, big.NewInt(1)), // never zero
		Subject:               pkix.Name{CommonName: o.Name, Organization: []string{"openlolo box"}},
		NotBefore:             now.Add(-time.Hour), // tolerate a client clock slightly behind
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{o.Name + ".local", o.Name, "localhost"},
		IPAddresses:           uniqueIPs(append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, ips...)),
	}
	der, err := x509.CreateCertificate(o.rand(), tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("boxtls: create certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("boxtls: encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), nil
}

// InterfaceIPs lists the machine's unicast interface addresses, without
// IPv6 link-local ones (they need a zone, which a certificate cannot name).
// It returns nil when the interfaces cannot be read.
func InterfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsMulticast() || n.IP.IsUnspecified() {
			continue
		}
		if n.IP.To4() == nil && n.IP.IsLinkLocalUnicast() {
			continue
		}
		ips = append(ips, n.IP)
	}
	return ips
}

func uniqueIPs(ips []net.IP) []net.IP {
	var out []net.IP
next:
	for _, ip := range ips {
		for _, o := range out {
			if o.Equal(ip) {
				continue next
			}
		}
		out = append(out, ip)
	}
	return out
}

// Fingerprint is the leaf certificate's SHA-256 as lower-case hex.
func (c *Cert) Fingerprint() string { return FingerprintHex(c.Leaf) }

// FingerprintColon is the leaf fingerprint as colon-separated hex pairs.
func (c *Cert) FingerprintColon() string { return FingerprintColon(c.Leaf) }

// SPKIPin is the key pin "sha256//<base64>" for curl --pinnedpubkey.
func (c *Cert) SPKIPin() string { return SPKIPin(c.Leaf) }

// ServerConfig returns a server *tls.Config that presents the certificate
// (TLS 1.2 and later; HTTP/2 and HTTP/1.1 offered).
func (c *Cert) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{c.Certificate},
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// WriteFileAtomic replaces path with data: it writes a temporary file in the
// same directory with mode perm, syncs it, renames it over path and syncs
// the directory, so a crash leaves either the old or the new file, whole.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("boxtls: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("boxtls: write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("boxtls: write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("boxtls: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("boxtls: close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("boxtls: rename %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("boxtls: sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("boxtls: sync directory %s: %w", dir, err)
	}
	return nil
}
