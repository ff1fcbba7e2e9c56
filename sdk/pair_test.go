package sdk

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// tailnetBox serves the OAuth endpoints a pairing uses, under a CA-issued
// certificate for host, as the box's tailnet entry does.
func tailnetBox(t *testing.T, host string) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, _ := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": "https://" + host,
			"grant_types_supported": []string{DeviceCodeGrant, "refresh_token"}})
	})
	mux.HandleFunc("POST /oauth/device_authorization", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"device_code": "dc", "user_code": "BCDF-GHJK",
			"verification_uri": "https://" + host + "/access?r=h", "expires_in": 600, "interval": 5, "client_id": "c1"})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "refresh_token": "rt", "expires_in": 900, "scope": "phone:read"})
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return srv, pool
}

// A tailnet box's certificate is verified against CAs on every connection
// and never pinned (it is renewed every few months): pairing asks no
// question, stores no pin, and a certificate the CAs do not vouch for fails.
func TestPairTailnetUsesCAVerification(t *testing.T) {
	const host = "openlolo-ab12.tail1234.ts.net"
	srv, pool := tailnetBox(t, host)
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	client := func(roots *x509.CertPool) *http.Client {
		return &http.Client{Transport: &http.Transport{DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: roots}}}
	}
	st := &TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	noSleep := func(context.Context, time.Duration) error { return nil }
	b, err := Pair(context.Background(), host, PairOptions{
		Store: st, HTTPClient: client(pool), Sleep: noSleep,
		Confirm: func(context.Context, *x509.Certificate) (bool, error) {
			t.Error("pairing with a tailnet box asked to confirm a certificate")
			return false, nil
		},
	})
	if err != nil {
		t.Fatalf("Pair: %v", err)
	}
	if b.Pin != "" || b.Fingerprint != "" || b.Entry != "tailnet" || b.Name != "openlolo-ab12" || b.AccessToken != "at" {
		t.Fatalf("stored %+v; want no pin, entry tailnet, name openlolo-ab12", b)
	}
	// Without the CA the same box is refused (fail closed).
	_, err = Pair(context.Background(), host, PairOptions{Store: st, HTTPClient: client(x509.NewCertPool()), Sleep: noSleep})
	if err == nil {
		t.Fatal("Pair trusted a tailnet certificate no CA vouches for")
	}
	// The client built from the stored entry verifies with CAs, not a pin.
	hc, err := pinnedHTTPClient("https://"+host, b.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := hc.Transport.(*http.Transport).TLSClientConfig; cfg != nil && cfg.InsecureSkipVerify {
		t.Fatal("the tailnet client skips certificate verification")
	}
}
