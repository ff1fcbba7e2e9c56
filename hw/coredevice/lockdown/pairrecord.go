package lockdown

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// PairRecord is what pairing leaves on the host: the certificates and keys
// that let it open TLS sessions with one device. Certificates and keys are
// PEM, as in usbmuxd's and Xcode's records.
type PairRecord struct {
	HostID            string
	SystemBUID        string
	HostCertificate   []byte
	HostPrivateKey    []byte
	RootCertificate   []byte
	RootPrivateKey    []byte
	DeviceCertificate []byte
	EscrowBag         []byte // set by the device when pairing succeeds
	WiFiMACAddress    string
}

// Dict returns the record as a property-list dictionary.
func (r *PairRecord) Dict() plist.Dict {
	d := plist.Dict{
		{Key: "DeviceCertificate", Value: r.DeviceCertificate},
		{Key: "HostCertificate", Value: r.HostCertificate},
		{Key: "HostID", Value: r.HostID},
		{Key: "HostPrivateKey", Value: r.HostPrivateKey},
		{Key: "RootCertificate", Value: r.RootCertificate},
		{Key: "RootPrivateKey", Value: r.RootPrivateKey},
		{Key: "SystemBUID", Value: r.SystemBUID},
	}
	if r.EscrowBag != nil {
		d = append(d, plist.Entry{Key: "EscrowBag", Value: r.EscrowBag})
	}
	if r.WiFiMACAddress != "" {
		d = append(d, plist.Entry{Key: "WiFiMACAddress", Value: r.WiFiMACAddress})
	}
	return d
}

// Marshal returns the record as an XML property list.
func (r *PairRecord) Marshal() ([]byte, error) { return plist.Marshal(r.Dict()) }

// ParsePairRecord reads a pair record (XML or binary property list), as
// Marshal, usbmuxd or Xcode write them.
func ParsePairRecord(b []byte) (*PairRecord, error) {
	d, err := plist.UnmarshalDict(b)
	if err != nil {
		return nil, fmt.Errorf("lockdown: pair record: %w", err)
	}
	r := &PairRecord{
		HostID:            d.String("HostID"),
		SystemBUID:        d.String("SystemBUID"),
		HostCertificate:   d.Data("HostCertificate"),
		HostPrivateKey:    d.Data("HostPrivateKey"),
		RootCertificate:   d.Data("RootCertificate"),
		RootPrivateKey:    d.Data("RootPrivateKey"),
		DeviceCertificate: d.Data("DeviceCertificate"),
		EscrowBag:         d.Data("EscrowBag"),
		WiFiMACAddress:    d.String("WiFiMACAddress"),
	}
	if r.HostID == "" || r.HostCertificate == nil || r.HostPrivateKey == nil {
		return nil, fmt.Errorf("%w: pair record without HostID, HostCertificate or HostPrivateKey", ErrMalformed)
	}
	return r, nil
}

// TLSCertificate returns the host certificate and key for TLS sessions.
func (r *PairRecord) TLSCertificate() (tls.Certificate, error) {
	c, err := tls.X509KeyPair(r.HostCertificate, r.HostPrivateKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("lockdown: pair record host certificate: %w", err)
	}
	return c, nil
}

