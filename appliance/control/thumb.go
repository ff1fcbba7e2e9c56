package control

import (
	"fmt"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/phone"
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
	// The one downscaler averages whole blocks before it samples, so a
	// 15× reduction keeps text grey rather than aliasing it into noise.
	w, h := picture.Fit(sb.Dx(), sb.Dy(), ThumbSize)
	data, err := picture.Encode(picture.Downscale(f.Image, w, h), api.FormatJPEG, thumbQuality)
	if err != nil {
		return store.Thumb{}, fmt.Errorf("control: thumbnail: %w", err)
	}
	return store.Thumb{Width: w, Height: h, JPEG: data}, nil
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
