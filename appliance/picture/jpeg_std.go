//go:build !(cgo && turbojpeg)

package picture

import (
	"bytes"
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