// NewPairRecord makes the certificates for pairing with a device whose
// DevicePublicKey (PEM, PKCS#1 RSA) is given: a root CA, a host
// certificate and a device certificate, both signed by the root. rnd nil
// means crypto/rand; now is the clock for the validity period.
func NewPairRecord(devicePublicKey []byte, systemBUID string, rnd io.Reader, now time.Time) (*PairRecord, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	blk, _ := pem.Decode(devicePublicKey)
	if blk == nil {
		return nil, fmt.Errorf("%w: DevicePublicKey is not PEM", ErrMalformed)
	}
	devKey, err := x509.ParsePKCS1PublicKey(blk.Bytes)
	if err != nil {
		pub, err2 := x509.ParsePKIXPublicKey(blk.Bytes)
		k, ok := pub.(*rsa.PublicKey)
		if err2 != nil || !ok {
			return nil, fmt.Errorf("%w: DevicePublicKey: %v", ErrMalformed, err)
		}
		devKey = k
	}
	rootKey, err := rsa.GenerateKey(rnd, 2048)
	if err != nil {
		return nil, fmt.Errorf("lockdown: root key: %w", err)
	}
	hostKey, err := rsa.GenerateKey(rnd, 2048)
	if err != nil {
		return nil, fmt.Errorf("lockdown: host key: %w", err)
	}
	notBefore := now.Add(-time.Hour)
	notAfter := now.AddDate(10, 0, 0)
	rootTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(0),
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SubjectKeyId:          keyID(&rootKey.PublicKey),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	rootDER, err := x509.CreateCertificate(rnd, rootTmpl, rootTmpl, &rootKey.PublicKey, rootKey)
	if err != nil {
		return nil, fmt.Errorf("lockdown: root certificate: %w", err)
	}
	root, _ := x509.ParseCertificate(rootDER)
	leaf := func(pub *rsa.PublicKey) ([]byte, error) {
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(0),
			NotBefore:             notBefore,
			NotAfter:              notAfter,
			BasicConstraintsValid: true,
			SubjectKeyId:          keyID(pub),
			KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		}
		return x509.CreateCertificate(rnd, tmpl, root, pub, rootKey)
	}
	hostDER, err := leaf(&hostKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("lockdown: host certificate: %w", err)
	}
	devDER, err := leaf(devKey)
	if err != nil {
		return nil, fmt.Errorf("lockdown: device certificate: %w", err)
	}
	return &PairRecord{
		HostID:            newHostID(rnd),
		SystemBUID:        systemBUID,
		HostCertificate:   pemCert(hostDER),
		HostPrivateKey:    pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(hostKey)}),
		RootCertificate:   pemCert(rootDER),
		RootPrivateKey:    pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rootKey)}),
		DeviceCertificate: pemCert(devDER),
	}, nil
}

func keyID(pub *rsa.PublicKey) []byte {
	h := sha1.Sum(x509.MarshalPKCS1PublicKey(pub))
	return h[:]
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func newHostID(rnd io.Reader) string {
	var b [16]byte
	io.ReadFull(rnd, b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	s := strings.ToUpper(fmt.Sprintf("%x", b[:]))
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// Store keeps pair records as <Dir>/<udid>.plist, mode 0600.
type Store struct {
	Dir string
}

// ErrNoRecord is returned by Load when no record exists for the device.
var ErrNoRecord = errors.New("lockdown: no pair record for this device")

func (s Store) path(udid string) (string, error) {
	if udid == "" || strings.ContainsAny(udid, `/\`) || strings.HasPrefix(udid, ".") {
		return "", fmt.Errorf("lockdown: pair record: bad device id %q", udid)
	}
	return filepath.Join(s.Dir, udid+".plist"), nil
}

// Load reads the record for udid.
func (s Store) Load(udid string) (*PairRecord, error) {
	p, err := s.path(udid)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoRecord
	}
	if err != nil {
		return nil, fmt.Errorf("lockdown: pair record: %w", err)
	}
	return ParsePairRecord(b)
}

// Save writes r for udid durably (temp file, sync, rename), mode 0600.
func (s Store) Save(udid string, r *PairRecord) error {
	p, err := s.path(udid)
	if err != nil {
		return err
	}
	b, err := r.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("lockdown: pair record: %w", err)
	}
	f, err := os.CreateTemp(s.Dir, ".pair-*")
	if err != nil {
		return fmt.Errorf("lockdown: pair record: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err == nil {
		_, err = f.Write(b)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), p)
		}
		if err == nil {
			return nil
		}
	} else {
		f.Close()
	}
	return fmt.Errorf("lockdown: save pair record: %w", err)
}

// Delete removes the record for udid (no error when there is none).
func (s Store) Delete(udid string) error {
	p, err := s.path(udid)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("lockdown: delete pair record: %w", err)
	}
	return nil
}
