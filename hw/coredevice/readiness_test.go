package coredevice_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/ddi/dditest"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/phone"
)

func TestIOSMajor(t *testing.T) {
	for v, want := range map[string]int{"27.0": 27, "26.2.1": 26, "17": 17, "": 0, "x.1": 0, "-3.0": 0} {
		if got := coredevice.IOSMajor(v); got != want {
			t.Errorf("IOSMajor(%q) = %d, want %d", v, got, want)
		}
	}
	if p := coredevice.InputProblems("26.4"); p != phone.ProblemSet(phone.InputNeedsIOS27) {
		t.Errorf("InputProblems(26.4) = %v", p)
	}
	for _, v := range []string{"27.0", "28.1", ""} {
		if p := coredevice.InputProblems(v); p != 0 {
			t.Errorf("InputProblems(%q) = %v, want none", v, p)
		}
	}
}

func openBackend(t *testing.T, ctx context.Context, p *coredevicetest.Phone, o coredevice.Options) (*coredevice.Backend, <-chan phone.Event) {
	t.Helper()
	mux := p.Start(t)
	o.Socket, o.StateDir, o.Retry = mux.Socket, t.TempDir(), 10*time.Millisecond
	if o.Recheck == 0 {
		o.Recheck = 20 * time.Millisecond
	}
	b, err := coredevice.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, b.Subscribe(ctx)
}

// rechecks waits until the backend checked p's readiness n more times.
func rechecks(t *testing.T, p *coredevicetest.Phone, n int) {
	t.Helper()
	from := p.RemoteLockdowns()
	until(t, fmt.Sprintf("%d readiness checks", n), func() bool { return p.RemoteLockdowns() >= from+n })
}

// TestBackendDeveloperModeOff: a phone without Developer Mode is not
// ready, says what to do, and gets the Settings switch revealed once.
func TestBackendDeveloperModeOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{ProductVersion: "26.1"}
	p.Services = st.Services(p)
	b, events := openBackend(t, ctx, p, coredevice.Options{})
	waitState(t, events, b, "developer_mode_off")
	s := b.State()
	if s.Ready || s.Problems != phone.ProblemSet(phone.DeveloperModeOff, phone.InputNeedsIOS27) || !strings.Contains(s.Reason, "Privacy & Security") {
		t.Errorf("state %+v", s)
	}
	rechecks(t, p, 3)
	if n := p.Reveals(); n != 1 {
		t.Errorf("Developer Mode switch revealed %d times, want once per tunnel", n)
	}
	if _, err := b.Screenshot(ctx); !errors.Is(err, phone.ErrUnavailable) || !strings.Contains(err.Error(), "Developer Mode is off") {
		t.Errorf("Screenshot without Developer Mode = %v, want ErrUnavailable saying why", err)
	}
}

// TestBackendDiskImage: without a mounted image the phone is not ready;
// once one is mounted (here: by someone else, as Xcode would) the next
// check finds it, reads the catalogue again and the services work.
func TestBackendDiskImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	m := &dditest.Mounter{}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: m}
	p.Services = st.Services(p)
	b, events := openBackend(t, ctx, p, coredevice.Options{})
	waitState(t, events, b, "ddi_not_mounted")
	if s := b.State(); s.Ready || s.Problems != phone.ProblemSet(phone.DiskImageNotMounted) || !strings.Contains(s.Reason, "no disk image to mount") {
		t.Errorf("state %+v", s)
	}
	m.SetMounted([]byte("signature"))
	waitState(t, events, b, "ready")
	if s := b.State(); s.Problems != 0 {
		t.Errorf("problems when ready on iOS 27: %v", s.Problems)
	}
	if _, err := b.Screenshot(ctx); err != nil {
		t.Errorf("Screenshot after the image mounted: %v", err)
	}
	if p.Reveals() != 0 {
		t.Errorf("revealed Developer Mode on a phone that has it on")
	}
}

// TestBackendMount: with Mount set the backend mounts the image itself;
// a failing mount is reported with its error (the internet is needed).
func TestBackendMount(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	m := &dditest.Mounter{}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: m}
	p.Services = st.Services(p)
	fail := make(chan bool, 1)
	fail <- true
	mount := func(ctx context.Context, c *coredevice.Conn) error {
		select {
		case <-fail:
			return errors.New("TSS: dial tcp: lookup gs.apple.com: no such host")
		default:
		}
		mt, err := c.Mounter(ctx)
		if err != nil {
			return err
		}
		defer mt.Close()
		if sigs, err := mt.Mounted(ctx, ddi.Personalized); err != nil || len(sigs) != 0 {
			return errors.New("mounted already")
		}
		m.SetMounted([]byte("ticket"))
		return nil
	}
	b, events := openBackend(t, ctx, p, coredevice.Options{Mount: mount})
	waitState(t, events, b, "ddi_not_mounted")
	if r := b.State().Reason; !strings.Contains(r, "needs the internet") || !strings.Contains(r, "gs.apple.com") {
		t.Errorf("reason %q does not say the mount failed and why", r)
	}
	// Not retried on this tunnel before mountRetry; a new one tries again.
	p.Unplug()
	p.Mux.Attach(p.Device)
	waitState(t, events, b, "ready")
	if _, err := b.Screenshot(ctx); err != nil {
		t.Errorf("Screenshot after mounting: %v", err)
	}
}

