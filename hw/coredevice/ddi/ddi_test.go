package ddi_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/ddi/dditest"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

const board, chip, ecid = 0x0C, 0x8140, 0x1122334455

func image(t *testing.T) (*ddi.Image, []byte, []byte) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "Restore")
	img, tc := bytes.Repeat([]byte("disk image "), 5000), []byte("trust cache")
	if err := dditest.WriteImage(dir, board, chip, img, tc); err != nil {
		t.Fatal(err)
	}
	i, err := ddi.LoadImage(dir)
	if err != nil {
		t.Fatal(err)
	}
	return i, img, tc
}

func TestTSSRequest(t *testing.T) {
	img, data, _ := image(t)
	id, err := img.Identity(board, chip)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := img.Identity(board, 0x8150); err == nil || !strings.Contains(err.Error(), "no build for this phone") {
		t.Errorf("Identity for another chip = %v", err)
	}
	ids := ddi.Identifiers{BoardID: board, ChipID: chip, SecurityDomain: 1, ECID: ecid, Extra: plist.Dict{{Key: "Ap,OSLongVersion", Value: "27.0"}}}
	req := ddi.TSSRequest(id, ids, []byte("nonce"), "UUID-1")
	for _, want := range []struct {
		key string
		v   any
	}{{"ApECID", uint64(ecid)}, {"ApBoardID", uint64(board)}, {"ApChipID", uint64(chip)}, {"ApSecurityDomain", uint64(1)},
		{"@UUID", "UUID-1"}, {"@ApImg4Ticket", true}, {"ApProductionMode", true}, {"Ap,OSLongVersion", "27.0"}} {
		if got, _ := req.Get(want.key); got != want.v {
			t.Errorf("%s = %v, want %v", want.key, got, want.v)
		}
	}
	if !bytes.Equal(req.Data("ApNonce"), []byte("nonce")) || len(req.Data("SepNonce")) != 20 {
		t.Errorf("nonces %x %x", req.Data("ApNonce"), req.Data("SepNonce"))
	}
	dmg := req.Dict("PersonalizedDMG")
	if dmg == nil || !dmg.Bool("Trusted") || !dmg.Bool("EPRO") || !dmg.Bool("ESEC") || dmg.String("Name") != "DeveloperDiskImage" {
		t.Errorf("PersonalizedDMG = %v: want Trusted, EPRO and ESEC from the trust cache's rules, Name", dmg)
	}
	digest, _ := ddi.Digest(filepath.Join(img.Dir, "Image.dmg"))
	if !bytes.Equal(dmg.Data("Digest"), digest) || len(digest) != 48 {
		t.Errorf("digest %x, want the image's SHA-384 %x (%d bytes of image)", dmg.Data("Digest"), digest, len(data))
	}
	if tc := req.Dict("LoadableTrustCache"); !tc.Bool("EPRO") || !tc.Bool("ESEC") || tc.String("Name") != "" {
		t.Errorf("LoadableTrustCache = %v", tc)
	}
	if _, ok := req.Get("Manifest"); ok {
		t.Error("an untrusted component went into the request")
	}
	if _, err := plist.Marshal(req); err != nil {
		t.Errorf("the request does not encode: %v", err)
	}
}

func TestImagePathOutside(t *testing.T) {
	dir := t.TempDir()
	m := plist.Dict{{Key: "BuildIdentities", Value: []any{plist.Dict{{Key: "ApBoardID", Value: "0x0C"}, {Key: "ApChipID", Value: "0x8140"},
		{Key: "Manifest", Value: plist.Dict{{Key: "PersonalizedDMG", Value: plist.Dict{{Key: "Info", Value: plist.Dict{{Key: "Path", Value: "../../etc/passwd"}}}}}}}}}}}
	b, _ := plist.Marshal(m)
	os.WriteFile(filepath.Join(dir, "BuildManifest.plist"), b, 0o644)
	img, err := ddi.LoadImage(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := img.Identity(board, chip)
	if _, err := img.ImagePath(id); !errors.Is(err, ddi.ErrMalformed) {
		t.Errorf("ImagePath outside the folder = %v, want ErrMalformed", err)
	}
	if _, err := ddi.LoadImage(t.TempDir()); err == nil {
		t.Error("LoadImage of an empty folder succeeded")
	}
}

func TestParseTSSResponse(t *testing.T) {
	ticket, _ := plist.Marshal(plist.Dict{{Key: "ApImg4Ticket", Value: []byte("TICKET")}})
	tests := []struct {
		name, body string
		want       string
		err        func(error) bool
	}{
		{"ok", "STATUS=0&MESSAGE=SUCCESS&REQUEST_STRING=" + string(ticket), "TICKET", nil},
		{"refused", "STATUS=94&MESSAGE=This device isn't eligible for the requested build.", "", func(err error) bool {
			var te *ddi.TSSError
			return errors.As(err, &te) && te.Status == 94 && strings.Contains(err.Error(), "eligible")
		}},
		{"no status", "<html>", "", func(err error) bool { return errors.Is(err, ddi.ErrMalformed) }},
		{"no ticket", "STATUS=0&MESSAGE=SUCCESS&REQUEST_STRING=" + strings.Replace(string(ticket), "ApImg4Ticket", "Other", 1), "", func(err error) bool { return errors.Is(err, ddi.ErrMalformed) }},
	}
	for _, tt := range tests {
		got, err := ddi.ParseTSSResponse([]byte(tt.body))
		if tt.err == nil && (err != nil || string(got) != tt.want) || tt.err != nil && (err == nil || !tt.err(err)) {
			t.Errorf("%s: ParseTSSResponse = %q, %v", tt.name, got, err)
		}
	}
}

// fakeTSS signs "ticket:<nonce hex>" and records the requests.
type fakeTSS struct {
	mu   sync.Mutex
	reqs []plist.Dict
	fail int // HTTP status to answer instead
}

func (f *fakeTSS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	req, err := plist.UnmarshalDict(b)
	if err != nil || r.Header.Get("Content-Type") != `text/xml; charset="utf-8"` {
		http.Error(w, "bad request", 400)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	fail := f.fail
	f.mu.Unlock()
	if fail != 0 {
		http.Error(w, "down", fail)
		return
	}
	t, _ := plist.Marshal(plist.Dict{{Key: "ApImg4Ticket", Value: []byte("ticket:" + hex.EncodeToString(req.Data("ApNonce")))}})
	io.WriteString(w, "STATUS=0&MESSAGE=SUCCESS&REQUEST_STRING="+string(t))
}

func (f *fakeTSS) setFail(code int) { f.mu.Lock(); f.fail = code; f.mu.Unlock() }

func (f *fakeTSS) count() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.reqs) }

