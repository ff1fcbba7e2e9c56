//go:build !(cgo && turbojpeg)

package picture

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
)

// Encoder names the JPEG encoder this binary was built with (shown in
// benchmark logs).
const Encoder = "image/jpeg"

// encodeJPEG encodes img with the standard library (build with the tag
// turbojpeg and cgo to use libjpeg-turbo instead).
func encodeJPEG(buf *bytes.Buffer, img image.Image, quality int) error {
	return jpeg.Encode(buf, img, &jpeg.Options{Quality: quality})
}

// DecodeJPEG decodes a JPEG (a capture device's MJPEG frame) with the
// standard library (build with the tag turbojpeg and cgo for
// libjpeg-turbo, which is several times faster).
func DecodeJPEG(data []byte) (image.Image, error) {
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("picture: decode JPEG: %w", err)
	}
	return img, nil
}
