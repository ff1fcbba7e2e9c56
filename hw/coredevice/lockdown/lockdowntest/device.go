// Package lockdowntest is a fake lockdownd: it pairs (with a Trust prompt
// the test answers), checks pair records in StartSession, upgrades to TLS
// with the device certificate the host made, and starts services.
package lockdowntest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	_ "crypto/sha1"
	_ "crypto/sha256"
	_ "crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Service is a service the fake device can start.
type Service struct {
	Port uint16
	SSL  bool
}

// Device is a fake lockdownd. Set the exported fields before serving.
type Device struct {
	UDID, ProductType, ProductVersion, DeviceName string
	// Prompt decides each Pair request while the Trust prompt is up:
	// return "" to trust, or a lockdown error name such as
	// "PairingDialogResponsePending" or "UserDeniedPairing". Nil trusts.
	Prompt func() string
	// Services lists what StartService starts.
	Services map[string]Service
	// DeveloperMode is what DeveloperModeStatus (domain
	// com.apple.security.mac.amfi) reports.
	DeveloperMode bool
	// Key is the device's key (DevicePublicKey); nil means a new
	// 2048-bit key on first use (seconds on an emulated CPU: a test
	// there passes one made beforehand).
	Key *rsa.PrivateKey

	once sync.Once
	key  *rsa.PrivateKey
	mu   sync.Mutex
	// paired maps HostID to the host's record as the device keeps it.
	paired map[string]hostRecord
	log    []string
}

type hostRecord struct {
	root   *x509.Certificate
	device tls.Certificate // the device certificate the host made, with our key
}

func (d *Device) init() {
	d.once.Do(func() {
		d.key = d.Key
		if d.key == nil {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			d.key = k
		}
		d.paired = map[string]hostRecord{}
	})
}

// PublicKey returns DevicePublicKey as lockdownd reports it (PEM PKCS#1).
func (d *Device) PublicKey() []byte {
	d.init()
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&d.key.PublicKey)})
}

// Requests returns the requests served so far, in order.
func (d *Device) Requests() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string{}, d.log...)
}

// Unpair forgets every host (as "Reset Location & Privacy" does).
func (d *Device) Unpair() {
	d.init()
	d.mu.Lock()
	d.paired = map[string]hostRecord{}
	d.mu.Unlock()
}

func errReply(req, name string) plist.Dict {
	return plist.Dict{{Key: "Request", Value: req}, {Key: "Error", Value: name}}
}

// Serve answers lockdown requests on conn until it closes.
func (d *Device) Serve(conn net.Conn) {
	d.init()
	defer conn.Close()
	var c net.Conn = conn
	session := ""
	for {
		req, err := lockdown.ReadMessage(c)
		if err != nil {
			return
		}
		name := req.String("Request")
		d.mu.Lock()
		d.log = append(d.log, name)
		d.mu.Unlock()
		var reply plist.Dict
		switch name {
		case "QueryType":
			reply = plist.Dict{{Key: "Request", Value: name}, {Key: "Type", Value: "com.apple.mobile.lockdown"}}
		case "GetValue":
			v, ok := d.value(req.String("Domain"), req.String("Key"))
			if !ok {
				reply = errReply(name, "MissingValue")
			} else {
				reply = plist.Dict{{Key: "Request", Value: name}, {Key: "Value", Value: v}}
			}
		case "Pair":
			reply = d.pair(req)
		case "StartSession":
			d.mu.Lock()
			hr, ok := d.paired[req.String("HostID")]
			d.mu.Unlock()
			if !ok {
				reply = errReply(name, "InvalidHostID")
				break
			}
			session = "FAKE-SESSION"
			if err := lockdown.WriteMessage(c, plist.Dict{
				{Key: "Request", Value: name}, {Key: "SessionID", Value: session}, {Key: "EnableSessionSSL", Value: true},
			}); err != nil {
				return
			}
			tc, err := d.serverTLS(c, hr)
			if err != nil {
				return
			}
			c = tc
			continue
		case "StartService":
			if session == "" {
				reply = errReply(name, "NoRunningSession")
				break
			}
			s, ok := d.Services[req.String("Service")]
			if !ok {
				reply = errReply(name, "InvalidService")
				break
			}
			reply = plist.Dict{{Key: "Request", Value: name}, {Key: "Service", Value: req.String("Service")},
				{Key: "Port", Value: uint64(s.Port)}, {Key: "EnableServiceSSL", Value: s.SSL}}
		case "RSDCheckin":
			// Over the tunnel: the tunnel is the trust, no TLS.
			if err := lockdown.WriteMessage(c, plist.Dict{{Key: "Request", Value: name}}); err != nil {
				return
			}
			session = "RSD"
			reply = plist.Dict{{Key: "Request", Value: "StartService"}}
		case "StopSession":
			reply = plist.Dict{{Key: "Request", Value: name}}
		default:
			reply = errReply(name, "InvalidRequest")
		}
		if err := lockdown.WriteMessage(c, reply); err != nil {
			return
		}
	}
}

