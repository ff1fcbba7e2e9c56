package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"time"

	"github.com/openlolo/openlolo/hw/capture"
	"github.com/openlolo/openlolo/phone"
	"github.com/openlolo/openlolo/waittest"
)

// captureChecks streams from vivid with hw/capture, converts a frame to
// PNG and computes the content rectangle and geometry epoch.
func (s *suite) captureChecks(ctx context.Context, out map[string][]byte) {
	d, err := capture.Open(ctx, capture.Options{Width: 640, Height: 360})
	if !s.report("capture-open", err == nil, "%v", errOr(err, "ok")) {
		return
	}
	defer d.Close()
	f := d.Format()
	s.logf("capture %s: %s %dx%d stride %d", d.Path(), f.Pixel, f.Width, f.Height, f.Stride)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	first, err := d.Wait(wctx, 0)
	if !s.report("capture-frame", err == nil, "%s", errOr(err, "frame streamed")) {
		return
	}
	second, err := d.Wait(wctx, first.Seq)
	if !s.report("capture-stream", err == nil && second.Seq > first.Seq, "frames %d then %v (%v)", first.Seq, seqOf(second), err) {
		return
	}
	img, err := capture.Decode(second)
	if !s.report("capture-decode", err == nil, "%s %v", f.Pixel, errOr(err, "decoded")) {
		return
	}
	var tr capture.Tracker
	rect, epoch := tr.Update(capture.ContentRect(img))
	ok := !rect.Empty() && rect.In(img.Bounds()) && epoch == 1
	s.report("capture-geometry", ok, "content %v in %v, epoch %d", rect, img.Bounds(), epoch)
	var pb bytes.Buffer
	if err := png.Encode(&pb, img); !s.report("capture-png", err == nil, "%d bytes %v", pb.Len(), errOr(err, "")) {
		return
	}
	out["frame.png"] = pb.Bytes()
	out["frame.txt"] = fmt.Appendf(nil, "%d %d %s %d %d %d %d %d\n", img.Bounds().Dx(), img.Bounds().Dy(), f.Pixel,
		rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y, epoch)
	s.captureReopen(ctx, d)
	if err := d.Close(); !s.report("capture-close", err == nil && !d.Online(), "streamoff and close: %v", errOr(err, "ok")) {
		return
	}
}

func seqOf[F interface{ *capture.Frame | *phone.Frame }](f F) any {
	switch v := any(f).(type) {
	case *capture.Frame:
		if v != nil {
			return v.Seq
		}
	case *phone.Frame:
		if v != nil {
			return v.Seq
		}
	}
	return "none"
}

func errOr(err error, ok string) string {
	if err != nil {
		return firstLine(err)
	}
	return ok
}

// captureReopen unbinds the vivid device (its /dev/video node goes away,
// as when a dongle is unplugged), binds it again, and expects the reader
// to reopen it and stream new frames.
func (s *suite) captureReopen(ctx context.Context, d *capture.Device) {
	const drv = "/sys/bus/platform/drivers/vivid/"
	before, err := d.Latest()
	if err != nil {
		s.report("capture-reopen", false, "no frame before: %v", err)
		return
	}
	if err := os.WriteFile(drv+"unbind", []byte("vivid.0"), 0o200); err != nil {
		s.report("capture-reopen", false, "unbind vivid.0: %v", err)
		return
	}
	wentAway := waitFor(5*time.Second, func() bool { return !d.Online() })
	if err := os.WriteFile(drv+"bind", []byte("vivid.0"), 0o200); err != nil {
		s.report("capture-reopen", false, "bind vivid.0: %v", err)
		return
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var after *capture.Frame
	if waitFor(15*time.Second, d.Online) {
		after, err = d.Wait(wctx, before.Seq)
	}
	s.report("capture-reopen", wentAway && after != nil && err == nil,
		"offline after unbind %v; frame %d before, %v after rebind (%v)", wentAway, before.Seq, seqOf(after), errOr(err, "ok"))
}

// waitFor polls cond every 20 ms until it holds or d passes: the kernel
// gives no event for most of what the guest checks.
func waitFor(d time.Duration, cond func() bool) bool {
	return waittest.Until(d, 20*time.Millisecond, cond)
}
