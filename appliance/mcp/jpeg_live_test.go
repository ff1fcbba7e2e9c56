package mcp_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"testing"

	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/hw/phone"
	"github.com/openlolo/openlolo/hw/sim"
)

// EncodeJPEG fits the picture into the size on its longer side, keeps a
// smaller one as it is, and refuses an empty frame.
func TestEncodeJPEGForLive(t *testing.T) {
	ph, err := sim.New(sim.Options{Size: image.Pt(1179, 2556)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	f, err := ph.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ max, w, h int }{{960, 442, 960}, {4096, 1179, 2556}} {
		b, err := mcp.EncodeJPEG(f, c.max, 70)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width != c.w || cfg.Height != c.h {
			t.Fatalf("EncodeJPEG(max %d) = %dx%d (%v), want %dx%d", c.max, cfg.Width, cfg.Height, err, c.w, c.h)
		}
	}
	if _, err := mcp.EncodeJPEG(&phone.Frame{Image: image.NewRGBA(image.Rect(0, 0, 0, 0))}, 960, 70); err == nil {
		t.Fatal("an empty frame encoded")
	}
}
