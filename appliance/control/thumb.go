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
	src := f.Image
	// A 15× reduction sampled bilinearly would alias text into noise:
	// average whole k×k blocks first (RGBA, what the capture and the sim
	// give), then sample; other image types take x/image's BiLinear,
	// which widens its kernel when shrinking (about 10× slower).
	if rgba, ok := src.(*image.RGBA); ok {
		if k := min(sb.Dx()/w, sb.Dy()/h); k >= 2 {
			src = boxReduce(rgba, k)
		}
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	} else {
		draw.BiLinear.Scale(dst, dst.Bounds(), src, sb, draw.Src, nil)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: thumbQuality}); err != nil {
		return store.Thumb{}, fmt.Errorf("control: thumbnail: encode: %w", err)
	}
	return store.Thumb{Width: w, Height: h, JPEG: buf.Bytes()}, nil
}

// queueThumb hands the screen after clientID's operation opID's input to
// the calls writer, which encodes and stores its thumbnail. It never
// waits: when the queue is full the thumbnail is skipped (the Activity row
// then has none).
func (s *Service) queueThumb(clientID, opID string, f *phone.Frame) {
	select {
	case s.calls <- call{action: store.Action{ClientID: clientID}, operationID: opID, frame: f}:
	default:
		s.log.Debug("control: thumbnail skipped: the calls queue is full", "op", opID)
	}
}

// boxReduce averages each k×k block of src into one pixel.
func boxReduce(src *image.RGBA, k int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sum := make([]uint32, 4*w)
	n := uint32(k * k)
	for y := range h {
		clear(sum)
		for dy := range k {
			o := src.PixOffset(b.Min.X, b.Min.Y+y*k+dy)
			row := src.Pix[o : o+4*w*k]
			for x := range w {
				px := row[4*x*k : 4*(x+1)*k]
				s := sum[4*x : 4*x+4]
				for i := 0; i < len(px); i += 4 {
					s[0] += uint32(px[i])
					s[1] += uint32(px[i+1])
					s[2] += uint32(px[i+2])
					s[3] += uint32(px[i+3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for i, v := range sum {
			out[i] = uint8(v / n)
		}
	}
	return dst
}
