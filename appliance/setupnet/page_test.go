package setupnet_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

// fakeOwner is the owner behind setupnet.Owner (appliance/owner's Pages is
// the real one, tested in its package).
type fakeOwner struct {
	mu          sync.Mutex
	pass        string    // "" unclaimed
	lockedUntil time.Time // the lock-out, when set
}

func (o *fakeOwner) Claimed(context.Context) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pass != "", nil
}

func (o *fakeOwner) ClaimInPerson(_ context.Context, p string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pass != "" {
		return setupnet.ErrClaimed
	}
	if len(p) < 10 {
		return setupnet.ErrOwnerPassphrase
	}
	o.pass = p
	return nil
}

func (o *fakeOwner) CheckOwnerPassphrase(_ *http.Request, p string) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.lockedUntil.IsZero() {
		return false, fmt.Errorf("fake owner: %w", &setupnet.LockedError{Until: o.lockedUntil})
	}
	return o.pass != "" && p == o.pass, nil
}

type fakeScanner []setupnet.Seen

func (s fakeScanner) Scan(context.Context) ([]setupnet.Seen, error) { return s, nil }

var setupAddr = netip.MustParseAddr("192.168.4.1")

// page is the setup page over a running machine whose setup network is
// open (booted without a link).
func page(t *testing.T, o *fakeOwner) (http.Handler, *setupnet.Machine, *fakeRadio) {
	t.Helper()
	r := newFakeRadio(home)
	m := run(t, r)
	if err := m.Boot(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	p := &setupnet.Page{Machine: m, Owner: o, Addr: setupAddr, BoxName: "openlolo-3f2a.local", LANURL: "https://openlolo-3f2a.local/",
		Scanner: fakeScanner{{SSID: "weak", Signal: -80, Security: "open"}, {SSID: "home", Signal: -70, Security: "wpa2-personal"},
			{SSID: "", Signal: -30}, {SSID: "home", Signal: -40, Security: "wpa2-personal"}, {SSID: "wpa3", Signal: -55, Security: "wpa3-personal"}}}
	setupnet.VerifyRendering(t, p)
	return p.Handler(), m, r
}

// do sends a request to h as if it arrived on local address la.
func do(h http.Handler, la netip.Addr, method, target string, form url.Values, hdr ...string) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, target, body)
	req.Host = la.String()
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.AddrPortFrom(la, 80))))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestPageScanStrongestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := page(t, &fakeOwner{})
		synctest.Wait()
		w := do(h, setupAddr, "GET", "/", nil)
		body := w.Body.String()
		if w.Code != 200 {
			t.Fatalf("GET / = %d %s", w.Code, body)
		}
		iHome, iWPA3, iWeak := strings.Index(body, `value="home"`), strings.Index(body, `value="wpa3"`), strings.Index(body, `value="weak"`)
		if iHome < 0 || iWPA3 < iHome || iWeak < iWPA3 {
			t.Errorf("networks not strongest first (home %d, wpa3 %d, weak %d):\n%s", iHome, iWPA3, iWeak, body)
		}
		if strings.Count(body, `value="home"`) != 1 || !strings.Contains(body, "-40 dBm") {
			t.Errorf("home not listed once at its strongest:\n%s", body)
		}
		if !strings.Contains(body, `name="hidden"`) || !strings.Contains(body, `action="/claim"`) {
			t.Errorf("no hidden-network field or claim form:\n%s", body)
		}
	})
}

func TestPageJoinHandoffThenJoined(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, m, r := page(t, &fakeOwner{})
		synctest.Wait()
		w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}})
		body := w.Body.String()
		if w.Code != http.StatusAccepted || !strings.Contains(body, "https://openlolo-3f2a.local/") || !strings.Contains(body, "Joining home") {
			t.Fatalf("join = %d, want 202 with the handoff naming the LAN URL:\n%s", w.Code, body)
		}
		if _, _, ap := r.state(); !ap {
			t.Fatal("the radio left AP mode before the handoff page was answered")
		}
		time.Sleep(setupnet.DefaultHandoff + time.Second)
		synctest.Wait()
		if st := m.Status(); st.State != setupnet.StateClosed || st.Joined != "home" {
			t.Fatalf("status %+v, want joined home", st)
		}
	})
}

func TestPageJoinHiddenAndOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		form url.Values
	}{
		{"hidden by name", url.Values{"ssid": {"-"}, "hidden": {"home"}, "passphrase": {"correct horse"}}},
		{"open network", url.Values{"ssid": {"open-cafe"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, m, _ := page(t, &fakeOwner{})
				synctest.Wait()
				if w := do(h, setupAddr, "POST", "/join", tc.form); w.Code != http.StatusAccepted {
					t.Fatalf("join = %d %s", w.Code, w.Body)
				}
				time.Sleep(setupnet.DefaultHandoff + time.Second)
				synctest.Wait()
				if st := m.Status(); st.Joined == "" || st.LastError != nil {
					t.Fatalf("status %+v, want joined", st)
				}
			})
		})
	}
}

