package picture

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/openlolo/openlolo/api"
)

// Encode encodes img as format at its size: JPEG at quality with this
// binary's encoder ([Encoder]), PNG at the fastest compression.
func Encode(img image.Image, format api.ImageFormat, quality int) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case api.FormatPNG:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case api.FormatJPEG:
		err = encodeJPEG(&buf, img, quality)
	default:
		err = fmt.Errorf("the format %q is neither jpeg nor png", format)
	}
	if err != nil {
		return nil, fmt.Errorf("picture: encode %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// Fitted is img fitted into b: img itself when it fits, a downscaled copy
// otherwise.
func Fitted(img image.Image, b Box) image.Image {
	sb := img.Bounds()
	w, h := b.Fit(sb.Dx(), sb.Dy())
	if w == sb.Dx() && h == sb.Dy() {
		return img
	}
	return Downscale(img, w, h)
}
