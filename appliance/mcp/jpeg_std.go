//go:build !(cgo && turbojpeg)

package mcp

import (
	"bytes"
	"image"
	"image/jpeg"
)

// jpegEncoder names the JPEG encoder this binary was built with.
const jpegEncoder = "image/jpeg"

// encodeJPEG encodes img with the standard library (build with the tag
// turbojpeg and cgo to use libjpeg-turbo instead).
func encodeJPEG(buf *bytes.Buffer, img image.Image, quality int) error {
	return jpeg.Encode(buf, img, &jpeg.Options{Quality: quality})
}
