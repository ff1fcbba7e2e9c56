package integration

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
	boxtls "github.com/openlolo/openlolo/tls"
	"github.com/openlolo/openlolo/waittest"
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
	var out syncBuffer
	cfg.Version, cfg.LANAddr, cfg.Out = "test", "127.0.0.1:0", &out
	ctx, cancel := context.WithCancel(context.Background())
	box, err := appliance.New(ctx, cfg)
	if err != nil {
		cancel()
		ph.Close()
		t.Fatalf("appliance.New: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- box.Run(ctx) }()
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

	code := waitLine(t, &out, "Setup code:")
	tb.Owner = ownerClient(t, box.Cert().Fingerprint())
	if strings.HasPrefix(code, "none") {
		ownertest.Login(t, tb.Owner, tb.URL, passphrase)
	} else {
		ownertest.Claim(t, tb.Owner, tb.URL, code, passphrase)
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

// waitLine waits until out has a line starting with prefix and returns the
// rest of it, trimmed.
func waitLine(t *testing.T, out *syncBuffer, prefix string) string {
	t.Helper()
	var line string
	if waittest.Until(10*time.Second, 20*time.Millisecond, func() bool {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				line = strings.TrimSpace(rest)
				return true
			}
		}
		return false
	}) {
		return line
	}
	t.Fatalf("the box printed no %q line; it printed:\n%s", prefix, out.String())
	return ""
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