func TestPageJoinFailureReasonShownWhenReopened(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := page(t, &fakeOwner{})
		synctest.Wait()
		if w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"wrong password"}}); w.Code != http.StatusAccepted {
			t.Fatalf("join = %d", w.Code)
		}
		time.Sleep(setupnet.DefaultHandoff + time.Second)
		synctest.Wait()
		w := do(h, setupAddr, "GET", "/", nil)
		if !strings.Contains(w.Body.String(), setupnet.ReasonWrongPassword.Sentence()) {
			t.Fatalf("reopened page does not say why:\n%s", w.Body)
		}
	})
}

func TestPageRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, m, _ := page(t, &fakeOwner{})
		synctest.Wait()
		for _, tc := range []struct {
			name string
			form url.Values
			want int
		}{
			{"ssid over 32 bytes", url.Values{"ssid": {strings.Repeat("x", 33)}}, 400},
			{"passphrase under 8", url.Values{"ssid": {"home"}, "passphrase": {"short"}}, 400},
			{"no name", url.Values{"ssid": {"-"}}, 400},
		} {
			if w := do(h, setupAddr, "POST", "/join", tc.form); w.Code != tc.want {
				t.Errorf("%s: %d, want %d", tc.name, w.Code, tc.want)
			}
		}
		if w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}}, "Sec-Fetch-Site", "cross-site"); w.Code != http.StatusForbidden {
			t.Errorf("cross-site join = %d, want 403", w.Code)
		}
		if w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}}, "Origin", "http://evil.example"); w.Code != http.StatusForbidden {
			t.Errorf("cross-origin join = %d, want 403", w.Code)
		}
		if st := m.Status(); st.State != setupnet.StateOpen {
			t.Errorf("a refused join changed the state: %+v", st)
		}
	})
}

func TestPageClaimOnlyOnSetupListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &fakeOwner{}
		h, _, _ := page(t, o)
		synctest.Wait()
		claim := url.Values{"passphrase": {"a long passphrase"}, "confirm": {"a long passphrase"}}
		lan := netip.MustParseAddr("192.168.1.23")
		if w := do(h, lan, "POST", "/claim", claim); w.Code != http.StatusForbidden {
			t.Fatalf("claim arriving on the LAN address = %d, want 403", w.Code)
		}
		if ok, _ := o.Claimed(t.Context()); ok {
			t.Fatal("a request on the LAN address claimed the box")
		}
		if w := do(h, lan, "GET", "/", nil); w.Code != http.StatusForbidden {
			t.Errorf("page on the LAN address = %d, want 403", w.Code)
		}
		if w := do(h, setupAddr, "POST", "/claim", claim, "Sec-Fetch-Site", "cross-site"); w.Code != http.StatusForbidden {
			t.Errorf("cross-site claim = %d, want 403", w.Code)
		}
		if w := do(h, setupAddr, "POST", "/claim", url.Values{"passphrase": {"a long passphrase"}, "confirm": {"another one!"}}); w.Code != 400 {
			t.Errorf("differing passphrases = %d, want 400", w.Code)
		}
		w := do(h, setupAddr, "POST", "/claim", claim)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "The box is yours") {
			t.Fatalf("claim on the setup network = %d %s", w.Code, w.Body)
		}
		if w := do(h, setupAddr, "POST", "/claim", claim); w.Code != http.StatusConflict {
			t.Errorf("second claim = %d, want 409", w.Code)
		}
		// Owner-only now: joining takes the owner's passphrase.
		if w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}}); w.Code != http.StatusForbidden {
			t.Errorf("join without the owner passphrase after the claim = %d, want 403", w.Code)
		}
		if w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}, "owner": {"a long passphrase"}}); w.Code != http.StatusAccepted {
			t.Errorf("owner's join = %d %s, want 202", w.Code, w.Body)
		}
	})
}

// TestPageOwnerPassphraseLockedOut: while the owner's lock-out holds, a
// join on a claimed box is refused with 429 and a wait, and nothing joins.
func TestPageOwnerPassphraseLockedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &fakeOwner{pass: "the owner's passphrase", lockedUntil: time.Now().Add(45 * time.Second)}
		h, m, r := page(t, o)
		synctest.Wait()
		w := do(h, setupAddr, "POST", "/join", url.Values{"ssid": {"home"}, "passphrase": {"correct horse"}, "owner": {"the owner's passphrase"}})
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "45" || !strings.Contains(w.Body.String(), "Too many wrong owner passphrases") {
			t.Fatalf("locked join: %d Retry-After %q %q", w.Code, w.Header().Get("Retry-After"), w.Body.String())
		}
		time.Sleep(time.Minute)
		if st := m.Status(); st.State != setupnet.StateOpen {
			t.Errorf("a locked-out join changed the state: %+v", st)
		}
		if calls, _, _ := r.state(); len(calls) != 1 {
			t.Errorf("radio calls %q, want only the opening", calls)
		}
	})
}
