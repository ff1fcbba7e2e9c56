package lockdown_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown/lockdowntest"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/usbmuxtest"
)

const udid = "00008110-000A1B2C3D4E5F60"

// fakePhone is usbmuxd with one phone whose lockdownd is dev.
func fakePhone(t *testing.T, dev *lockdowntest.Device) (*usbmux.Client, usbmux.Device) {
	t.Helper()
	srv := &usbmuxtest.Server{}
	srv.Connect = func(id uint64, port uint16) func(net.Conn) {
		if port != lockdown.Port {
			return nil
		}
		return dev.Serve
	}
	c := &usbmux.Client{Socket: srv.Start(t)}
	d := usbmux.Device{ID: 3, UDID: udid, ConnectionType: "USB"}
	srv.Attach(d)
	return c, d
}

func dial(t *testing.T, mux *usbmux.Client, d usbmux.Device) *lockdown.Client {
	t.Helper()
	conn, err := mux.Connect(t.Context(), d.ID, lockdown.Port)
	if err != nil {
		t.Fatal(err)
	}
	c := lockdown.NewClient(conn, "test")
	t.Cleanup(func() { c.Close() })
	return c
}

func TestPairSessionService(t *testing.T) {
	ctx := t.Context()
	var mu sync.Mutex
	prompts := 0
	dev := &lockdowntest.Device{
		UDID: udid, ProductType: "iPhone17,1", ProductVersion: "27.0",
		Prompt: func() string {
			mu.Lock()
			defer mu.Unlock()
			if prompts++; prompts <= 2 {
				return "PairingDialogResponsePending"
			}
			return ""
		},
		Services: map[string]lockdowntest.Service{"com.apple.internal.devicecompute.CoreDeviceProxy": {Port: 49152, SSL: true}},
	}
	mux, d := fakePhone(t, dev)
	c := dial(t, mux, d)

	if typ, err := c.QueryType(ctx); err != nil || typ != "com.apple.mobile.lockdown" {
		t.Fatalf("QueryType = %q, %v", typ, err)
	}
	v, err := c.GetValue(ctx, "", "ProductVersion")
	if err != nil || v != "27.0" {
		t.Fatalf("GetValue(ProductVersion) = %v, %v", v, err)
	}
	if _, err := c.GetValue(ctx, "com.apple.nothing", "X"); err == nil {
		t.Error("GetValue of a missing value succeeded")
	}
	pub, err := c.GetValue(ctx, "", "DevicePublicKey")
	if err != nil {
		t.Fatal(err)
	}
	buid, _ := mux.ReadBUID(ctx)
	rec, err := lockdown.NewPairRecord(pub.([]byte), buid, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	// Before pairing the device does not know this host.
	if _, err := c.StartSession(ctx, rec); !errors.Is(err, lockdown.ErrInvalidHostID) {
		t.Fatalf("StartSession before pairing = %v, want ErrInvalidHostID", err)
	}
	waited := 0
	if err := c.PairAndWait(ctx, rec, time.Millisecond, func(err error) {
		waited++
		if !errors.Is(err, lockdown.ErrPairingPending) {
			t.Errorf("waiting called with %v", err)
		}
	}); err != nil {
		t.Fatalf("PairAndWait: %v", err)
	}
	if waited != 1 || prompts != 3 {
		t.Errorf("waiting called %d times, %d Pair requests; want 1 and 3", waited, prompts)
	}
	if string(rec.EscrowBag) != "fake escrow bag" {
		t.Errorf("EscrowBag = %q", rec.EscrowBag)
	}

	// The record survives the store; the session runs TLS with it.
	store := lockdown.Store{Dir: filepath.Join(t.TempDir(), "pair")}
	if err := store.Save(udid, rec); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(store.Dir, udid+".plist"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	loaded, err := store.Load(udid)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(loaded.HostPrivateKey, rec.HostPrivateKey) || loaded.HostID != rec.HostID || !bytes.Equal(loaded.EscrowBag, rec.EscrowBag) {
		t.Error("loaded record differs from the saved one")
	}

	c2 := dial(t, mux, d)
	if _, err := c2.StartService(ctx, "com.apple.internal.devicecompute.CoreDeviceProxy", nil); err == nil {
		t.Error("StartService without a session succeeded")
	}
	if id, err := c2.StartSession(ctx, loaded); err != nil || id == "" {
		t.Fatalf("StartSession = %q, %v", id, err)
	}
	svc, err := c2.StartService(ctx, "com.apple.internal.devicecompute.CoreDeviceProxy", loaded.EscrowBag)
	if err != nil || svc != (lockdown.Service{Port: 49152, SSL: true}) {
		t.Fatalf("StartService = %+v, %v", svc, err)
	}
	var le *lockdown.Error
	if _, err := c2.StartService(ctx, "com.example.none", nil); !errors.As(err, &le) || le.Name != "InvalidService" {
		t.Errorf("StartService of a missing service = %v", err)
	}
	// Values are still readable inside the TLS session.
	if v, err := c2.GetValue(ctx, "", "UniqueDeviceID"); err != nil || v != udid {
		t.Errorf("GetValue in session = %v, %v", v, err)
	}
}

func TestPairDenied(t *testing.T) {
	dev := &lockdowntest.Device{UDID: udid, Prompt: func() string { return "UserDeniedPairing" }}
	mux, d := fakePhone(t, dev)
	c := dial(t, mux, d)
	pub, _ := c.GetValue(t.Context(), "", "DevicePublicKey")
	rec, err := lockdown.NewPairRecord(pub.([]byte), "BUID", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	err = c.PairAndWait(t.Context(), rec, time.Millisecond, nil)
	if !errors.Is(err, lockdown.ErrUserDenied) {
		t.Fatalf("PairAndWait = %v, want ErrUserDenied", err)
	}
	if want := "Don't Trust"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %q does not tell the owner what happened (%q)", err, want)
	}
}

func TestPairWaitCancelled(t *testing.T) {
	dev := &lockdowntest.Device{UDID: udid, Prompt: func() string { return "PairingDialogResponsePending" }}
	mux, d := fakePhone(t, dev)
	c := dial(t, mux, d)
	pub, _ := c.GetValue(t.Context(), "", "DevicePublicKey")
	rec, _ := lockdown.NewPairRecord(pub.([]byte), "BUID", nil, time.Now())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if err := c.PairAndWait(ctx, rec, 5*time.Millisecond, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PairAndWait = %v, want DeadlineExceeded", err)
	}
}

func TestWrongRecordRefusedByTLS(t *testing.T) {
	// A record with the right HostID but another host key fails the
	// session's TLS: the device checks the certificate chain.
	dev := &lockdowntest.Device{UDID: udid}
	mux, d := fakePhone(t, dev)
	c := dial(t, mux, d)
	pub, _ := c.GetValue(t.Context(), "", "DevicePublicKey")
	rec, _ := lockdown.NewPairRecord(pub.([]byte), "BUID", nil, time.Now())
	if err := c.Pair(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	other, _ := lockdown.NewPairRecord(pub.([]byte), "BUID", nil, time.Now())
	other.HostID = rec.HostID
	c2 := dial(t, mux, d)
	// With TLS 1.3 the client finishes its handshake before the server has
	// checked the certificate, so the refusal shows on the next request.
	_, err := c2.StartSession(t.Context(), other)
	if err == nil {
		_, err = c2.GetValue(t.Context(), "", "UniqueDeviceID")
	}
	if err == nil {
		t.Fatal("a session with a forged record answered")
	}
}

func TestMessages(t *testing.T) {
	var b bytes.Buffer
	if err := lockdown.WriteMessage(&b, plist.Dict{{Key: "Request", Value: "QueryType"}}); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	if n := int(raw[0])<<24 | int(raw[1])<<16 | int(raw[2])<<8 | int(raw[3]); n != len(raw)-4 {
		t.Errorf("length prefix %d, body %d (want big-endian)", n, len(raw)-4)
	}
	m, err := lockdown.ReadMessage(bytes.NewReader(raw))
	if err != nil || m.String("Request") != "QueryType" {
		t.Errorf("ReadMessage = %v, %v", m, err)
	}
	for name, in := range map[string][]byte{
		"zero length": {0, 0, 0, 0},
		"huge":        {0x7f, 0, 0, 0},
		"short":       raw[:len(raw)-1],
		"not a plist": append([]byte{0, 0, 0, 3}, "abc"...),
	} {
		if _, err := lockdown.ReadMessage(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: ReadMessage succeeded", name)
		}
	}
}

func TestStore(t *testing.T) {
	s := lockdown.Store{Dir: t.TempDir()}
	if _, err := s.Load(udid); !errors.Is(err, lockdown.ErrNoRecord) {
		t.Errorf("Load of nothing = %v, want ErrNoRecord", err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden"} {
		if err := s.Save(bad, &lockdown.PairRecord{}); err == nil {
			t.Errorf("Save(%q) succeeded", bad)
		}
	}
	os.WriteFile(filepath.Join(s.Dir, udid+".plist"), []byte("<plist><dict/></plist>"), 0o600)
	if _, err := s.Load(udid); !errors.Is(err, lockdown.ErrMalformed) {
		t.Errorf("Load of an empty record = %v, want ErrMalformed", err)
	}
	if err := s.Delete(udid); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(udid); err != nil {
		t.Errorf("second Delete = %v", err)
	}
}

func TestNewPairRecordBadKey(t *testing.T) {
	for _, k := range [][]byte{nil, []byte("not pem"), []byte("-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----\n")} {
		if _, err := lockdown.NewPairRecord(k, "B", nil, time.Now()); !errors.Is(err, lockdown.ErrMalformed) {
			t.Errorf("NewPairRecord(%q) = %v, want ErrMalformed", k, err)
		}
	}
}

func TestCheckin(t *testing.T) {
	for name, tt := range map[string]struct {
		replies []plist.Dict
		ok      bool
	}{
		"ok":         {[]plist.Dict{{{Key: "Request", Value: "RSDCheckin"}}, {{Key: "Request", Value: "StartService"}}}, true},
		"refused":    {[]plist.Dict{{{Key: "Request", Value: "RSDCheckin"}}, {{Key: "Request", Value: "StartService"}, {Key: "Error", Value: "ServiceProhibited"}}}, false},
		"wrong echo": {[]plist.Dict{{{Key: "Request", Value: "Other"}}}, false},
		"no start":   {[]plist.Dict{{{Key: "Request", Value: "RSDCheckin"}}, {{Key: "Request", Value: "Other"}}}, false},
	} {
		a, b := net.Pipe()
		go func() {
			defer b.Close()
			req, err := lockdown.ReadMessage(b)
			if err != nil || req.String("Request") != "RSDCheckin" || req.String("ProtocolVersion") != "2" {
				return
			}
			for _, r := range tt.replies {
				lockdown.WriteMessage(b, r)
			}
		}()
		err := lockdown.NewClient(a, "t").Checkin(t.Context())
		if (err == nil) != tt.ok {
			t.Errorf("%s: Checkin = %v", name, err)
		}
		a.Close()
	}
}

// TestDeviceKey: a fake device given a key reports that key as its
// DevicePublicKey (an emulated test machine passes one made beforehand).
func TestDeviceKey(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dev := &lockdowntest.Device{UDID: udid, Key: k}
	mux, d := fakePhone(t, dev)
	pub, err := dial(t, mux, d).GetValue(t.Context(), "", "DevicePublicKey")
	want := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.PublicKey)})
	if b, _ := pub.([]byte); err != nil || !bytes.Equal(b, want) {
		t.Errorf("DevicePublicKey = %s, %v; want the given key's %s", pub, err, want)
	}
}
