package integration

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// pairSDK pairs with the box at url through the SDK, confirming the
// certificate only if it is the box's, and approving on the Access page.
func pairSDK(t *testing.T, tb *testBox, url string, st *sdk.TokenStore) sdk.Box {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var asked bool
	b, err := sdk.Pair(ctx, url, sdk.PairOptions{
		ClientName: "e2e script",
		Store:      st,
		Confirm: func(_ context.Context, c *x509.Certificate) (bool, error) {
			asked = true
			return boxtls.FingerprintHex(c) == tb.Box.Cert().Fingerprint(), nil
		},
		Prompt: func(msg, code, link string) {
			if !strings.Contains(msg, "Approve 'e2e script' on the box page (Access). Code "+code+".") {
				t.Errorf("pairing prompt = %q, want the seed's sentence with the code", msg)
			}
			if !strings.Contains(link, "/access?r=") {
				t.Errorf("pairing link = %q, want a /access?r= request link", link)
			}
			tb.approve(t, code, ownertest.Life30d)
		},
	})
	if err != nil {
		t.Fatalf("sdk.Pair: %v", err)
	}
	if !asked {
		t.Error("Pair did not ask to confirm the certificate (trust on first use)")
	}
	if b.Fingerprint != tb.Box.Cert().Fingerprint() || b.ClientID == "" || b.RefreshToken == "" {
		t.Fatalf("stored box = %+v", b)
	}
	return b
}