// TestBackendTrustProblem: while the phone asks Trust This Computer?
// the state carries not_trusted.
func TestBackendTrustProblem(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	answer := make(chan struct{})
	p := &coredevicetest.Phone{DeveloperMode: true, Prompt: func() string {
		select {
		case <-answer:
			return ""
		default:
			return "PairingDialogResponsePending"
		}
	}}
	p.Services = st.Services(p)
	b, events := openBackend(t, ctx, p, coredevice.Options{})
	waitState(t, events, b, "pairing")
	if s := b.State(); s.Problems != phone.ProblemSet(phone.NotTrusted) || !strings.Contains(s.Reason, "Trust This Computer?") {
		t.Errorf("state %+v", s)
	}
	close(answer)
	waitState(t, events, b, "ready")
}

// tssServer signs "ticket:<nonce>" like Apple's server would sign a
// ticket for that boot; down makes it answer 503.
func tssServer(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Bool) {
	var hits atomic.Int32
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		req, err := plist.UnmarshalDict(b)
		if err != nil {
			http.Error(w, "bad", 400)
			return
		}
		if n, _ := req.Uint("ApECID"); n != coredevicetest.ECID {
			http.Error(w, "wrong ECID", 400)
			return
		}
		tk, _ := plist.Marshal(plist.Dict{{Key: "ApImg4Ticket", Value: append([]byte("ticket:"), req.Data("ApNonce")...)}})
		io.WriteString(w, "STATUS=0&MESSAGE=SUCCESS&REQUEST_STRING="+string(tk))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits, &down
}

// TestBackendMountsDiskImage: with the disk image in its folder the
// backend mounts it itself (signed by the TSS server for the phone's
// nonce, over real HTTP), and after the phone restarts it mounts it again
// for the new nonce. While the signing server is down the state says so,
// and the server is not asked again before mountRetry.
func TestBackendMountsDiskImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "ddi")
	if err := dditest.WriteImage(dir, 0x0C, 0x8140, []byte("image bytes"), []byte("trust")); err != nil {
		t.Fatal(err)
	}
	srv, hits, down := tssServer(t)
	st := &coredevicetest.State{}
	m := &dditest.Mounter{BoardID: 0x0C, ChipID: 0x8140, Nonce: []byte("boot1"),
		Valid: func(tk []byte) bool { return bytes.HasPrefix(tk, []byte("ticket:")) }}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: m}
	p.Services = st.Services(p)
	down.Store(true)
	b, events := openBackend(t, ctx, p, coredevice.Options{Mount: coredevice.MountFrom(dir, ddi.TSS{URL: srv.URL})})
	waitState(t, events, b, "ddi_not_mounted")
	for !strings.Contains(b.State().Reason, "HTTP 503") {
		select {
		case <-events:
		case <-ctx.Done():
			t.Fatalf("state %+v, want the signing server's failure", b.State())
		}
	}
	if r := b.State().Reason; !strings.Contains(r, "needs the internet") {
		t.Errorf("reason %q", r)
	}
	rechecks(t, p, 3)
	if n := hits.Load(); n != 1 {
		t.Errorf("the signing server was asked %d times within mountRetry, want once", n)
	}
	down.Store(false)
	p.Unplug() // a new tunnel tries at once
	p.Mux.Attach(p.Device)
	waitState(t, events, b, "ready")
	if got, _ := m.Uploaded(); string(got) != "image bytes" {
		t.Errorf("uploaded %q", got)
	}
	if _, err := b.Screenshot(ctx); err != nil {
		t.Errorf("Screenshot after mounting: %v", err)
	}
	// The phone restarts: the image is gone, a new nonce is signed.
	before := hits.Load()
	m.Restart([]byte("boot2"))
	p.Unplug()
	waitState(t, events, b, "detached")
	p.Mux.Attach(p.Device)
	waitState(t, events, b, "ready")
	if hits.Load() != before+1 || !m.IsMounted() {
		t.Errorf("after a restart: %d more TSS requests, mounted %v", hits.Load()-before, m.IsMounted())
	}
}

func TestMountFromNoImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: &dditest.Mounter{}}
	p.Services = st.Services(p)
	dir := filepath.Join(t.TempDir(), "ddi")
	b, events := openBackend(t, ctx, p, coredevice.Options{Mount: coredevice.MountFrom(dir, ddi.TSS{URL: "http://127.0.0.1:1"})})
	waitState(t, events, b, "ddi_not_mounted")
	if r := b.State().Reason; !strings.Contains(r, "no disk image") || !strings.Contains(r, dir) {
		t.Errorf("reason %q does not say where the image goes", r)
	}
}
