package coredevice_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/ddi/dditest"
)

// TestSelfTestMountsDiskImage: a phone without its disk image gets it
// mounted by the self-test (signed by the signing server for the boot),
// after which the developer services work.
func TestSelfTestMountsDiskImage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ddi")
	if err := dditest.WriteImage(dir, 0x0C, 0x8140, []byte("image"), []byte("trust")); err != nil {
		t.Fatal(err)
	}
	srv, hits, _ := tssServer(t)
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes"}}
	m := &dditest.Mounter{BoardID: 0x0C, ChipID: 0x8140, Nonce: []byte("n"), Valid: func(tk []byte) bool { return bytes.HasPrefix(tk, []byte("ticket:")) }}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: m}
	p.Services = st.Services(p)
	mux := p.Start(t)
	var out strings.Builder
	coredevice.SelfTest(t.Context(), &out, coredevice.SelfTestOptions{Socket: mux.Socket, StateDir: t.TempDir(), Mount: coredevice.MountFrom(dir, ddi.TSS{URL: srv.URL})})
	for _, want := range []string{"ok      disk image       personalized developer disk image mounted now", "ok      screenshot", "ok      launch"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if hits.Load() != 1 || !m.IsMounted() {
		t.Errorf("%d signing requests, mounted %v", hits.Load(), m.IsMounted())
	}
}

// TestSelfTestDeveloperModeOff: the step fails with where the switch is,
// and the self-test has the phone show it.
func TestSelfTestDeveloperModeOff(t *testing.T) {
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{}
	p.Services = st.Services(p)
	mux := p.Start(t)
	var out strings.Builder
	coredevice.SelfTest(t.Context(), &out, coredevice.SelfTestOptions{Socket: mux.Socket, StateDir: t.TempDir()})
	if !strings.Contains(out.String(), "FAIL    developer mode   off: turn it on in Settings > Privacy & Security > Developer Mode") ||
		!strings.Contains(out.String(), "asked the phone to show the switch") || p.Reveals() != 1 {
		t.Errorf("reveals %d; report:\n%s", p.Reveals(), out.String())
	}
}
