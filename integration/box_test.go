package integration

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/startup"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
	boxtls "github.com/openlolo/openlolo/tls"
)

const passphrase = "correct horse battery"

// testBox is a running box on the simulated phone, claimed by an owner
// whose logged-in client is Owner.
type testBox struct {
	Box   *appliance.Box
	Sim   *sim.Phone
	URL   string // https://127.0.0.1:PORT (no trailing slash)
	State string
	Owner *http.Client

	stop func()
}

// startBox starts a box on state (a new temp dir when ""), claims it unless
// it is claimed already, and logs the owner in.
func startBox(t *testing.T, state string, rotate bool) *testBox {
	t.Helper()
	ph, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb := startBoxOn(t, state, rotate, ph)
	tb.Sim = ph
	return tb
}

// startBoxOn is startBox on another phone backend (tb.Sim is then nil).
func startBoxOn(t *testing.T, state string, rotate bool, ph phone.Phone) *testBox {
	t.Helper()
	return startBoxConfig(t, appliance.Config{StateDir: state, RotateCert: rotate, Phone: ph})
}

// startBoxConfig starts the box cfg describes on 127.0.0.1 (a new temp
// state dir when cfg has none, the name openlolo-e2e0 unless it has one),
// claims it unless it is claimed already, and logs the owner in. It
// closes cfg.Phone when the box stops.
func startBoxConfig(t *testing.T, cfg appliance.Config) *testBox {
	t.Helper()
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	if cfg.Name == "" {
		cfg.Name = "openlolo-e2e0"
	}
	state, ph := cfg.StateDir, cfg.Phone
	pr, pw := io.Pipe()
	cfg.Version, cfg.LANAddr, cfg.Out = "test", "127.0.0.1:0", pw
	ctx, cancel := context.WithCancel(context.Background())
	box, err := appliance.New(ctx, cfg)
	if err != nil {
		cancel()
		ph.Close()
		t.Fatalf("appliance.New: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		err := box.Run(ctx)
		pw.Close()
		done <- err
	}()
	var lines startup.Lines
	printed := make(chan error, 1)
	go func() {
		var err error
		lines, err = startup.Read(pr)
		printed <- err
		io.Copy(io.Discard, pr) // a factory reset prints again
	}()
	tb := &testBox{Box: box, URL: strings.TrimSuffix(box.LANURL(), "/"), State: state}
	var once sync.Once
	tb.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("box.Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Errorf("box did not stop within 15 s")
			}
			ph.Close()
		})
	}
	t.Cleanup(tb.stop)

	select {
	case err := <-printed:
		if err != nil {
			t.Fatalf("the box's start-up lines: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the box printed no start-up lines in 10 s")
	}
	tb.Owner = ownerClient(t, box.Cert().Fingerprint())
	if lines.SetupCode == "" { // claimed already
		ownertest.Login(t, tb.Owner, tb.URL, passphrase)
	} else {
		ownertest.Claim(t, tb.Owner, tb.URL, lines.SetupCode, passphrase)
	}
	return tb
}

// ownerClient is a browser-like client: pinned to the box, with a cookie jar.
func ownerClient(t *testing.T, fp string) *http.Client {
	t.Helper()
	cfg, err := boxtls.ClientConfig(fp)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg}}
}

// approve approves the pending request with userCode on the Access page as
// the owner, for life.
func (tb *testBox) approve(t *testing.T, userCode, life string) {
	t.Helper()
	ownertest.Approve(t, tb.Owner, tb.URL, userCode, life)
}
