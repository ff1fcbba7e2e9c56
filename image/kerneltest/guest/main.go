// Command guest runs inside the kernel-test VM (image/kerneltest): it sets
// up the box's USB gadget with hw/gadget on dummy_udc, drives it through
// the gadget's hidg writers, reads what the same kernel's host side makes
// of it from /dev/input/event*, captures a frame from vivid with
// hw/capture, drives a fake Android phone (FunctionFS on the same
// dummy_udc) as a USB host with hw/usb and ADB over usbdevfs, reaches a
// fake iPhone's lockdownd (FunctionFS again) with the box's own usbmux,
// runs the box's binary (openlolo selftest and serve, with an MCP client
// paired through the owner's Access page) on the fake iPhone and the fake
// Android phone with no usbmuxd or adb server, and prints one "RESULT <name> PASS|FAIL <detail>" line per check. Files
// for the host go to /dev/vda as a tar stream.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/sdk"
)

// result is one check's outcome.
type result struct {
	name   string
	ok     bool
	detail string
}

// suite runs checks and remembers results.
type suite struct {
	results []result
	start   time.Time
}

func (s *suite) report(name string, ok bool, format string, a ...any) bool {
	detail := fmt.Sprintf(format, a...)
	s.results = append(s.results, result{name, ok, detail})
	word := "FAIL"
	if ok {
		word = "PASS"
	}
	fmt.Printf("RESULT %s %s %s (+%.1fs)\n", name, word, detail, time.Since(s.start).Seconds())
	return ok
}

func (s *suite) logf(format string, a ...any) {
	fmt.Printf("guest +%.2fs: %s\n", time.Since(s.start).Seconds(), fmt.Sprintf(format, a...))
}

func main() {
	s := &suite{start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out := map[string][]byte{}

	// Each part has its own deadline inside the VM's, well above what
	// it takes (the whole guest takes about a minute on an idle host):
	// one that hangs fails its own checks, and the parts after it still
	// run and report.
	within(ctx, 2*time.Minute, func(ctx context.Context) { s.gadgetChecks(ctx, out) })
	within(ctx, 2*time.Minute, func(ctx context.Context) { s.selftestCheck(ctx, out) })
	within(ctx, time.Minute, func(ctx context.Context) { s.captureChecks(ctx, out) })
	within(ctx, 90*time.Second, s.adbUSBChecks)
	s.boxChecks(ctx)

	if err := writeTar("/dev/vda", out); err != nil {
		s.report("export", false, "%v", err)
	}
	failed := 0
	for _, r := range s.results {
		if !r.ok {
			failed++
		}
	}
	fmt.Printf("guest: %d passed, %d failed\n", len(s.results)-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// boxChecks runs the iPhone checks, then the box's own binary on the
// fake iPhone and the fake Android phone, all on one state folder.
func (s *suite) boxChecks(ctx context.Context) {
	state, err := os.MkdirTemp("", "box")
	if err != nil {
		s.report("box-state", false, "%v", err)
		return
	}
	store := &sdk.TokenStore{Path: filepath.Join(state+"-client", "boxes.json")}
	iphone, err := newFakeIPhone("/etc/iphonekey")
	if !s.report("fake-iphone", err == nil, "%s", errOr(err, "the fake iPhone, its key made by the host")) {
		return
	}
	// No iphone.stop: the VM powers off next, and closing the fake's
	// tunnels once kept the guest from reporting (a hang in teardown).
	within(ctx, 90*time.Second, func(ctx context.Context) { s.iPhoneUSBChecks(ctx, iphone, filepath.Join(state, "coredevice")) })
	within(ctx, 3*time.Minute, func(ctx context.Context) { s.coreDeviceBoxChecks(ctx, iphone, state, store) })
	within(ctx, 2*time.Minute, func(ctx context.Context) { s.androidBoxChecks(ctx, state, store) })
}

// within runs part with a context that ends after limit (or with ctx).
func within(ctx context.Context, limit time.Duration, part func(context.Context)) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	part(ctx)
}

// writeTar writes files as a tar stream to the start of a block device.
func writeTar(dev string, files map[string][]byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		tw.Write(b)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("export to %s: %w", dev, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("export to %s: %w", dev, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// firstLine trims an error for a result line.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
