package mcp

import (
	"bytes"
	"fmt"

	"github.com/openlolo/openlolo/hw/phone"
)

// EncodeJPEG scales f's picture to fit maxSize on its longer side and
// encodes it as JPEG at quality, with the screenshots' scaler and the
// encoder this binary was built with (libjpeg-turbo under the turbojpeg
// tag). The box page's live stream encodes its pictures with it.
func EncodeJPEG(f *phone.Frame, maxSize, quality int) ([]byte, error) {
	b := f.Image.Bounds()
	if b.Empty() {
		return nil, fmt.Errorf("mcp: encode jpeg: the frame is empty")
	}
	w, h := scaled(b, maxSize)
	if f.JPEG != nil && w == b.Dx() && h == b.Dy() {
		return f.JPEG, nil
	}
	img := f.Image
	if w != b.Dx() || h != b.Dy() {
		img = downscale(f.Image, w, h)
	}
	var buf bytes.Buffer
	if err := encodeJPEG(&buf, img, quality); err != nil {
		return nil, fmt.Errorf("mcp: encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}
