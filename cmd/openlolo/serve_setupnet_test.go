package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/setupnet"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/waittest"
)

// fakeWiFi is a radio that sees one home network.
type fakeWiFi struct {
	mu     sync.Mutex
	apOpen bool
	joined string
	calls  []string
}

func (f *fakeWiFi) note(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }
func (f *fakeWiFi) OpenAP(_ context.Context, ap setupnet.AP) error {
	f.note("open " + ap.SSID)
	f.mu.Lock()
	f.apOpen = true
	f.mu.Unlock()
	return nil
}
func (f *fakeWiFi) CloseAP(context.Context) error {
	f.note("close")
	f.mu.Lock()
	f.apOpen = false
	f.mu.Unlock()
	return nil
}
func (f *fakeWiFi) Join(_ context.Context, n setupnet.Network) (string, error) {
	f.note("join " + n.SSID)
	if n.SSID != "home" || n.Passphrase != "correct horse" {
		return "1", &setupnet.JoinError{Reason: setupnet.ReasonWrongPassword, Err: errors.New("fake: WRONG_KEY")}
	}
	f.mu.Lock()
	f.joined = n.SSID
	f.mu.Unlock()
	return "1", nil
}
func (f *fakeWiFi) Link(context.Context) (setupnet.Link, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.joined == "" {
		return setupnet.Link{}, nil
	}
	return setupnet.Link{Addr: netip.MustParsePrefix("192.168.1.23/24"), Gateway: netip.MustParseAddr("192.168.1.1"), GatewayAnswers: true}, nil
}
func (f *fakeWiFi) Keep(context.Context, string) error   { f.note("keep"); return nil }
func (f *fakeWiFi) Forget(context.Context, string) error { f.note("forget"); return nil }
func (f *fakeWiFi) Scan(context.Context) ([]setupnet.Seen, error) {
	return []setupnet.Seen{{SSID: "home", Signal: -42, Security: "wpa2-personal"}}, nil
}
func (f *fakeWiFi) state() (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.joined, f.apOpen
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// eventually polls cond for up to 10 s (the real listeners rule out
// testing/synctest here).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !waittest.Until(10*time.Second, 10*time.Millisecond, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestSetupNetWiring: serve's setup network on a real box (sim phone) and
// real listeners, with the fake radio: the card is written and printed, a
// captive probe is sent to the page, DNS answers with the box, the box is
// claimed there without the setup code, and a join hands the radio over.
func TestSetupNetWiring(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ph, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	state := t.TempDir()
	box, err := appliance.New(ctx, appliance.Config{StateDir: state, Name: "openlolo-3f2a", Phone: ph, LANAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	radio := &fakeWiFi{}
	out := &syncBuf{}
	cardDir := filepath.Join(t.TempDir(), "openlolo")
	sn := &setupNet{Radio: radio, Scanner: radio, Owner: box.SetupOwner(), BoxID: box.Name(), LANURL: "https://openlolo-3f2a.local/",
		StateDir: state, CardDir: cardDir, Addr: netip.MustParseAddr("127.0.0.1"), HTTP: ln, DNS: pc, Out: out,
		Log: slog.New(slog.DiscardHandler), Online: func(context.Context) bool { return false },
		Machine: setupnet.Config{Handoff: 50 * time.Millisecond}}
	done := make(chan error, 1)
	go func() { done <- sn.run(ctx) }()

	eventually(t, "the setup network to open", func() bool { _, ap := radio.state(); return ap })
	pass, err := os.ReadFile(filepath.Join(state, setupnet.PasswordFile))
	if err != nil {
		t.Fatal(err)
	}
	card, err := os.ReadFile(filepath.Join(cardDir, setupnet.CardText))
	if err != nil || !strings.Contains(string(card), strings.TrimSpace(string(pass))) || !strings.Contains(string(card), "openlolo-setup-3f2a") {
		t.Fatalf("card %q, %v: want the SSID and password", card, err)
	}
	if !strings.Contains(out.String(), "openlolo-setup-3f2a") {
		t.Errorf("card not printed on the console: %q", out.String())
	}

	base := "http://" + ln.Addr().String()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/hotspot-detect.html", nil)
	req.Host = "captive.apple.com"
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "http://127.0.0.1/" {
		t.Errorf("captive probe: %d to %q, want 302 to the page", res.StatusCode, res.Header.Get("Location"))
	}

	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp4", pc.LocalAddr().String())
	}}
	addrs, err := r.LookupHost(ctx, "connectivitycheck.gstatic.com")
	if err != nil || len(addrs) == 0 || addrs[0] != "127.0.0.1" {
		t.Errorf("DNS on the setup address: %v, %v; want the box", addrs, err)
	}

	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		res, err := http.PostForm(base+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post("/claim", url.Values{"passphrase": {"a long passphrase"}, "confirm": {"a long passphrase"}}); code != 200 {
		t.Fatalf("claim on the setup network: %d %s", code, body)
	}
	if ok, err := box.SetupOwner().Claimed(ctx); !ok || err != nil {
		t.Fatalf("box not claimed: %v, %v", ok, err)
	}
	if code, _ := post("/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}}); code != http.StatusForbidden {
		t.Errorf("join without the owner passphrase after the claim: %d, want 403", code)
	}
	code, body := post("/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}, "owner": {"a long passphrase"}})
	if code != http.StatusAccepted || !strings.Contains(body, "https://openlolo-3f2a.local/") {
		t.Fatalf("join: %d %s", code, body)
	}
	eventually(t, "the join", func() bool { j, ap := radio.state(); return j == "home" && !ap })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestSetupNetFlagChecks(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		http   string
		ok     bool
		shared bool
	}{
		{nil, ":80", true, false}, // off: nothing to check
		{[]string{"--wifi", "wlan0"}, "", true, false},
		{[]string{"--wifi", "wlan0"}, "192.168.1.5:80", true, false},
		// a wildcard port 80 cannot be bound beside the setup address's: the page shares it
		{[]string{"--wifi", "wlan0"}, ":80", true, true},
		{[]string{"--wifi", "wlan0"}, "0.0.0.0:80", true, true},
		{[]string{"--wifi", "wlan0"}, "192.168.4.1:80", false, false},
		{[]string{"--wifi", "wlan0", "--wifi-addr", "fe80::1"}, "", false, false},
	} {
		fs := newTestFlagSet()
		f := addSetupNetFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		at, err := f.check(tc.http)
		if (err == nil) != tc.ok || at.Shared != tc.shared {
			t.Errorf("%v --http %q: %+v, %v, want ok=%v shared=%v", tc.args, tc.http, at, err, tc.ok, tc.shared)
		}
	}
}

func newTestFlagSet() *flag.FlagSet { return flag.NewFlagSet("serve", flag.ContinueOnError) }

// TestSetupFront: on a shared wildcard :80, requests that arrived on the
// setup address go to the setup page once it runs, every other one to the
// box's redirects.
func TestSetupFront(t *testing.T) {
	f := &setupFront{addr: netip.MustParseAddr("192.168.4.1")}
	h := f.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("redirects")) }))
	get := func(local string) string {
		req := httptestRequest(local)
		rec := &recorder{}
		h.ServeHTTP(rec, req)
		return rec.body.String()
	}
	if got := get("[::ffff:192.168.4.1]:80"); got != "redirects" {
		t.Errorf("before the setup page runs: %q, want the redirects", got)
	}
	f.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("setup page")) }))
	for local, want := range map[string]string{
		"[::ffff:192.168.4.1]:80": "setup page",
		"192.168.4.1:80":          "setup page",
		"192.168.1.5:80":          "redirects",
		"[fe80::1]:80":            "redirects",
	} {
		if got := get(local); got != want {
			t.Errorf("arrived on %s: %q, want %q", local, got, want)
		}
	}
}

func httptestRequest(local string) *http.Request {
	req, _ := http.NewRequest("GET", "http://connectivitycheck.gstatic.com/generate_204", nil)
	ap := netip.MustParseAddrPort(local)
	return req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(ap)))
}

type recorder struct {
	h    http.Header
	body bytes.Buffer
}

func (r *recorder) Header() http.Header {
	if r.h == nil {
		r.h = http.Header{}
	}
	return r.h
}
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(int)             {}
