package android_test

import (
	"bytes"
	"context"
	"image/png"
	"testing"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/android"
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
