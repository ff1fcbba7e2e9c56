package android_test

import (
	"bytes"
	"context"
	"image/png"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/phone"
)

// BenchmarkScreenshotTCP: a 1080×2400 screenshot from the fake phone over
// loopback TCP, `screencap` raw (transfer and DecodeScreencap) against
// `screencap -p` (transfer and PNG decode). B/op-style figures: bytes
// moved per screenshot are reported as wire-B/shot.
func BenchmarkScreenshotTCP(b *testing.B) {
	f := startPhone(b, nil, true)
	key, err := adb.LoadOrCreateKey(b.TempDir() + "/adbkey")
	if err != nil {
		b.Fatal(err)
	}
	c, err := adb.DialTCP(context.Background(), f.Addr, adb.ClientConfig{Key: key})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for _, bc := range []struct {
		name   string
		cmd    string
		decode func([]byte) error
	}{
		{"raw", "screencap", func(out []byte) error { _, err := android.DecodeScreencap(out); return err }},
		{"png", "screencap -p", func(out []byte) error { _, err := png.Decode(bytes.NewReader(out)); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var moved int
			for b.Loop() {
				out, err := c.Exec(b.Context(), bc.cmd)
				if err != nil {
					b.Fatal(err)
				}
				if err := bc.decode(out); err != nil {
					b.Fatal(err)
				}
				moved = len(out)
			}
			b.SetBytes(int64(moved))
			b.ReportMetric(float64(moved), "wire-B/shot")
		})
	}
}

// BenchmarkTapShell: one tap through the shell's `input tap` on the fake
// phone over loopback TCP: the box's share of a tap (a real phone adds
// the `input` command's start, a few hundred milliseconds).
func BenchmarkTapShell(b *testing.B) {
	f := startPhone(b, nil, true)
	be := openOn(b, f, android.Options{})
	waitState(b, be, api.StateReady)
	tap := phone.Tap(phone.Point{X: 0.5, Y: 0.5}, 0)
	for b.Loop() {
		if _, err := be.Touch(b.Context(), tap); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.Inputs()))/float64(b.N), "commands/tap")
}
