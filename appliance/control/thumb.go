package control

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"

	"golang.org/x/image/draw"

	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/phone"
)

const (
	// ThumbSize is the long side of the Activity page's thumbnail of the
	// screen after an input, in pixels.
	ThumbSize = 160
	// thumbQuality is its JPEG quality: a few KB a picture.
	thumbQuality = 70
)

// Thumbnail fits f into ThumbSize on its longer side and encodes it as a
// JPEG. It runs off the call's path (the calls writer encodes it).
func Thumbnail(f *phone.Frame) (store.Thumb, error) {
	if f == nil || f.Image == nil {
		return store.Thumb{}, fmt.Errorf("control: thumbnail: no picture")
	}
	sb := f.Image.Bounds()
	if sb.Dx() <= 0 || sb.Dy() <= 0 {
		return store.Thumb{}, fmt.Errorf("control: thumbnail: empty picture (%d×%d)", sb.Dx(), sb.Dy())
	}
	w, h := Fit(sb.Dx(), sb.Dy(), ThumbSize)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// BiLinear, unlike ApproxBiLinear, widens its kernel when shrinking, so
	// a 15× reduction of text does not alias into noise.
	draw.BiLinear.Scale(dst, dst.Bounds(), f.Image, sb, draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: thumbQuality}); err != nil {
		return store.Thumb{}, fmt.Errorf("control: thumbnail: encode: %w", err)
	}
	return store.Thumb{Width: w, Height: h, JPEG: buf.Bytes()}, nil
}

// queueThumb hands the screen after operation opID's input to the calls
// writer, which encodes and stores its thumbnail. It never waits: when the
// queue is full the thumbnail is skipped (the Activity row then has none).
func (s *Service) queueThumb(opID string, f *phone.Frame) {
	select {
	case s.calls <- call{operationID: opID, frame: f}:
	default:
		s.log.Debug("control: thumbnail skipped: the calls queue is full", "op", opID)
	}
}