func (d *Device) value(domain, key string) (any, bool) {
	if domain == "com.apple.security.mac.amfi" && key == "DeveloperModeStatus" {
		return d.DeveloperMode, true
	}
	if domain != "" {
		return nil, false
	}
	all := plist.Dict{
		{Key: "DeviceName", Value: d.DeviceName},
		{Key: "DevicePublicKey", Value: d.PublicKey()},
		{Key: "ProductType", Value: d.ProductType},
		{Key: "ProductVersion", Value: d.ProductVersion},
		{Key: "UniqueDeviceID", Value: d.UDID},
		{Key: "WiFiAddress", Value: "f0:99:b6:00:00:01"},
	}
	if key == "" {
		return all, true
	}
	return all.Get(key)
}

func (d *Device) pair(req plist.Dict) plist.Dict {
	rec := req.Dict("PairRecord")
	if d.Prompt != nil {
		if e := d.Prompt(); e != "" {
			return errReply("Pair", e)
		}
	}
	hr, err := d.accept(rec)
	if err != nil {
		return errReply("Pair", "InvalidPairRecord")
	}
	d.mu.Lock()
	d.paired[rec.String("HostID")] = hr
	d.mu.Unlock()
	return plist.Dict{{Key: "Request", Value: "Pair"}, {Key: "EscrowBag", Value: []byte("fake escrow bag")}}
}

// accept checks a pair record as a device would: the device certificate
// must carry our public key and chain to the host's root, as must the
// host certificate.
func (d *Device) accept(rec plist.Dict) (hostRecord, error) {
	parse := func(k string) (*x509.Certificate, error) {
		b, _ := pem.Decode(rec.Data(k))
		if b == nil {
			return nil, fmt.Errorf("%s is not PEM", k)
		}
		return x509.ParseCertificate(b.Bytes)
	}
	root, err := parse("RootCertificate")
	if err != nil {
		return hostRecord{}, err
	}
	dev, err := parse("DeviceCertificate")
	if err != nil {
		return hostRecord{}, err
	}
	host, err := parse("HostCertificate")
	if err != nil {
		return hostRecord{}, err
	}
	pub, ok := dev.PublicKey.(*rsa.PublicKey)
	if !ok || !pub.Equal(&d.key.PublicKey) {
		return hostRecord{}, errors.New("device certificate is not for this device's key")
	}
	for _, c := range []*x509.Certificate{dev, host} {
		if err := signedBy(c, root); err != nil {
			return hostRecord{}, err
		}
	}
	return hostRecord{root: root, device: tls.Certificate{Certificate: [][]byte{dev.Raw}, PrivateKey: d.key}}, nil
}

// signedBy checks that root's key signed c. Unlike
// x509.CheckSignatureFrom it takes SHA-1 signatures, as devices do: go-ios
// and older libimobiledevice sign pair records with SHA1WithRSA.
func signedBy(c, root *x509.Certificate) error {
	pub, ok := root.PublicKey.(*rsa.PublicKey)
	if !ok {
		return errors.New("root key is not RSA")
	}
	var h crypto.Hash
	switch c.SignatureAlgorithm {
	case x509.SHA1WithRSA:
		h = crypto.SHA1
	case x509.SHA256WithRSA:
		h = crypto.SHA256
	case x509.SHA384WithRSA:
		h = crypto.SHA384
	case x509.SHA512WithRSA:
		h = crypto.SHA512
	default:
		return fmt.Errorf("signature algorithm %v", c.SignatureAlgorithm)
	}
	d := h.New()
	d.Write(c.RawTBSCertificate)
	return rsa.VerifyPKCS1v15(pub, h, d.Sum(nil), c.Signature)
}

// serverTLS runs the device side of a session's TLS: our certificate is
// the one the host made at pairing; the host must present a certificate
// its root signed.
func (d *Device) serverTLS(conn net.Conn, hr hostRecord) (*tls.Conn, error) {
	tc := tls.Server(conn, &tls.Config{
		Certificates: []tls.Certificate{hr.device},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return err
			}
			return signedBy(c, hr.root)
		},
	})
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	return tc, nil
}

// ServeTLS runs the device side of an SSL service's TLS on conn for the
// host with hostID, and returns the TLS stream.
func (d *Device) ServeTLS(conn net.Conn, hostID string) (*tls.Conn, error) {
	d.init()
	d.mu.Lock()
	hr, ok := d.paired[hostID]
	d.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("lockdowntest: host %s is not paired", hostID)
	}
	return d.serverTLS(conn, hr)
}

// PairedHost returns the HostID of a paired host (for ServeTLS), or "".
func (d *Device) PairedHost() string {
	d.init()
	d.mu.Lock()
	defer d.mu.Unlock()
	for id := range d.paired {
		return id
	}
	return ""
}