// pipeOpen connects to m over a pipe, as the tunnel would.
func pipeOpen(m *dditest.Mounter) func(context.Context) (*ddi.Mounter, error) {
	return func(ctx context.Context) (*ddi.Mounter, error) {
		c, s := net.Pipe()
		go m.Serve(s)
		return ddi.Open(ctx, c)
	}
}

// TestMountImage: the first mount of a boot is signed by TSS for the
// phone's nonce, the image and trust cache are uploaded and mounted; a
// second mount in the same boot reuses the ticket the phone holds; after a
// restart a new nonce is signed. Refusals and TSS failures are errors
// that say what happened.
func TestMountImage(t *testing.T) {
	ctx := t.Context()
	img, data, tc := image(t)
	tss := &fakeTSS{}
	srv := httptest.NewServer(tss)
	defer srv.Close()
	signer := ddi.TSS{URL: srv.URL}
	m := &dditest.Mounter{DeveloperMode: true, BoardID: board, ChipID: chip, Nonce: []byte{1, 2, 3},
		Valid: func(t []byte) bool { return strings.HasPrefix(string(t), "ticket:") }}

	mt, _ := pipeOpen(m)(ctx)
	if sigs, err := mt.Mounted(ctx, ddi.Personalized); err != nil || len(sigs) != 0 {
		t.Fatalf("Mounted before = %v, %v", sigs, err)
	}
	mt.Close()
	if err := ddi.MountImage(ctx, pipeOpen(m), img, ecid, signer); err != nil {
		t.Fatal(err)
	}
	gotImg, gotTC := m.Uploaded()
	if !m.IsMounted() || !bytes.Equal(gotImg, data) || !bytes.Equal(gotTC, tc) || tss.count() != 1 {
		t.Fatalf("mounted %v, image %d bytes (want %d), trust cache %q, %d TSS requests", m.IsMounted(), len(gotImg), len(data), gotTC, tss.count())
	}
	if r := tss.reqs[0]; !bytes.Equal(r.Data("ApNonce"), []byte{1, 2, 3}) {
		t.Errorf("TSS was asked for nonce %x", r.Data("ApNonce"))
	}
	mt, _ = pipeOpen(m)(ctx)
	sigs, err := mt.Mounted(ctx, ddi.Personalized)
	mt.Close()
	if err != nil || len(sigs) != 1 || string(sigs[0]) != "ticket:010203" {
		t.Errorf("Mounted after = %q, %v", sigs, err)
	}

	// Same boot: the phone still holds the ticket.
	if err := ddi.MountImage(ctx, pipeOpen(m), img, ecid, signer); err != nil || tss.count() != 1 {
		t.Errorf("second mount: %v, %d TSS requests (want the stored ticket reused)", err, tss.count())
	}
	// A restart: a new nonce, signed anew.
	m.Restart([]byte{9})
	if err := ddi.MountImage(ctx, pipeOpen(m), img, ecid, signer); err != nil || tss.count() != 2 || !m.IsMounted() {
		t.Errorf("mount after restart: %v, %d TSS requests", err, tss.count())
	}

	// Apple down, and Developer Mode off.
	m.Restart([]byte{7})
	tss.setFail(http.StatusServiceUnavailable)
	if err := ddi.MountImage(ctx, pipeOpen(m), img, ecid, signer); err == nil || !strings.Contains(err.Error(), "HTTP 503") || m.IsMounted() {
		t.Errorf("mount with TSS down = %v", err)
	}
	if err := ddi.MountImage(ctx, pipeOpen(m), img, ecid, ddi.TSS{URL: "http://127.0.0.1:1/"}); err == nil || !strings.Contains(err.Error(), "needs the internet") {
		t.Errorf("mount without the internet = %v", err)
	}
	tss.setFail(0)
	off := &dditest.Mounter{BoardID: board, ChipID: chip, Nonce: []byte{1}}
	var refused *ddi.RefusedError
	if err := ddi.MountImage(ctx, pipeOpen(off), img, ecid, signer); !errors.As(err, &refused) || refused.Name != "DeveloperModeIsNotEnabled" {
		t.Errorf("mount without Developer Mode = %v", err)
	}
	other := &dditest.Mounter{DeveloperMode: true, BoardID: 0x0E, ChipID: chip, Nonce: []byte{1}}
	if err := ddi.MountImage(ctx, pipeOpen(other), img, ecid, signer); err == nil || !strings.Contains(err.Error(), "board 0xe") {
		t.Errorf("mount for another board = %v", err)
	}
}
