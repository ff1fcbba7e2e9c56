package owner_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/phone"
)

const testPass = "correct horse battery staple"

// clock is a settable clock shared by the box page and the OAuth server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// box is a box page and OAuth server on a real TLS listener.
type box struct {
	st        *store.Store
	pages     *owner.Pages
	oauth     *oauth.Server
	srv       *httptest.Server
	url       string
	clock     *clock
	setupFile string
}

type boxOpts struct {
	phone    phone.Phone
	screen   owner.Screen // Config.Screen; PhoneScreen(phone) when nil
	control  owner.Controller
	button   *fakeButton
	certPEM  []byte // BoxInfo.CertPEM: the certificate the Connect page offers
	updater  *update.Updater
	stateDir string // Config.StateDir
	driver   owner.Driver
	live     owner.LiveOptions
	wifi     owner.WiFi
	identity *fakeIdentity         // Config.Identity; its BoxInfo is Config.Info's
	tailnet  owner.Tailnet         // Config.Tailnet: the remote entry
	trust    func(context.Context) // Config.Trust
	// asks, when set, makes the asks service from the box's store and
	// clock (asks_test.go).
	asks func(t testing.TB, st *store.Store, now func() time.Time) *control.Service
	// phones is Config.Phones: a box of several phones; phoneID is
	// Config.PhoneID: the id of a box's one phone.
	phones  []owner.BoxPhone
	phoneID string
	// readTimeout is the test server's ReadTimeout (0: none);
	// uploadIdle is Config.UploadIdle.
	readTimeout, uploadIdle time.Duration
}

func newBox(t testing.TB, o boxOpts) *box {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	as, err := oauth.New(oauth.Config{Store: st, Now: clk.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b := &box{st: st, oauth: as, clock: clk, setupFile: filepath.Join(t.TempDir(), "setup-code.txt")}
	var asks *control.Service
	var screen owner.Screen
	switch {
	case o.screen != nil:
		screen = o.screen
	case o.phone != nil:
		screen = owner.PhoneScreen(o.phone)
	}
	if o.asks != nil {
		asks = o.asks(t, st, clk.Now)
	}
	b.pages, err = owner.New(owner.Config{
		Asks: asks, Phones: o.phones, PhoneID: o.phoneID,
		Store: st, OAuth: as, Phone: o.phone, Screen: screen, Control: o.control, Button: o.button.events(), Updater: o.updater, StateDir: o.stateDir, Driver: o.driver, Live: o.live, WiFi: o.wifi, Now: clk.Now, SetupCodeFile: b.setupFile,
		UploadIdle: o.uploadIdle,
		Identity:   identityOf(o.identity), Tailnet: o.tailnet, Trust: o.trust,
		Info: func() owner.BoxInfo {
			if o.identity != nil {
				return o.identity.info()
			}
			return owner.BoxInfo{BoxInfo: api.BoxInfo{Name: "openlolo-test", Version: "v0.0.0-test"}, Fingerprint: "ab12", FingerprintColon: "AB:12", SPKIPin: "cGlu", Backend: "sim", CertPEM: o.certPEM}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	owner.VerifyRendering(t, b.pages)
	mux := http.NewServeMux()
	as.Routes(mux)
	b.pages.Routes(mux)
	// A resource behind the bearer check, to see tokens work or fail.
	mux.Handle("GET /probe", as.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := oauth.CallerFrom(r.Context())
		w.Write([]byte(c.ClientName))
	})))
	// X-Test-Peer stands for the peer's address, so tests can speak from
	// several sources (see peerClient).
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peer := r.Header.Get("X-Test-Peer"); peer != "" {
			r.RemoteAddr = peer
		}
		mux.ServeHTTP(w, r)
	}))
	b.srv.Config.ReadTimeout = o.readTimeout
	b.srv.StartTLS()
	t.Cleanup(b.srv.Close)
	b.url = b.srv.URL
	return b
}

// code returns the setup code the box would print.
func (b *box) code(t testing.TB) string {
	t.Helper()
	c, claimed, err := b.pages.SetupCode(context.Background())
	if err != nil || claimed {
		t.Fatalf("SetupCode() = %q, %v, %v", c, claimed, err)
	}
	return c
}

// claimed returns a box already claimed and a client logged in to it.
func claimedBox(t testing.TB, o boxOpts) (*box, *http.Client) {
	t.Helper()
	b := newBox(t, o)
	c := ownertest.NewClient(t, b.srv)
	ownertest.Claim(t, c, b.url, b.code(t), testPass)
	return b, c
}

// noRedirect returns a copy of c that does not follow redirects.
func noRedirect(c *http.Client) *http.Client {
	n := *c
	n.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &n
}

// peerClient is a new browser on the network at addr (host:port).
func peerClient(t *testing.T, b *box, addr string) *http.Client {
	t.Helper()
	c := ownertest.NewClient(t, b.srv)
	c.Transport = peerTransport{addr: addr, base: c.Transport}
	return c
}

type peerTransport struct {
	addr string
	base http.RoundTripper
}

func (p peerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Peer", p.addr)
	return p.base.RoundTrip(r)
}
