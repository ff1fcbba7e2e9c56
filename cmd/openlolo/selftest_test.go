package main

import (
	"context"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/ddi/dditest"
	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
	"github.com/openlolo/openlolo/waittest"
)

// TestSelfTestCoreDevice runs the self-test against the fake iPhone: it
// pairs, takes a screenshot, lists and launches apps, and round-trips
// Unicode through the clipboard, reporting each step.
func TestSelfTestCoreDevice(t *testing.T) {
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	state := t.TempDir()
	code, out, errb := run(t, "", "selftest", "--phone", "coredevice", "--state", state, "--usbmuxd", mux.Socket)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	for _, want := range []string{
		"ok      usbmuxd", "ok      tunnel", "phone   iPhone17,1, iOS 27.0", "ok      developer mode   on",
		"ok      disk image       personalized developer disk image mounted", "ok      screenshot", "ok      apps             1 apps: com.apple.mobilenotes", "ok      launch           com.apple.mobilenotes, pid 4242",
		`ok      set clipboard    "héllo ✓ 日本" set and read back`, `ok      clipboard        "héllo ✓ 日本"`,
		"skip    paste, tap", "result: 9 ok, 0 failed, 1 skipped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(state, "selftest-screenshot.png")); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("screenshot file: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(state, "coredevice", p.UDID+".plist")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("pair record: %v %v", fi, err)
	}
	if got := st.Launches(); len(got) != 1 {
		t.Errorf("launched %v", got)
	}
}