func TestSDKEndToEnd(t *testing.T) {
	tb := startBox(t, "", false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	ctx := context.Background()

	c, err := sdk.Dial(ctx, tb.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Status(ctx)
	if err != nil || res.Status() != "ok" {
		t.Fatalf("Status = %v, %v", res, err)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{})
	if err != nil {
		t.Fatalf("Screenshot: %v", err)
	}
	if shot.MIMEType != "image/jpeg" || len(shot.Image) == 0 || shot.Width == 0 {
		t.Fatalf("screenshot = %s %d bytes %dx%d", shot.MIMEType, len(shot.Image), shot.Width, shot.Height)
	}
	notes, ok := tb.Sim.IconCenter("Notes")
	if !ok {
		t.Fatal("the sim has no Notes icon")
	}
	if _, err := c.Tap(ctx, shot.Frame, notes.X, notes.Y, nil); err != nil {
		t.Fatalf("Tap(Notes): %v", err)
	}
	if s := tb.Sim.Screen(); s != "notes" {
		t.Fatalf("after tapping Notes the phone shows %q", s)
	}
	if _, err := c.TypeText(ctx, "Hello, box!", nil); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	if got := tb.Sim.NoteText(); !strings.Contains(got, "Hello, box!") {
		t.Fatalf("note text = %q", got)
	}
	// A refused call comes back as *Refused with errors.Is targets: the
	// frame taken before typing is no longer the caller's latest after a
	// new screenshot.
	if _, err := c.Screenshot(ctx, sdk.ScreenshotOptions{Format: "png", MaxSize: 512}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Tap(ctx, shot.Frame, 0.5, 0.5, nil)
	var ref *sdk.Refused
	if !errors.Is(err, sdk.ErrFrameExpired) || !errors.As(err, &ref) || ref.Dispatched {
		t.Fatalf("tap on an old frame = %v, want FRAME_EXPIRED, not dispatched", err)
	}
	if _, err := c.Button(ctx, "home", nil); err != nil {
		t.Fatalf("Button(home): %v", err)
	}
	if s := tb.Sim.Screen(); s != "home" {
		t.Fatalf("after Home the phone shows %q", s)
	}
}

func TestSDKPinMismatchAfterRotation(t *testing.T) {
	state := t.TempDir()
	tb := startBox(t, state, false)
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	pairSDK(t, tb, tb.URL, st)
	oldFP := tb.Box.Cert().Fingerprint()
	tb.stop()

	tb2 := startBox(t, state, true) // same state, new certificate
	newFP := tb2.Box.Cert().Fingerprint()
	if newFP == oldFP {
		t.Fatal("--rotate-cert kept the fingerprint")
	}
	// The store knows the old port; point the stored entry at the new one.
	b, _ := st.Get(tb.URL)
	st.Delete(tb.URL)
	b.URL = tb2.URL
	st.Put(b)
	before := tb2.Sim.ReportCount(hid.KindAbsMouse)
	ctx := context.Background()
	c, err := sdk.Dial(ctx, tb2.URL, &sdk.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Status(ctx)
	var pm *sdk.PinMismatch
	if !errors.As(err, &pm) {
		t.Fatalf("Status on a rotated box = %v, want *PinMismatch", err)
	}
	if pm.Want != oldFP || pm.Got != newFP || !strings.Contains(err.Error(), oldFP) || !strings.Contains(err.Error(), newFP) {
		t.Fatalf("PinMismatch = %+v (%v), want both fingerprints %s and %s", pm, err, oldFP, newFP)
	}
	_, err = c.Tap(ctx, sdk.Frame{ID: "x", Epoch: "1"}, 0.5, 0.5, nil)
	if !errors.As(err, &pm) {
		t.Fatalf("Tap on a rotated box = %v, want *PinMismatch", err)
	}
	if got := tb2.Sim.ReportCount(hid.KindAbsMouse); got != before {
		t.Fatalf("the phone got %d pointer reports through a mismatched pin", got-before)
	}
}

// dropProxy terminates TLS with the box's own certificate (so the client's
// pin holds), forwards each request to the box, and for the first n
// requests whose body names tool, reads the box's whole answer and then
// drops the connection without passing it on: the box acted, the client
// never heard.
type dropProxy struct {
	box    string
	hc     *http.Client
	tool   string
	mu     sync.Mutex
	drops  int
	bodies []string
}

func (p *dropProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.box+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := p.hc.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p.mu.Lock()
	drop := strings.Contains(string(body), `"name":"`+p.tool+`"`) && p.drops > 0
	if drop {
		p.drops--
	}
	if strings.Contains(string(body), `"name":"`) {
		p.bodies = append(p.bodies, string(body))
	}
	p.mu.Unlock()
	if drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

func TestSDKRetryAfterDroppedConnection(t *testing.T) {
	for _, tt := range []struct {
		name  string
		drops int
		want  []string // tools the box is asked, in order, after the screenshot
	}{
		{"retry with the same id", 1, []string{"openlolo_tap", "openlolo_tap"}},
		{"then operation_status", 2, []string{"openlolo_tap", "openlolo_tap", "openlolo_operation_status"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := startBox(t, "", false)
			cfg, _ := boxtls.ClientConfig(tb.Box.Cert().Fingerprint())
			px := &dropProxy{box: tb.URL, tool: "openlolo_tap", hc: &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}}
			srv := httptest.NewUnstartedServer(px)
			srv.TLS = tb.Box.Cert().ServerConfig()
			srv.TLS.NextProtos = []string{"http/1.1"}
			srv.StartTLS()
			t.Cleanup(srv.Close)

			st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
			pairSDK(t, tb, srv.URL, st)
			ctx := context.Background()
			c, err := sdk.Dial(ctx, srv.URL, &sdk.Options{Store: st})
			if err != nil {
				t.Fatal(err)
			}
			shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// One undisturbed tap measures how many reports a tap is. No
			// observation: its screenshot would become this client's latest
			// frame (and a new one whenever the status-bar clock ticks).
			noObserve := false
			before := tb.Sim.ReportCount(hid.KindAbsMouse)
			if _, err := c.Tap(ctx, shot.Frame, 0.5, 0.05, &sdk.InputOptions{Observe: &noObserve}); err != nil {
				t.Fatal(err)
			}
			perTap := tb.Sim.ReportCount(hid.KindAbsMouse) - before
			if perTap == 0 {
				t.Fatal("a tap reached the phone as no reports")
			}
			px.mu.Lock()
			px.drops, px.bodies = tt.drops, nil
			px.mu.Unlock()

			before = tb.Sim.ReportCount(hid.KindAbsMouse)
			const id = "6f1d1c1e-3a55-4b8e-9b8a-6c2a0d7e9f10"
			res, err := c.Tap(ctx, shot.Frame, 0.5, 0.05, &sdk.InputOptions{OperationID: id, Observe: &noObserve})
			if err != nil {
				t.Fatalf("Tap through a dropping proxy: %v", err)
			}
			if got := tb.Sim.ReportCount(hid.KindAbsMouse) - before; got != perTap {
				t.Fatalf("the phone got %d pointer reports, want exactly one tap's %d", got, perTap)
			}
			if res.OperationID() != id && res.Structured["operation_id"] != id {
				if op, _ := res.Structured["operation"].(map[string]any); op == nil || op["operation_id"] != id {
					t.Fatalf("answer is for operation %v, want %s: %v", res.Structured["operation_id"], id, res.Structured)
				}
			}
			px.mu.Lock()
			defer px.mu.Unlock()
			var asked []string
			for _, b := range px.bodies {
				for _, name := range []string{"openlolo_tap", "openlolo_operation_status"} {
					if strings.Contains(b, `"name":"`+name+`"`) {
						asked = append(asked, name)
					}
				}
				if strings.Contains(b, `"name":"openlolo_tap"`) && !strings.Contains(b, id) {
					t.Errorf("a retry carried another operation_id: %s", b)
				}
			}
			if strings.Join(asked, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("the box was asked %v, want %v", asked, tt.want)
			}
		})
	}
}