// TestSelfTestNoDiskImage: a phone without its developer disk image
// fails that step with what it is for and why it needs the internet.
func TestSelfTestNoDiskImage(t *testing.T) {
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{DeveloperMode: true, Mounter: &dditest.Mounter{}}
	p.Services = st.Services(p)
	mux := p.Start(t)
	code, out, _ := run(t, "", "selftest", "--phone", "coredevice", "--state", t.TempDir(), "--usbmuxd", mux.Socket)
	if code != 1 || !strings.Contains(out, "FAIL    disk image       not mounted") || !strings.Contains(out, "Apple's signing server") || !strings.Contains(out, "no disk image: copy the Restore folder") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestSelfTestNoPhone(t *testing.T) {
	p := &coredevicetest.Phone{}
	mux := p.Start(t)
	p.Unplug()
	code, out, _ := run(t, "", "selftest", "--phone", "coredevice", "--state", t.TempDir(), "--usbmuxd", mux.Socket)
	if code != 1 || !strings.Contains(out, "FAIL    usbmuxd          no iPhone on USB") || !strings.Contains(out, "result: 0 ok, 1 failed") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestSelfTestGadgetHere: on this machine (no USB device controller)
// the gadget self-test runs, fails the USB steps with what to do, skips
// the box's LED and button under --no-gpio, and exits 1.
func TestSelfTestGadgetHere(t *testing.T) {
	code, out, errb := run(t, "", "selftest", "--phone", "gadget", "--platform", "android", "--no-gpio", "--state", t.TempDir())
	if code != 1 || !strings.Contains(out, "openlolo selftest --phone gadget --platform android") ||
		!strings.Contains(out, "FAIL    ") || !strings.Contains(out, "skip    led          no GPIO panel") || !strings.Contains(out, "result: ") {
		t.Errorf("exit %d\n%s\n%s", code, out, errb)
	}
	if code, _, _ := run(t, "", "selftest", "--phone", "gadget", "--platform", "windows"); code != 2 {
		t.Errorf("--platform windows: exit %d, want 2", code)
	}
	if code, _, _ := run(t, "", "selftest", "--phone", "gadget", "--no-gpio", "--gpio-led", "5"); code != 2 {
		t.Errorf("--no-gpio with --gpio-led: exit %d, want 2", code)
	}
}

// TestSelfTestAndroid runs the self-test against the fake Android phone
// over ADB on TCP: the key's fingerprint, the phone allowing it, a saved
// screenshot, input by the shell's input command, apps and elements.
func TestSelfTestAndroid(t *testing.T) {
	fake := &adbtest.Phone{}
	dev := &adbtest.Device{Serial: "fake1", Model: "Pixel_7", Handler: fake.Handle, Allow: func(string) bool { return true }}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { dev.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	state := t.TempDir()
	code, out, errb := run(t, "", "selftest", "--phone", "android", "--adb", l.Addr().String(), "--state", state)
	for _, want := range []string{"openlolo selftest --phone android", "fingerprint ", "ok      screenshot", "ok      tap", "ok      elements", "result: 9 ok, 0 failed, 0 skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: exit %d\n%s\n%s", want, code, out, errb)
		}
	}
	if code != 0 || len(fake.Inputs()) < 3 {
		t.Errorf("exit %d, the phone got %q", code, fake.Inputs())
	}
	if _, err := os.Stat(filepath.Join(state, "android", "adbkey")); err != nil {
		t.Errorf("the box's ADB key is not in the state directory: %v", err)
	}
}

func TestSelfTestUsage(t *testing.T) {
	if code, _, _ := run(t, "", "selftest", "--phone", "sim", "--state", t.TempDir()); code != 2 {
		t.Errorf("--phone sim: exit %d, want 2", code)
	}
	if code, _, _ := run(t, "", "selftest", "--phone", "coredevice"); code != 2 {
		t.Errorf("no --state: exit %d, want 2", code)
	}
}

// TestServeCoreDevice: serve --phone coredevice starts the box on the
// fake iPhone, and the backend pairs with it in the background (the pair
// record appears in the state dir).
func TestServeCoreDevice(t *testing.T) {
	st := &coredevicetest.State{Apps: map[string]string{"com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{}
	p.Services = st.Services(p)
	mux := p.Start(t)
	state := filepath.Join(t.TempDir(), "state")
	s := startServe(t, "--state", state, "--lan", "127.0.0.1:0", "--phone", "coredevice", "--usbmuxd", mux.Socket, "--name", "openlolo-beef")
	resp, err := healthz(s.value(t, 0, "LAN URL"), s.value(t, 2, "SPKI pin"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rec := filepath.Join(state, "coredevice", p.UDID+".plist")
	// Polled on the real clock: serve and the fake iPhone talk over real
	// sockets, which testing/synctest's fake time does not cover.
	start := time.Now()
	if !waittest.Until(30*time.Second, 20*time.Millisecond, func() bool { _, err := os.Stat(rec); return err == nil }) {
		t.Fatalf("no pair record after 30 s; log:\n%s", s.stderr)
	}
	// The record is written before the tunnel opens; wait for it.
	waittest.Until(30*time.Second-time.Since(start), 20*time.Millisecond, func() bool { return p.Tunnels() > 0 })
	if p.Tunnels() == 0 {
		t.Error("the backend opened no tunnel")
	}
	if code := s.stop(); code != 0 {
		t.Errorf("serve exit %d; log:\n%s", code, s.stderr)
	}
}

// TestPhoneAuto: --phone auto takes the iPhone usbmuxd sees, and falls
// back to the simulated phone on a machine with neither an iPhone nor a
// USB device controller (this one).
func TestPhoneAuto(t *testing.T) {
	st := &coredevicetest.State{}
	p := &coredevicetest.Phone{}
	p.Services = st.Services(p)
	mux := p.Start(t)
	ctx := t.Context()
	// serve's table, with a gadget that finds no configfs on any machine
	openAuto := func(args ...string) (phone.Phone, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		phones := addPhoneFlags(fs, "auto", []phone.Registration{
			coredevice.Registration(coredevice.Options{Socket: mux.Socket}),
			gadget.Registration(gadget.Options{ConfigFS: t.TempDir() + "/none", UDCDir: t.TempDir() + "/none", DevDir: t.TempDir()}),
			sim.Registration(sim.Options{}),
		})
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		return phones.open(ctx, phone.Env{StateDir: t.TempDir()})
	}
	ph, err := openAuto()
	if err != nil {
		t.Fatal(err)
	}
	if got := ph.Info().Backend; got != "coredevice" {
		t.Errorf("with an iPhone: backend %q, want coredevice", got)
	}
	ph.Close()
	p.Unplug()
	ph, err = openAuto("--sim-size", "300x600")
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	if got := ph.Info().Backend; got != "sim" || ph.Info().Native.X != 300 {
		t.Errorf("with nothing attached: backend %q %v, want sim 300 wide", got, ph.Info().Native)
	}
}
